// The rows one journal event writes to the exchange read models, computed once for both stores:
// each event's function (trades.ts, orders.ts, …) is pure — it reads the state it needs through
// ProjectionReads and returns an EventRows, never touching a database. The SQLite writer
// (src/store/sqlite/exchange-read-models.ts) and the PostgreSQL writer
// (src/store/postgres/exchange-projector.ts) only apply those rows, each the way its database is
// fast (16-row statements on SQLite, column arrays on PostgreSQL), so the two projections cannot
// drift. Rows are tuples in their INSERT's column order: both writers bind them as they are.

import type { Position } from "../../core/wallet/positions.js";
import type { LedgerEntryType, TradeRole } from "../exchange-read-models.js";

/** A user's USDT in atoms. */
export interface BalanceSum {
  available: bigint;
  frozen: bigint;
}

/**
 * What the event functions read, as the step has it so far (the stored row, or what earlier events
 * of the step moved it to). Both stores implement it; nothing returned may be changed by the caller.
 */
export interface ProjectionReads {
  /** The user's balance (zeros when the user has none). */
  balanceOf(userId: number): Readonly<BalanceSum>;
  /** The position, or a new empty one for a user's first shares of the option. */
  position(
    positionId: number,
    userId: number,
    optionId: number,
    marketId: number,
    outcomeId: number,
  ): Readonly<Position>;
  /** The user's position in the option, if any. */
  positionOf(userId: number, optionId: number): Readonly<Position> | undefined;
  /** The Yes and No option ids of an outcome, in option order. */
  optionIdsOf(outcomeId: number): readonly [number, number];
}

/** exchange_ledger: the balance after each movement rides on its row. */
export type LedgerRow = [
  userId: number,
  type: LedgerEntryType,
  amount: bigint,
  frozenDelta: bigint,
  availableAfter: bigint,
  frozenAfter: bigint,
  refId: string,
  timeMs: number,
];

/** exchange_trades. */
export type TradeRow = [
  tradeId: number,
  role: TradeRole,
  orderId: number,
  userId: number,
  marketId: number,
  outcomeId: number,
  optionId: number,
  side: string,
  crossType: string,
  price: bigint,
  shares: bigint,
  fee: bigint,
  timeMs: number,
];

/** exchange_price_points. */
export type PricePointRow = [
  optionId: number,
  timeMs: number,
  tradeId: number,
  marketId: number,
  outcomeId: number,
  price: bigint,
];

/** exchange_deposits. */
export type DepositRow = [txHash: string, userId: number, amount: bigint, creditedAtMs: number];

/** exchange_withdrawals as requested (PENDING, updated when requested). */
export type WithdrawalRow = [
  withdrawalId: number,
  userId: number,
  amount: bigint,
  fee: bigint,
  address: string,
  requestedAtMs: number,
];

/** A withdrawal's new status. */
export type WithdrawalStatusRow = [status: string, atMs: number, withdrawalId: number];

/** A settled position's claimable amount: [positionId, claimable]. */
export type ClaimableRow = [positionId: number, claimable: bigint];

/** A market's volume and fee income grow by these sums (summed per step by the writers). */
export type MarketTotalsRow = [marketId: number, volume: bigint, fees: bigint];

/** exchange_orders as placed. */
export type OrderRow = [
  orderId: number,
  userId: number,
  marketId: number,
  outcomeId: number,
  optionId: number,
  side: string,
  orderType: string,
  timeInForce: string,
  limitPrice: bigint | null,
  shares: bigint | null,
  amount: bigint | null,
  filledShares: bigint,
  filledAmount: bigint,
  feePaid: bigint,
  status: string,
  clientOrderId: string | null,
  expiresAtMs: number | null,
  createdAtMs: number,
  updatedAtMs: number,
];

/** An amended order's new terms and its totals over its whole life (they replace, not add). */
export interface OrderAmend {
  readonly orderId: number;
  readonly limitPrice: bigint;
  readonly shares: bigint;
  readonly filledShares: bigint;
  readonly filledAmount: bigint;
  readonly feePaid: bigint;
  readonly status: string;
  readonly atMs: number;
}

/** A resting order's fill (totals added) or end (zeros added): its new status. */
export interface OrderChange {
  readonly orderId: number;
  readonly shares: bigint;
  readonly amount: bigint;
  readonly fee: bigint;
  readonly status: string;
  readonly atMs: number;
}

/** What one event writes, table by table; a table it does not write is left undefined. */
export class EventRows {
  ledger: LedgerRow[] | undefined;
  /** Positions as the event left them, whole (each at most once). */
  positions: Position[] | undefined;
  trades: TradeRow[] | undefined;
  pricePoints: PricePointRow[] | undefined;
  placedOrder: OrderRow | undefined;
  orderAmend: OrderAmend | undefined;
  orderChanges: OrderChange[] | undefined;
  marketTotals: MarketTotalsRow[] | undefined;
  deposit: DepositRow | undefined;
  /** Rare rows each store writes with a statement of its own, as the event comes (not in RowWriter). */
  newWithdrawal: WithdrawalRow | undefined;
  withdrawalStatus: WithdrawalStatusRow | undefined;

