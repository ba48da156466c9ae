// Exclusive markets. A conversion is one CONVERT ledger entry (its USDT, possibly 0) and its
// positions moved by the core's own rules: the burned No shares sold at the event's proceeds, the
// new Yes shares bought at the cost they carry. An exclusive market's finish adds its dust to the
// market's fee income and, when it was voided, sets what each position claims by the core's void
// payout (a Yes share 1/n, a No share (n − 1)/n: src/core/exclusive/payout.ts), from the holders
// each store reads by a statement of its own.

import type { ExclusiveMarketFinishedEvent, PositionsConvertedEvent } from "../../core/exclusive/events.js";
import { exclusiveVoidPayoutAtoms } from "../../core/exclusive/payout.js";
import type { OptionIndex } from "../../core/option-index.js";
import { recordBuy, recordSell } from "../../core/wallet/positions.js";
import { type ClaimableRow, EventRows, type ProjectionReads } from "./event-rows.js";

export function positionsConvertedRows(event: PositionsConvertedEvent, reads: ProjectionReads): EventRows {
  const rows = new EventRows(reads);
  rows.addLedger(event.userId, "CONVERT", event.collateral, 0n, event.transactionId, event.atMs);
  for (const leg of event.burned) {
    const position = rows.movePosition(
      leg.positionId,
      event.userId,
      leg.optionId,
      event.marketId,
      leg.outcomeId,
    );
    recordSell(position, event.shares, false, leg.proceeds, 0n);
  }
  for (const leg of event.minted) {
    const position = rows.movePosition(
      leg.positionId,
      event.userId,
      leg.optionId,
      event.marketId,
      leg.outcomeId,
    );
    recordBuy(position, event.shares, leg.cost, 0n);
  }
  return rows;
}

export function exclusiveMarketFinishedRows(
  event: ExclusiveMarketFinishedEvent,
  reads: ProjectionReads,
): EventRows {
  const rows = new EventRows(reads);
  if (event.dust !== 0n) rows.addMarketTotals(event.marketId, 0n, event.dust);
  return rows;
}

/** A position of a voided exclusive market, as a store reads it. */
export interface ExclusiveHolder {
  readonly positionId: number;
  readonly optionIndex: OptionIndex;
  /** Shares and frozen shares. */
  readonly held: bigint;
}

/** What each position of a voided exclusive market claims. */
export function exclusiveVoidClaimables(
  event: ExclusiveMarketFinishedEvent,
  holders: readonly ExclusiveHolder[],
): ClaimableRow[] {
  return holders.map((holder) => [
    holder.positionId,
    exclusiveVoidPayoutAtoms(holder.held, holder.optionIndex, event.outcomeCount),
  ]);
}
