// The exchange's read models in the embedded SQLite file: the projector the engine runs inside each
// commit's transaction. Their tables are exchange-schema.ts, the queries behind the trading routes
// exchange-read-model-queries.ts. Money columns are 64-bit integers of atoms, read back as bigint
// (safeIntegers, exchange-rows.ts), so nothing is ever rounded through a double.

import type { Statement } from "better-sqlite3";
import type { ExchangeCommand } from "../../core/commands.js";
import type {
  DepositCreditedEvent,
  ExchangeEvent,
  MarketCreatedEvent,
  OrderCancelledEvent,
  OrderExpiredEvent,
  OrderPlacedEvent,
  TradeExecutedEvent,
} from "../../core/events.js";
import { newPosition, type Position, recordBuy, recordSell } from "../../core/wallet/positions.js";
import { encodePlainData } from "../../engine/journal-codec.js";
import type { JournalEntry } from "../../engine/store.js";
import type { LedgerEntryType, TradeRole } from "../exchange-read-models.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import type { SqliteProjector } from "./engine-store.js";
import { big, prepareBig, type Row } from "./exchange-rows.js";
import { exchangeReadModelMigrations } from "./exchange-schema.js";
import { createLifecycleProjection } from "./lifecycle-projection.js";
import { createPoolProjection } from "./pool-projection.js";
import { createUserHistoryIndexer } from "./user-history-index.js";
import { createWithdrawalProjection } from "./withdrawal-projection.js";

const atomsPerOne = 100_000_000n;

