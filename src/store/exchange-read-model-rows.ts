// Rows of the exchange read models' tables as records, for both adapters (SQLite reads integers as
// bigint through safeIntegers, PostgreSQL's pool parses int8 as bigint): the same columns, the
// same records, one mapping. Money stays bigint from the column to the record.

import type { MarketDetails } from "../core/commands.js";
import type {
  MarketStatus,
  ModelType,
  OrderSide,
  OrderStatus,
  OrderType,
  PositionStatus,
  TimeInForce,
} from "../core/exchange.js";
import { decodePlainData } from "../engine/journal-codec.js";
import type {
  CatalogMarket,
  CatalogOutcome,
  DepositRecord,
  LedgerEntryRecord,
  LedgerEntryType,
  OrderRecord,
  PositionRecord,
  TradeRecord,
  TradeRole,
  WithdrawalRecord,
  WithdrawalRecordStatus,
} from "./exchange-read-models.js";

export type Row = Record<string, unknown>;

export const num = (value: unknown): number => Number(value as bigint);
export const numOrNull = (value: unknown): number | null => (value === null ? null : Number(value as bigint));
export const big = (value: unknown): bigint => value as bigint;
export const bigOrNull = (value: unknown): bigint | null => (value === null ? null : (value as bigint));

export function orderOf(row: Row): OrderRecord {
  return {
    orderId: num(row.order_id),
    userId: num(row.user_id),
    marketId: num(row.market_id),
    outcomeId: num(row.outcome_id),
    optionId: num(row.option_id),
    side: row.side as OrderSide,
    orderType: row.order_type as OrderType,
    timeInForce: row.time_in_force as TimeInForce,
    limitPrice: bigOrNull(row.limit_price),
    shares: bigOrNull(row.shares),
    amount: bigOrNull(row.amount),
    filledShares: big(row.filled_shares),
    filledAmount: big(row.filled_amount),
    feePaid: big(row.fee_paid),
    status: row.status as OrderStatus,
    clientOrderId: row.client_order_id as string | null,
    expiresAtMs: numOrNull(row.expires_at_ms),
    createdAtMs: num(row.created_at_ms),
    updatedAtMs: num(row.updated_at_ms),
  };
}

export function tradeOf(row: Row): TradeRecord {
  return {
    tradeId: num(row.trade_id),
    orderId: num(row.order_id),
    userId: num(row.user_id),
    marketId: num(row.market_id),
    outcomeId: num(row.outcome_id),
    optionId: num(row.option_id),
    side: row.side as OrderSide,
    role: row.role as TradeRole,
    cross: row.cross_type as TradeRecord["cross"],
    price: big(row.price),
    shares: big(row.shares),
    fee: big(row.fee),
    timeMs: num(row.time_ms),
  };
}

export function ledgerEntryOf(row: Row): LedgerEntryRecord {
  return {
    entryId: num(row.entry_id),
    userId: num(row.user_id),
    type: row.type as LedgerEntryType,
    amount: big(row.amount),
    frozenDelta: big(row.frozen_delta),
    availableAfter: big(row.available_after),
    frozenAfter: big(row.frozen_after),
    refId: row.ref_id as string,
    timeMs: num(row.time_ms),
  };
}

export function depositOf(row: Row): DepositRecord {
  return {
    txHash: row.tx_hash as string,
    userId: num(row.user_id),
    amount: big(row.amount),
    creditedAtMs: num(row.credited_at_ms),
  };
}

export function withdrawalOf(row: Row): WithdrawalRecord {
  return {
    withdrawalId: num(row.withdrawal_id),
    userId: num(row.user_id),
    amount: big(row.amount),
    fee: big(row.fee),
    address: row.address as string,
    status: row.status as WithdrawalRecordStatus,
    requestedAtMs: num(row.requested_at_ms),
    updatedAtMs: num(row.updated_at_ms),
  };
}

export function positionOf(row: Row): PositionRecord {
  return {
    positionId: num(row.position_id),
    userId: num(row.user_id),
    marketId: num(row.market_id),
    outcomeId: num(row.outcome_id),
    optionId: num(row.option_id),
    shares: big(row.shares),
    frozenShares: big(row.frozen_shares),
    cost: big(row.cost),
    realizedPnl: big(row.realized_pnl),
    status: row.status as PositionStatus,
    claimable: big(row.claimable),
    claimedAmount: big(row.claimed_amount),
    claimTransactionId: row.claim_transaction_id as string | null,
  };
}

/**
 * A market from its `markets` row and its options' rows (outcome_id, name, option_id, option_index,
 * title, asset_id), ordered by outcome, then option index.
 */
export function catalogMarketOf(marketId: number, row: Row, optionRows: readonly Row[]): CatalogMarket {
  const outcomes: { outcomeId: number; name: string; options: CatalogOutcome["options"][number][] }[] = [];
  for (const option of optionRows) {
    const outcomeId = num(option.outcome_id);
    let outcome = outcomes.at(-1);
    if (outcome === undefined || outcome.outcomeId !== outcomeId) {
      outcome = { outcomeId, name: option.name as string, options: [] };
      outcomes.push(outcome);
    }
    outcome.options.push({
      optionId: num(option.option_id),
      optionIndex: num(option.option_index),
      title: option.title as string,
      assetId: option.asset_id as string,
    });
  }
  return {
    marketId,
    title: row.title as string,
    modelType: row.model_type as ModelType,
    status: row.status as MarketStatus,
    categoryId: row.category_id as string | null,
    description: row.description as string,
    rules: row.rules as string,
    tags: row.tags as string,
    creatorId: numOrNull(row.creator_id),
    startTimeMs: numOrNull(row.start_time_ms),
    endTimeMs: numOrNull(row.end_time_ms),
    createdAtMs: num(row.created_at_ms),
    openedAtMs: numOrNull(row.opened_at_ms),
    closedAtMs: numOrNull(row.closed_at_ms),
    volume: big(row.volume),
    feeIncome: big(row.fee_income),
    exclusive: Number(row.exclusive ?? 0) === 1,
    details: row.details === null ? null : decodePlainData<MarketDetails>(row.details as string),
    outcomes,
  };
}
