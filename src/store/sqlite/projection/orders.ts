// Orders as placed, amended and as they end (cancelled or expired), with what each freezes and
// releases: the resting part's USDT as FREEZE/UNFREEZE ledger entries, its shares moved between a
// position's free and frozen columns. Fills update the maker's row in trades.ts.

import type {
  OrderAmendedEvent,
  OrderCancelledEvent,
  OrderExpiredEvent,
  OrderPlacedEvent,
} from "../../../core/events.js";
import type { SqliteDatabase } from "../database.js";
import type { LedgerWriter } from "../lifecycle-projection.js";

export interface OrderProjection {
  readonly onOrderPlaced: (event: OrderPlacedEvent) => void;
  readonly onOrderReleased: (event: OrderCancelledEvent | OrderExpiredEvent) => void;
  readonly onOrderAmended: (event: OrderAmendedEvent) => void;
}

export function createOrderProjection(db: SqliteDatabase, ledger: LedgerWriter): OrderProjection {
  const statements = {
    insertOrder: db.prepare(
      `INSERT INTO exchange_orders (order_id, user_id, market_id, outcome_id, option_id, side, order_type,
         time_in_force, limit_price, shares, amount, filled_shares, filled_amount, fee_paid, status,
         client_order_id, expires_at_ms, created_at_ms, updated_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    endOrder: db.prepare("UPDATE exchange_orders SET status = ?, updated_at_ms = ? WHERE order_id = ?"),
    amendOrder: db.prepare(
      `UPDATE exchange_orders SET limit_price = ?, shares = ?, filled_shares = ?, filled_amount = ?, fee_paid = ?,
         status = ?, updated_at_ms = ? WHERE order_id = ?`,
    ),
    moveFrozenShares: db.prepare(
      "UPDATE exchange_positions SET shares = shares - ?, frozen_shares = frozen_shares + ? WHERE user_id = ? AND option_id = ?",
    ),
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

  // The amended order's totals as the event gives them (its own fills as a taker included); what it
  // held frozen and what its rest holds now differ by one FREEZE or UNFREEZE entry, before its fills.
  const onOrderAmended = (event: OrderAmendedEvent): void => {
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
    if (sharesFrozenMore !== 0n)
      statements.moveFrozenShares.run(sharesFrozenMore, sharesFrozenMore, event.userId, event.optionId);
  };

  return { onOrderPlaced, onOrderReleased, onOrderAmended };
}