/** Creates the tables (once) and returns the projector the engine runs in every commit. */
export function createSqliteExchangeProjector(
  db: SqliteDatabase,
  options: { readonly userHistoryIndexLag?: number | undefined } = {},
): SqliteProjector<ExchangeCommand, ExchangeEvent> {
  applyMigrations(db, "exchange", exchangeReadModelMigrations);
  const statements = {
    insertMarket: db.prepare(
      `INSERT INTO markets (market_id, title, model_type, status, category_id, description, rules, tags,
         creator_id, start_time_ms, end_time_ms, created_at_ms, details)
       VALUES (?, ?, ?, 'draft', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertOutcome: db.prepare("INSERT INTO market_outcomes (outcome_id, market_id, name) VALUES (?, ?, ?)"),
    insertOption: db.prepare(
      "INSERT INTO market_options (option_id, outcome_id, market_id, option_index, title, asset_id) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    openMarket: db.prepare("UPDATE markets SET status = 'open', opened_at_ms = ? WHERE market_id = ?"),
    closeMarket: db.prepare("UPDATE markets SET status = 'closed', closed_at_ms = ? WHERE market_id = ?"),
    addMarketTrade: db.prepare(
      "UPDATE markets SET volume = volume + ?, fee_income = fee_income + ? WHERE market_id = ?",
    ),
    optionsOfOutcome: db.prepare<[number], { option_id: number }>(
      "SELECT option_id FROM market_options WHERE outcome_id = ? ORDER BY option_index",
    ),
    insertOrder: db.prepare(
      `INSERT INTO exchange_orders (order_id, user_id, market_id, outcome_id, option_id, side, order_type,
         time_in_force, limit_price, shares, amount, filled_shares, filled_amount, fee_paid, status,
         client_order_id, expires_at_ms, created_at_ms, updated_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    fillMakerOrder: db.prepare(
      `UPDATE exchange_orders SET filled_shares = filled_shares + ?, filled_amount = filled_amount + ?,
         fee_paid = fee_paid + ?, status = ?, updated_at_ms = ? WHERE order_id = ?`,
    ),
    endOrder: db.prepare("UPDATE exchange_orders SET status = ?, updated_at_ms = ? WHERE order_id = ?"),
    insertTrade: db.prepare(
      `INSERT INTO exchange_trades (trade_id, role, order_id, user_id, market_id, outcome_id, option_id, side,
         cross_type, price, shares, fee, time_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    selectBalance: prepareBig<[number], { available: bigint; frozen: bigint }>(
      db,
      "SELECT available, frozen FROM exchange_balances WHERE user_id = ?",
    ),
    saveBalance: db.prepare(
      `INSERT INTO exchange_balances (user_id, available, frozen) VALUES (?, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET available = excluded.available, frozen = excluded.frozen`,
    ),
    insertLedger: db.prepare(
      `INSERT INTO exchange_ledger (user_id, type, amount, frozen_delta, available_after, frozen_after, ref_id, time_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    selectPosition: prepareBig<[number], Row>(db, "SELECT * FROM exchange_positions WHERE position_id = ?"),
    upsertPosition: db.prepare(
      `INSERT INTO exchange_positions (position_id, user_id, market_id, outcome_id, option_id, shares,
         frozen_shares, cost, realized_pnl) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (position_id) DO UPDATE SET shares = excluded.shares, frozen_shares = excluded.frozen_shares,
         cost = excluded.cost, realized_pnl = excluded.realized_pnl`,
    ),
    moveFrozenShares: db.prepare(
      "UPDATE exchange_positions SET shares = shares - ?, frozen_shares = frozen_shares + ? WHERE user_id = ? AND option_id = ?",
    ),
    insertPricePoint: db.prepare(
      "INSERT INTO exchange_price_points (option_id, time_ms, trade_id, market_id, outcome_id, price) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    insertDeposit: db.prepare(
      "INSERT INTO exchange_deposits (tx_hash, user_id, amount, credited_at_ms) VALUES (?, ?, ?, ?)",
    ),
  };

  // Options never change once created, so the Yes/No ids of an outcome are safe to keep in memory.
  const optionIdsByOutcome = new Map<number, readonly [number, number]>();
  const optionIdsOf = (outcomeId: number): readonly [number, number] => {
    let ids = optionIdsByOutcome.get(outcomeId);
    if (ids === undefined) {
      const rows = statements.optionsOfOutcome.all(outcomeId);
      if (rows.length !== 2) throw new Error(`read models: outcome ${outcomeId} has no Yes/No options`);
      ids = [rows[0]!.option_id, rows[1]!.option_id];
      optionIdsByOutcome.set(outcomeId, ids);
    }
    return ids;
  };

  // The balances a batch moves, read on first use and written back once per user at the batch's
  // end (flushBalances), in the same transaction: an order moves its user's balance three or four
  // times (freeze, trade, fee, unfreeze), and an upsert for each was a sixth of the projection.
  // Only this projector writes exchange_balances, and the map never outlives its batch.
  const balances = new Map<number, { available: bigint; frozen: bigint }>();
  const balanceOf = (userId: number): { available: bigint; frozen: bigint } => {
    let balance = balances.get(userId);
    if (balance === undefined) {
      const row = statements.selectBalance.get(userId);
      balance = { available: row?.available ?? 0n, frozen: row?.frozen ?? 0n };
      balances.set(userId, balance);
    }
    return balance;
  };
  const flushBalances = (): void => {
    for (const [userId, balance] of balances) {
      statements.saveBalance.run(userId, balance.available, balance.frozen);
    }
  };

  // A market's volume and fee income only ever grow by sums, and nothing in a batch reads them, so
  // its trades' shares are added up in memory and written once per market at the batch's end.
  const marketTotals = new Map<number, { volume: bigint; fees: bigint }>();
  const flushMarketTotals = (): void => {
    for (const [marketId, totals] of marketTotals) {
      statements.addMarketTrade.run(totals.volume, totals.fees, marketId);
    }
  };

  const ledger = (
    userId: number,
    type: LedgerEntryType,
    amount: bigint,
    frozenDelta: bigint,
    refId: string,
    timeMs: number,
  ): void => {
    const balance = balanceOf(userId);
    balance.available += amount;
    balance.frozen += frozenDelta;
    if (balance.available < 0n || balance.frozen < 0n) {
      throw new Error(`read models: negative balance for user ${userId} after ${type} ${refId}`);
    }
    statements.insertLedger.run(
      userId,
      type,
      amount,
      frozenDelta,
      balance.available,
      balance.frozen,
      refId,
      timeMs,
    );
  };

  const projectLifecycle = createLifecycleProjection(db, ledger);
  const projectWithdrawal = createWithdrawalProjection(db, ledger);

  const loadPosition = (
    positionId: number,
    userId: number,
    optionId: number,
    marketId: number,
    outcomeId: number,
  ): Position => {
    const row = statements.selectPosition.get(positionId);
    if (row === undefined) return newPosition(positionId, userId, marketId, outcomeId, optionId);
    return {
      positionId,
      userId,
      marketId,
      outcomeId,
      optionId,
      shares: big(row.shares),
      frozenShares: big(row.frozen_shares),
      cost: big(row.cost),
      realizedPnl: big(row.realized_pnl),
    };
  };

  const savePosition = (position: Position): void => {
    statements.upsertPosition.run(
      position.positionId,
      position.userId,
      position.marketId,
      position.outcomeId,
      position.optionId,
      position.shares,
      position.frozenShares,
      position.cost,
      position.realizedPnl,
    );
  };

  const projectPool = createPoolProjection(db, { ledger, loadPosition, savePosition, optionIdsOf });

  const onMarketCreated = (event: MarketCreatedEvent): void => {
    const details = event.details ?? null;
    statements.insertMarket.run(
      event.marketId,
      event.title,
      event.modelType,
      textOf(details?.categoryId),
      textOf(details?.description) ?? "",
      textOf(details?.rules) ?? "",
      textOf(details?.tags) ?? "",
      event.creatorId,
      event.startTimeMs,
      event.endTimeMs,
      event.createdAtMs,
      details === null ? null : encodePlainData(details),
    );
    for (const outcome of event.outcomes) {
      statements.insertOutcome.run(outcome.outcomeId, event.marketId, outcome.name);
      for (const option of outcome.options) {
        statements.insertOption.run(
          option.optionId,
          outcome.outcomeId,
          event.marketId,
          option.optionIndex,
          option.title,
          option.assetId,
        );
      }
    }
  };

  const onOrderPlaced = (event: OrderPlacedEvent): void => {
    statements.insertOrder.run(
      event.orderId,
      event.userId,
      event.marketId,
      event.outcomeId,
      event.optionId,
      event.side,
      event.orderType,
      event.timeInForce,
      event.limitPrice,
      event.shares,
      event.amount,
      event.filledShares,
      event.filledAmount,
      event.feePaid,
      event.status,
      event.clientOrderId,
      event.expiresAtMs,
      event.createdAtMs,
      event.createdAtMs,
    );
    // The resting part's funds or shares are frozen before any of the command's fills (evolve's order).
    if (event.frozenAmount !== 0n) {
      ledger(
        event.userId,
        "FREEZE",
        -event.frozenAmount,
        event.frozenAmount,
        String(event.orderId),
        event.createdAtMs,
      );
    }
    if (event.frozenShares !== 0n) {
      statements.moveFrozenShares.run(event.frozenShares, event.frozenShares, event.userId, event.optionId);
    }
  };

  /** One side's cash for a fill, then its fee if any; returns what the two entries moved together. */
  const tradeAndFee = (event: TradeExecutedEvent, role: TradeRole): bigint => {
    const maker = role === "MAKER";
    const userId = maker ? event.makerUserId : event.takerUserId;
    const notional = maker ? event.makerNotional : event.takerNotional;
    const fee = maker ? event.makerFee : event.takerFee;
    const tradeRef = String(event.tradeId);
    const cash = (maker ? event.makerSide : event.takerSide) === "BUY" ? -notional : notional;
    ledger(userId, "TRADE", cash, 0n, tradeRef, event.atMs);
    if (fee !== 0n) ledger(userId, "FEE", -fee, 0n, tradeRef, event.atMs);
    return cash - fee;
  };

  /** Moves one side's position by a fill; only the maker's (resting) sale takes frozen shares. */
  const fillPosition = (event: TradeExecutedEvent, role: TradeRole): void => {
    const maker = role === "MAKER";
    const position = loadPosition(
      maker ? event.makerPositionId : event.takerPositionId,
      maker ? event.makerUserId : event.takerUserId,
      maker ? event.makerOptionId : event.takerOptionId,
      event.marketId,
      event.outcomeId,
    );
    const notional = maker ? event.makerNotional : event.takerNotional;
    const fee = maker ? event.makerFee : event.takerFee;
    if ((maker ? event.makerSide : event.takerSide) === "BUY")
      recordBuy(position, event.shares, notional, fee);
    else recordSell(position, event.shares, maker, notional, fee);
    savePosition(position);
  };

  const onTrade = (event: TradeExecutedEvent): void => {
    const time = event.atMs;
    statements.fillMakerOrder.run(
      event.shares,
      event.makerNotional,
      event.makerFee,
      event.makerStatus,
      time,
      event.makerOrderId,
    );
    insertTradeSide(statements.insertTrade, event, "MAKER");
    insertTradeSide(statements.insertTrade, event, "TAKER");

    // The maker's cash: what its reserve no longer needs comes back, then the fill and the fee.
    const released = -event.makerFrozenDelta;
    if (released !== 0n)
      ledger(event.makerUserId, "UNFREEZE", released, -released, String(event.makerOrderId), time);
    const makerMoved = tradeAndFee(event, "MAKER");
    if (released + makerMoved !== event.makerAvailableDelta) {
      throw new Error(`read models: trade ${event.tradeId} maker entries differ from its balance delta`);
    }
    const takerMoved = tradeAndFee(event, "TAKER");
    if (takerMoved !== event.takerAvailableDelta) {
      throw new Error(`read models: trade ${event.tradeId} taker entries differ from its balance delta`);
    }

    // Positions, by the core's own average-cost rules.
    fillPosition(event, "MAKER");
    fillPosition(event, "TAKER");

    // A price point for each option of the outcome: Yes at the trade's Yes price, No at 1 − it.
    const [yesId, noId] = optionIdsOf(event.outcomeId);
    statements.insertPricePoint.run(
      yesId,
      time,
      event.tradeId,
      event.marketId,
      event.outcomeId,
      event.yesPrice,
    );
    statements.insertPricePoint.run(
      noId,
      time,
      event.tradeId,
      event.marketId,
      event.outcomeId,
      atomsPerOne - event.yesPrice,
    );
    // Volume is the USDT that changed hands: one notional in a transfer, both in a mint or merge.
    const volume =
      event.cross === "TRANSFER" ? event.makerNotional : event.makerNotional + event.takerNotional;
    const totals = marketTotals.get(event.marketId);
    const fees = event.makerFee + event.takerFee;
    if (totals === undefined) marketTotals.set(event.marketId, { volume, fees });
    else {
      totals.volume += volume;
      totals.fees += fees;
    }
  };

  const onOrderReleased = (event: OrderCancelledEvent | OrderExpiredEvent): void => {
    statements.endOrder.run(
      event.type === "OrderExpired" ? "EXPIRED" : "CANCELLED",
      event.atMs,
      event.orderId,
    );
    if (event.releasedAmount !== 0n) {
      ledger(
        event.userId,
        "UNFREEZE",
        event.releasedAmount,
        -event.releasedAmount,
        String(event.orderId),
        event.atMs,
      );
    }
    if (event.releasedShares !== 0n) {
      statements.moveFrozenShares.run(
        -event.releasedShares,
        -event.releasedShares,
        event.userId,
        event.optionId,
      );
    }
  };

  const onDeposit = (event: DepositCreditedEvent): void => {
    ledger(event.userId, "DEPOSIT", event.amount, 0n, event.txHash, event.atMs);
    statements.insertDeposit.run(event.txHash, event.userId, event.amount, event.atMs);
  };

  const indexUserHistory = createUserHistoryIndexer(db, options.userHistoryIndexLag);

  return (_db, entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]) => {
    try {
      projectEntries(entries);
      flushBalances();
      flushMarketTotals();
      indexUserHistory();
    } finally {
      // A failed batch rolls back; what it left in memory must not leak into a later one.
      balances.clear();
      marketTotals.clear();
    }
  };

  function projectEntries(entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]): void {
    for (const entry of entries) {
      for (const event of entry.events) {
        switch (event.type) {
          case "MarketCreated":
            onMarketCreated(event);
            break;
          case "MarketOpened":
            statements.openMarket.run(event.atMs, event.marketId);
            break;
          case "MarketClosed":
            statements.closeMarket.run(event.atMs, event.marketId);
            break;
          case "DepositCredited":
            onDeposit(event);
            break;
          case "OrderPlaced":
            onOrderPlaced(event);
            break;
          case "OrderRepeated":
            break;
          case "TradeExecuted":
            onTrade(event);
            break;
          case "OrderCancelled":
          case "OrderExpired":
            onOrderReleased(event);
            break;
          case "MarketResolved":
          case "ResolutionChallenged":
          case "ChallengeBondReturned":
          case "ChallengeBondForfeited":
          case "MarketSettled":
          case "MarketVoided":
          case "PositionClaimed":
            projectLifecycle(event);
            break;
          case "WithdrawalRequested":
          case "WithdrawalApproved":
          case "WithdrawalReleased":
          case "WithdrawalCompleted":
            projectWithdrawal(event);
            break;
          case "AmmPoolFunded":
          case "PoolTradeExecuted":
          case "PoolSettled":
            projectPool(event);
            break;
          default: {
            const unreachable: never = event;
            throw new Error(`read models: unknown event ${JSON.stringify(unreachable)}`);
          }
        }
      }
    }
  }
}

function insertTradeSide(statement: Statement, event: TradeExecutedEvent, role: TradeRole): void {
  const maker = role === "MAKER";
  statement.run(
    event.tradeId,
    role,
    maker ? event.makerOrderId : event.takerOrderId,
    maker ? event.makerUserId : event.takerUserId,
    event.marketId,
    event.outcomeId,
    maker ? event.makerOptionId : event.takerOptionId,
    maker ? event.makerSide : event.takerSide,
    event.cross,
    maker ? event.makerPrice : event.takerPrice,
    event.shares,
    maker ? event.makerFee : event.takerFee,
    event.atMs,
  );
}

function textOf(value: unknown): string | null {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : null;
}

export { createSqliteExchangeReadModels } from "./exchange-read-model-queries.js";
export {
  exchangeReadModelMigrations,
  nonTradingLedgerCondition,
  rareLedgerTypeWhere,
} from "./exchange-schema.js";