  constructor(readonly reads: ProjectionReads) {}

  /**
   * One USDT movement, its balance after moved from the user's balance as the step and this event
   * have it so far. A movement that would leave a negative balance is a projection bug: refused.
   */
  addLedger(
    userId: number,
    type: LedgerEntryType,
    amount: bigint,
    frozenDelta: bigint,
    refId: string,
    timeMs: number,
  ): void {
    const before = this.#balanceOf(userId);
    const available = before.available + amount;
    const frozen = before.frozen + frozenDelta;
    if (available < 0n || frozen < 0n) {
      throw new Error(`read models: negative balance for user ${userId} after ${type} ${refId}`);
    }
    this.ledger = append(this.ledger, [userId, type, amount, frozenDelta, available, frozen, refId, timeMs]);
  }

  #balanceOf(userId: number): Readonly<BalanceSum> {
    const rows = this.ledger;
    if (rows !== undefined) {
      for (let index = rows.length - 1; index >= 0; index -= 1) {
        const row = rows[index]!;
        if (row[0] === userId) return { available: row[4], frozen: row[5] };
      }
    }
    return this.reads.balanceOf(userId);
  }

  /** The position to move: a copy of what the reads hold (or of this event's earlier move), kept as written. */
  movePosition(
    positionId: number,
    userId: number,
    optionId: number,
    marketId: number,
    outcomeId: number,
  ): Position {
    const moved = this.positions?.find((position) => position.positionId === positionId);
    if (moved !== undefined) return moved;
    const position = { ...this.reads.position(positionId, userId, optionId, marketId, outcomeId) };
    this.positions = append(this.positions, position);
    return position;
  }

  /** Moves shares between the user's free and frozen columns of the option; nothing when there is no position. */
  moveFrozenShares(userId: number, optionId: number, shares: bigint): void {
    const stored =
      this.positions?.find((position) => position.userId === userId && position.optionId === optionId) ??
      this.reads.positionOf(userId, optionId);
    if (stored === undefined) return;
    const position = this.movePosition(
      stored.positionId,
      userId,
      optionId,
      stored.marketId,
      stored.outcomeId,
    );
    position.shares -= shares;
    position.frozenShares += shares;
  }

  addTrade(row: TradeRow): void {
    this.trades = append(this.trades, row);
  }

  addPricePoint(row: PricePointRow): void {
    this.pricePoints = append(this.pricePoints, row);
  }

  addOrderChange(change: OrderChange): void {
    this.orderChanges = append(this.orderChanges, change);
  }

  addMarketTotals(marketId: number, volume: bigint, fees: bigint): void {
    this.marketTotals = append(this.marketTotals, [marketId, volume, fees]);
  }
}

export const atomsPerOne = 100_000_000n;

function append<T>(list: T[] | undefined, item: T): T[] {
  if (list === undefined) return [item];
  list.push(item);
  return list;
}

/**
 * What a store does with an event's rows: buffer them for its step's writes and make its reads
 * answer as the rows left things (a ledger row's balance after, a position as moved).
 */
export interface RowWriter {
  ledger(row: LedgerRow): void;
  position(position: Position): void;
  trade(row: TradeRow): void;
  pricePoint(row: PricePointRow): void;
  orderPlaced(row: OrderRow): void;
  orderAmend(amend: OrderAmend): void;
  orderChange(change: OrderChange): void;
  marketTotals(row: MarketTotalsRow): void;
  deposit(row: DepositRow): void;
}

/** Hands an event's rows to a store's writer, table by table in the order the event wrote them. */
export function applyRows(rows: EventRows, writer: RowWriter): void {
  if (rows.placedOrder !== undefined) writer.orderPlaced(rows.placedOrder);
  if (rows.orderAmend !== undefined) writer.orderAmend(rows.orderAmend);
  if (rows.orderChanges !== undefined) for (const change of rows.orderChanges) writer.orderChange(change);
  if (rows.trades !== undefined) for (const row of rows.trades) writer.trade(row);
  if (rows.ledger !== undefined) for (const row of rows.ledger) writer.ledger(row);
  if (rows.positions !== undefined) for (const position of rows.positions) writer.position(position);
  if (rows.pricePoints !== undefined) for (const row of rows.pricePoints) writer.pricePoint(row);
  if (rows.marketTotals !== undefined) for (const row of rows.marketTotals) writer.marketTotals(row);
  if (rows.deposit !== undefined) writer.deposit(rows.deposit);
}
