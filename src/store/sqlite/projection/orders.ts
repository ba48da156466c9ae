// The exchange_orders rows of a step (src/store/exchange-projection/orders.ts and trades.ts compute
// them): orders as placed, amended, filled and ended.
//
// An order placed in a projection step is kept in memory until the step's end (flush): its fills,
// amendments and its end within the same step change the kept row, so a quote placed and pulled, or
// a resting order placed and filled, in one step is one INSERT instead of an INSERT and UPDATEs.
// An order placed in an earlier step has its fills and end summed through the step and written once
// at its end, 16 orders to an UPDATE … FROM (VALUES …) (under bench:orders' load a step fills a
// resting order 1.6 times on average; one UPDATE per fill was 0.47 statements an order).

import type { OrderAmend, OrderRow } from "../../exchange-projection/event-rows.js";
import type { SqliteDatabase } from "../database.js";
import { createBatchInsert, createBatchStatement } from "./batch-insert.js";

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
  const changes = createOrderChanges(db);
  const amendOrder = db.prepare(
    `UPDATE exchange_orders SET limit_price = ?, shares = ?, filled_shares = ?, filled_amount = ?, fee_paid = ?,
       status = ?, updated_at_ms = ? WHERE order_id = ?`,
  );
  /** Orders placed this step, by id, in the order placed (ids ascending). */
  const placed = new Map<number, OrderRow>();
  const clear = (): void => {
    placed.clear();
    inserts.clear();
    changes.clear();
  };
  return {
    place: (row) => void placed.set(row[0], row),
    fill(orderId, fill) {
      const row = placed.get(orderId);
      if (row === undefined) {
        changes.add(orderId, fill);
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
        // The amendment's totals are the order's whole life: the step's fills before it are in them.
        changes.forget(amend.orderId);
        amendOrder.run(
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
      changes.flush();
      clear();
    },
    clear,
  };
}

type OrderFill = Parameters<OrderRows["fill"]>[1];

/** The fills and ends of orders placed in earlier steps, summed per order through a step. */
interface OrderChanges {
  readonly add: (orderId: number, fill: OrderFill) => void;
  /** Drops the order's sums (an amendment replaced its totals). */
  readonly forget: (orderId: number) => void;
  /** Adds each order's sums to its row, the last status and time its own: one row per order. */
  readonly flush: () => void;
  readonly clear: () => void;
}

function createOrderChanges(db: SqliteDatabase): OrderChanges {
  const updates = createBatchStatement<[number, bigint, bigint, bigint, string, number]>(
    db,
    (values) =>
      `UPDATE exchange_orders SET filled_shares = filled_shares + v.column2,
         filled_amount = filled_amount + v.column3, fee_paid = fee_paid + v.column4, status = v.column5,
         updated_at_ms = v.column6
       FROM (VALUES ${values}) AS v WHERE exchange_orders.order_id = v.column1`,
    6,
  );
  const sums = new Map<
    number,
    { shares: bigint; amount: bigint; fee: bigint; status: string; atMs: number }
  >();
  return {
    add(orderId, fill) {
      const sum = sums.get(orderId);
      if (sum === undefined) {
        sums.set(orderId, { ...fill });
        return;
      }
      sum.shares += fill.shares;
      sum.amount += fill.amount;
      sum.fee += fill.fee;
      sum.status = fill.status;
      sum.atMs = fill.atMs;
    },
    forget: (orderId) => void sums.delete(orderId),
    flush() {
      // Each order once in the list: an UPDATE … FROM applies one of a target row's matches only.
      for (const [orderId, sum] of sums)
        updates.add([orderId, sum.shares, sum.amount, sum.fee, sum.status, sum.atMs]);
      updates.flush();
      sums.clear();
    },
    clear() {
      sums.clear();
      updates.clear();
    },
  };
}
