// Orders as placed, amended and as they end (cancelled or expired), with what each freezes and
// releases: the resting part's USDT as FREEZE/UNFREEZE ledger entries, its shares moved between a
// position's free and frozen columns. Fills move the maker's row (trades.ts, through OrderRows).
//
// An order placed in a projection step is kept in memory until the step's end (flush): its fills,
// amendments and its end within the same step change the kept row, so a quote placed and pulled, or
// a resting order placed and filled, in one step is one INSERT instead of an INSERT and UPDATEs.

import type {
  OrderAmendedEvent,
  OrderCancelledEvent,
  OrderExpiredEvent,
  OrderPlacedEvent,
} from "../../../core/events.js";
import type { SqliteDatabase } from "../database.js";
import type { LedgerWriter } from "../lifecycle-projection.js";
import { createBatchInsert } from "./batch-insert.js";
import type { BatchPositions } from "./positions.js";

export interface OrderProjection {
  readonly onOrderPlaced: (event: OrderPlacedEvent) => void;
  readonly onOrderReleased: (event: OrderCancelledEvent | OrderExpiredEvent) => void;
  readonly onOrderAmended: (event: OrderAmendedEvent) => void;
}

/** A row of exchange_orders in insertOrder's column order. */
type OrderRow = [
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

/** The orders a step writes: placed ones kept until its end, others changed in place. */
export interface OrderRows {
  readonly place: (row: OrderRow) => void;
  /** A maker's fill: its totals grow, its status is the event's. */
  readonly fill: (
    orderId: number,
    fill: { shares: bigint; amount: bigint; fee: bigint; status: string; atMs: number },
  ) => void;
  readonly end: (orderId: number, status: string, atMs: number) => void;
  readonly amend: (event: OrderAmendedEvent) => void;
  /** Inserts the orders placed this step (before anything reads exchange_orders, at the step's end). */
  readonly flush: () => void;
  /** Forgets the kept orders (after a flush, or a rollback). */
  readonly clear: () => void;
}

export function createOrderRows(db: SqliteDatabase): OrderRows {
  const inserts = createBatchInsert<OrderRow>(
    db,
    `INSERT INTO exchange_orders (order_id, user_id, market_id, outcome_id, option_id, side, order_type,
       time_in_force, limit_price, shares, amount, filled_shares, filled_amount, fee_paid, status,
       client_order_id, expires_at_ms, created_at_ms, updated_at_ms)`,
    19,
  );
  const statements = {
    fillOrder: db.prepare(
      `UPDATE exchange_orders SET filled_shares = filled_shares + ?, filled_amount = filled_amount + ?,
         fee_paid = fee_paid + ?, status = ?, updated_at_ms = ? WHERE order_id = ?`,
    ),
    endOrder: db.prepare("UPDATE exchange_orders SET status = ?, updated_at_ms = ? WHERE order_id = ?"),
    amendOrder: db.prepare(
      `UPDATE exchange_orders SET limit_price = ?, shares = ?, filled_shares = ?, filled_amount = ?, fee_paid = ?,
         status = ?, updated_at_ms = ? WHERE order_id = ?`,
    ),
  };
  /** Orders placed this step, by id, in the order placed (ids ascending). */
  const placed = new Map<number, OrderRow>();
  const clear = (): void => {
    placed.clear();
    inserts.clear();
  };
  return {
    place: (row) => void placed.set(row[0], row),
    fill(orderId, fill) {
      const row = placed.get(orderId);
      if (row === undefined) {
        statements.fillOrder.run(fill.shares, fill.amount, fill.fee, fill.status, fill.atMs, orderId);
        return;
      }
      row[11] += fill.shares;
      row[12] += fill.amount;
      row[13] += fill.fee;
      row[14] = fill.status;
      row[18] = fill.atMs;
    },
    end(orderId, status, atMs) {
      const row = placed.get(orderId);
      if (row === undefined) {
        statements.endOrder.run(status, atMs, orderId);
        return;
      }
      row[14] = status;
      row[18] = atMs;
    },
    amend(event) {
      const row = placed.get(event.orderId);
      if (row === undefined) {
        statements.amendOrder.run(
          event.limitPrice,
          event.shares,
          event.filledShares,
          event.filledAmount,
          event.feePaid,
          event.status,
          event.atMs,
          event.orderId,
        );
        return;
      }
      row[8] = event.limitPrice;
      row[9] = event.shares;
      row[11] = event.filledShares;
      row[12] = event.filledAmount;
      row[13] = event.feePaid;
      row[14] = event.status;
      row[18] = event.atMs;
    },
    flush() {
      for (const row of placed.values()) inserts.add(row);
      inserts.flush();
      clear();
    },
    clear,
  };
}

export function createOrderProjection(
  orders: OrderRows,
  ledger: LedgerWriter,
  positions: Pick<BatchPositions, "moveFrozenShares">,
): OrderProjection {
  const onOrderPlaced = (event: OrderPlacedEvent): void => {
    orders.place([
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
    ]);
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
    if (event.frozenShares !== 0n)
      positions.moveFrozenShares(event.userId, event.optionId, event.frozenShares);
  };

  const onOrderReleased = (event: OrderCancelledEvent | OrderExpiredEvent): void => {
    orders.end(event.orderId, event.type === "OrderExpired" ? "EXPIRED" : "CANCELLED", event.atMs);
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
    if (event.releasedShares !== 0n)
      positions.moveFrozenShares(event.userId, event.optionId, -event.releasedShares);
  };

  // The amended order's totals as the event gives them (its own fills as a taker included); what it
  // held frozen and what its rest holds now differ by one FREEZE or UNFREEZE entry, before its fills.
  const onOrderAmended = (event: OrderAmendedEvent): void => {
    orders.amend(event);
    const frozenMore = event.frozenAmount - event.releasedAmount;
    if (frozenMore !== 0n) {
      ledger(
        event.userId,
        frozenMore > 0n ? "FREEZE" : "UNFREEZE",
        -frozenMore,
        frozenMore,
        String(event.orderId),
        event.atMs,
      );
    }
    const sharesFrozenMore = event.frozenShares - event.releasedShares;
    if (sharesFrozenMore !== 0n) positions.moveFrozenShares(event.userId, event.optionId, sharesFrozenMore);
  };

  return { onOrderPlaced, onOrderReleased, onOrderAmended };
}
