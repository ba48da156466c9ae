// The market lifecycle's money: a challenge's bond frozen, returned or forfeited to the market's fee
// income, and a claim's payout. What the lifecycle does to markets, options and positions (status,
// winners, claimable amounts: set-based UPDATEs over a market's positions) each store writes with
// statements of its own (src/store/sqlite/lifecycle-projection.ts, the PostgreSQL projector).

import type { LifecycleEvent, PositionClaimedEvent } from "../../core/events.js";
import { EventRows, type ProjectionReads } from "./event-rows.js";

export function lifecycleRows(
  event: LifecycleEvent | PositionClaimedEvent,
  reads: ProjectionReads,
): EventRows {
  const rows = new EventRows(reads);
  switch (event.type) {
    case "ResolutionChallenged":
      rows.addLedger(
        event.userId,
        "CHALLENGE_BOND",
        -event.bond,
        event.bond,
        String(event.marketId),
        event.atMs,
      );
      break;
    case "ChallengeBondReturned":
      rows.addLedger(
        event.userId,
        "BOND_RETURN",
        event.amount,
        -event.amount,
        String(event.marketId),
        event.atMs,
      );
      break;
    case "ChallengeBondForfeited":
      rows.addMarketTotals(event.marketId, 0n, event.amount);
      rows.addLedger(event.userId, "BOND_FORFEIT", 0n, -event.amount, String(event.marketId), event.atMs);
      break;
    case "PositionClaimed":
      rows.addLedger(event.userId, "CLAIM", event.amount, 0n, event.transactionId, event.atMs);
      break;
    case "MarketResolved":
    case "MarketSettled":
    case "MarketVoided":
      break; // no money moves
    default: {
      const unreachable: never = event;
      throw new Error(`read models: unknown lifecycle event ${JSON.stringify(unreachable)}`);
    }
  }
  return rows;
}
