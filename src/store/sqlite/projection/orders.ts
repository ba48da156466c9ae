// The exchange_orders rows of a step (src/store/exchange-projection/orders.ts and trades.ts compute
// them): orders as placed, amended, filled and ended.
//
// An order placed in a projection step is kept in memory until the step's end (flush): its fills,
// amendments and its end within the same step change the kept row, so a quote placed and pulled, or
// a resting order placed and filled, in one step is one INSERT instead of an INSERT and UPDATEs.

import type { OrderAmend, OrderRow } from "../../exchange-projection/event-rows.js";
import type { SqliteDatabase } from "../database.js";
import { createBatchInsert } from "./batch-insert.js";

/** The orders a step writes: placed ones kept until its end, others changed in place. */
export interface OrderRows {
  readonly place: (row: OrderRow) => void;
  /** A maker's fill, or an order's end (zeros): its totals grow, its status is the event's. */
  readonly fill: (
    orderId: number,
    fill: { shares: bigint; amount: bigint; fee: bigint; status: string; atMs: number },
  ) => void;
  readonly amend: (amend: OrderAmend) => void;
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
    amend(amend) {
      const row = placed.get(amend.orderId);
      if (row === undefined) {
        statements.amendOrder.run(
          amend.limitPrice,
          amend.shares,
          amend.filledShares,
          amend.filledAmount,
          amend.feePaid,
          amend.status,
          amend.atMs,
          amend.orderId,
        );
        return;
      }
      row[8] = amend.limitPrice;
      row[9] = amend.shares;
      row[11] = amend.filledShares;
      row[12] = amend.filledAmount;
      row[13] = amend.feePaid;
      row[14] = amend.status;
      row[18] = amend.atMs;
    },
    flush() {
      for (const row of placed.values()) inserts.add(row);
      inserts.flush();
      clear();
    },
    clear,
  };
}
