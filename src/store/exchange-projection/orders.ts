// Orders as placed, amended and as they end (cancelled or expired), with what each freezes and
// releases: the resting part's USDT as FREEZE/UNFREEZE ledger entries, its shares moved between a
// position's free and frozen columns. Fills move the maker's row (trades.ts).

import type {
  OrderAmendedEvent,
  OrderCancelledEvent,
  OrderExpiredEvent,
  OrderPlacedEvent,
} from "../../core/events.js";
import { EventRows, type ProjectionReads } from "./event-rows.js";

export function orderPlacedRows(event: OrderPlacedEvent, reads: ProjectionReads): EventRows {
  const rows = new EventRows(reads);
  rows.placedOrder = [
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
  ];
  // The resting part's funds or shares are frozen before any of the command's fills (evolve's order).
  const ref = String(event.orderId);
  if (event.frozenAmount !== 0n)
    rows.addLedger(event.userId, "FREEZE", -event.frozenAmount, event.frozenAmount, ref, event.createdAtMs);
  if (event.frozenShares !== 0n) rows.moveFrozenShares(event.userId, event.optionId, event.frozenShares);
  return rows;
}

export function orderReleasedRows(
  event: OrderCancelledEvent | OrderExpiredEvent,
  reads: ProjectionReads,
): EventRows {
  const rows = new EventRows(reads);
  rows.addOrderChange({
    orderId: event.orderId,
    shares: 0n,
    amount: 0n,
    fee: 0n,
    status: event.type === "OrderExpired" ? "EXPIRED" : "CANCELLED",
    atMs: event.atMs,
  });
  const ref = String(event.orderId);
  if (event.releasedAmount !== 0n)
    rows.addLedger(event.userId, "UNFREEZE", event.releasedAmount, -event.releasedAmount, ref, event.atMs);
  if (event.releasedShares !== 0n) rows.moveFrozenShares(event.userId, event.optionId, -event.releasedShares);
  return rows;
}

/**
 * The amended order's totals as the event gives them (its own fills as a taker included); what it
 * held frozen and what its rest holds now differ by one FREEZE or UNFREEZE entry, before its fills.
 */
export function orderAmendedRows(event: OrderAmendedEvent, reads: ProjectionReads): EventRows {
  const rows = new EventRows(reads);
  rows.orderAmend = {
    orderId: event.orderId,
    limitPrice: event.limitPrice,
    shares: event.shares,
    filledShares: event.filledShares,
    filledAmount: event.filledAmount,
    feePaid: event.feePaid,
    status: event.status,
    atMs: event.atMs,
  };
  const frozenMore = event.frozenAmount - event.releasedAmount;
  if (frozenMore !== 0n) {
    const type = frozenMore > 0n ? "FREEZE" : "UNFREEZE";
    rows.addLedger(event.userId, type, -frozenMore, frozenMore, String(event.orderId), event.atMs);
  }
  const sharesFrozenMore = event.frozenShares - event.releasedShares;
  if (sharesFrozenMore !== 0n) rows.moveFrozenShares(event.userId, event.optionId, sharesFrozenMore);
  return rows;
}
