// The market lifecycle in the SQLite read models (part of the exchange projector, inside the same
// commit): market status and resolution columns, proposed and final winners per option, the
// challenge and its bond, position status and claimable amounts (the ledger entries of bonds and
// claims: src/store/exchange-projection/lifecycle.ts). Payouts follow src/core/settlement.ts: a winning share pays 1, a losing one 0, every
// share of a void market 0.5 (shares are whole lots, so halving is exact).

import type { LifecycleEvent, PositionClaimedEvent } from "../../core/events.js";
import type { SqliteDatabase } from "./database.js";

export type LifecycleProjection = (event: LifecycleEvent | PositionClaimedEvent) => void;

export function createLifecycleProjection(db: SqliteDatabase): LifecycleProjection {
  const statements = {
    resolved: db.prepare(
      `UPDATE markets SET status = 'resolving', resolved_at_ms = ?, challenge_window_ends_at_ms = ?,
         challenge_bond = ? WHERE market_id = ?`,
    ),
    clearProposed: db.prepare("UPDATE market_options SET proposed_win = 0 WHERE outcome_id = ?"),
    markProposed: db.prepare("UPDATE market_options SET proposed_win = 1 WHERE option_id = ?"),
    challenged: db.prepare("UPDATE markets SET challenged = 1 WHERE market_id = ?"),
    insertChallenge: db.prepare(
      "INSERT INTO market_challenges (market_id, user_id, bond, reason, challenged_at_ms) VALUES (?, ?, ?, ?, ?)",
    ),
    bondOutcome: db.prepare(
      "UPDATE market_challenges SET bond_outcome = ?, bond_outcome_at_ms = ? WHERE market_id = ?",
    ),
    settled: db.prepare("UPDATE markets SET status = 'settled', settled_at_ms = ? WHERE market_id = ?"),
    clearWinners: db.prepare("UPDATE market_options SET is_win = 0 WHERE market_id = ?"),
    markWinner: db.prepare("UPDATE market_options SET is_win = 1 WHERE option_id = ?"),
    settlePositions: db.prepare(
      `UPDATE exchange_positions SET status = 'settled',
         claimable = CASE WHEN option_id IN (SELECT option_id FROM market_options WHERE market_id = ? AND is_win = 1)
           THEN shares + frozen_shares ELSE 0 END
       WHERE market_id = ?`,
    ),
    voided: db.prepare("UPDATE markets SET status = 'void', voided_at_ms = ? WHERE market_id = ?"),
    voidPositions: db.prepare(
      "UPDATE exchange_positions SET status = 'settled', claimable = (shares + frozen_shares) / 2 WHERE market_id = ?",
    ),
    claimed: db.prepare(
      `UPDATE exchange_positions SET status = 'claimed', claimable = 0, claimed_amount = ?, claimed_at_ms = ?,
         claim_transaction_id = ? WHERE position_id = ?`,
    ),
  };

  return (event) => {
    switch (event.type) {
      case "MarketResolved":
        statements.resolved.run(event.atMs, event.windowEndsAtMs, event.challengeBond, event.marketId);
        for (const winner of event.winners) {
          statements.clearProposed.run(winner.outcomeId);
          statements.markProposed.run(winner.optionId);
        }
        break;
      case "ResolutionChallenged":
        statements.challenged.run(event.marketId);
        statements.insertChallenge.run(event.marketId, event.userId, event.bond, event.reason, event.atMs);
        break;
      case "ChallengeBondReturned":
        statements.bondOutcome.run("RETURNED", event.atMs, event.marketId);
        break;
      case "ChallengeBondForfeited":
        statements.bondOutcome.run("FORFEITED", event.atMs, event.marketId);
        break;
      case "MarketSettled":
        statements.settled.run(event.atMs, event.marketId);
        statements.clearWinners.run(event.marketId);
        for (const winner of event.winners) statements.markWinner.run(winner.optionId);
        statements.settlePositions.run(event.marketId, event.marketId);
        break;
      case "MarketVoided":
        statements.voided.run(event.atMs, event.marketId);
        statements.voidPositions.run(event.marketId);
        break;
      case "PositionClaimed":
        statements.claimed.run(event.amount, event.atMs, event.transactionId, event.positionId);
        break;
      default: {
        const unreachable: never = event;
        throw new Error(`read models: unknown lifecycle event ${JSON.stringify(unreachable)}`);
      }
    }
  };
}
