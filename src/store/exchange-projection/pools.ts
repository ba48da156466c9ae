// AMM and parimutuel pools. A pool trade is one TAKER trade row (the pool is the counterparty and
// has no row), TRADE and FEE ledger entries, the position by the core's own average-cost rules, a
// price point per option (the pool's marginal price or chance after the trade), and the market's
// volume and fees. A parimutuel pool's settlement adds its fee and dust to the market's fee income
// and sets its positions' claimable amounts (src/core/pools/parimutuel/parimutuel-payout.ts) from
// the holders each store reads by a statement of its own.

import type { PoolSettledEvent, PoolTradeExecutedEvent } from "../../core/pools/events.js";
import { stakePayout } from "../../core/pools/parimutuel/parimutuel-payout.js";
import { recordBuy, recordSell } from "../../core/wallet/positions.js";
import { atomsPerOne, type ClaimableRow, EventRows, type ProjectionReads } from "./event-rows.js";

export function poolTradeRows(event: PoolTradeExecutedEvent, reads: ProjectionReads): EventRows {
  const rows = new EventRows(reads);
  const time = event.atMs;
  const tradeRef = String(event.tradeId);
  const averagePrice = (event.amount * atomsPerOne) / event.shares;
  rows.addTrade([
    event.tradeId,
    "TAKER",
    event.orderId,
    event.userId,
    event.marketId,
    event.outcomeId,
    event.optionId,
    event.side,
    "TRANSFER",
    averagePrice,
    event.shares,
    event.fee,
    time,
  ]);
  const cash = event.side === "BUY" ? -event.amount : event.amount;
  rows.addLedger(event.userId, "TRADE", cash, 0n, tradeRef, time);
  if (event.fee !== 0n) rows.addLedger(event.userId, "FEE", -event.fee, 0n, tradeRef, time);
  if (cash - event.fee !== event.availableDelta)
    throw new Error(`read models: pool trade ${event.tradeId} entries differ from its balance delta`);
  const position = rows.movePosition(
    event.positionId,
    event.userId,
    event.optionId,
    event.marketId,
    event.outcomeId,
  );
  if (event.side === "BUY") recordBuy(position, event.shares, event.amount, event.fee);
  else recordSell(position, event.shares, false, event.amount, event.fee);
  // The traded option's price after the trade, and the other option's as its complement.
  for (const optionId of reads.optionIdsOf(event.outcomeId)) {
    const price = optionId === event.optionId ? event.priceAfter : atomsPerOne - event.priceAfter;
    rows.addPricePoint([optionId, time, event.tradeId, event.marketId, event.outcomeId, price]);
  }
  rows.addMarketTotals(event.marketId, event.amount, event.fee);
  return rows;
}

/** A parimutuel pool's fee and dust to the market's fee income (an AMM's settlement writes nothing). */
export function poolSettledRows(event: PoolSettledEvent, reads: ProjectionReads): EventRows {
  const rows = new EventRows(reads);
  if (event.modelType === "parimutuel") rows.addMarketTotals(event.marketId, 0n, event.fee + event.dust);
  return rows;
}

/** A stake held in the settled outcome, as a store reads it. */
export interface PoolHolder {
  readonly positionId: number;
  readonly optionId: number;
  /** Shares and frozen shares. */
  readonly held: bigint;
}

/** What each holder of a parimutuel pool's outcome claims. */
export function poolClaimables(
  event: PoolSettledEvent,
  holders: readonly PoolHolder[],
  winningOptionId: number | undefined,
): ClaimableRow[] {
  const settlement = { ...event };
  return holders.map((holder) => [
    holder.positionId,
    stakePayout(holder.held, holder.optionId === winningOptionId, settlement),
  ]);
}
