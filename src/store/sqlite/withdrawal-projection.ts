// Withdrawals in the SQLite read models (part of the exchange projector, inside the same commit):
// one row per withdrawal with its current status, and the ledger entries that move its money. The
// core forgets a withdrawal once it completes or is released; this table keeps it for the history.

import type {
  WithdrawalApprovedEvent,
  WithdrawalCompletedEvent,
  WithdrawalReleasedEvent,
  WithdrawalRequestedEvent,
} from "../../core/events.js";
import type { SqliteDatabase } from "./database.js";
import type { LedgerWriter } from "./lifecycle-projection.js";

export type WithdrawalEvent =
  | WithdrawalRequestedEvent
  | WithdrawalApprovedEvent
  | WithdrawalReleasedEvent
  | WithdrawalCompletedEvent;

export type WithdrawalProjection = (event: WithdrawalEvent) => void;

export function createWithdrawalProjection(db: SqliteDatabase, ledger: LedgerWriter): WithdrawalProjection {
  const statements = {
    insert: db.prepare(
      `INSERT INTO exchange_withdrawals (withdrawal_id, user_id, amount, fee, address, status,
         requested_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, 'PENDING', ?, ?)`,
    ),
    setStatus: db.prepare(
      "UPDATE exchange_withdrawals SET status = ?, updated_at_ms = ? WHERE withdrawal_id = ?",
    ),
  };

  return (event) => {
    const refId = String(event.withdrawalId);
    switch (event.type) {
      case "WithdrawalRequested": {
        const held = event.amount + event.fee;
        statements.insert.run(
          event.withdrawalId,
          event.userId,
          event.amount,
          event.fee,
          event.address,
          event.atMs,
          event.atMs,
        );
        ledger(event.userId, "WITHDRAWAL_FREEZE", -held, held, refId, event.atMs);
        break;
      }
      case "WithdrawalApproved":
        statements.setStatus.run("APPROVED", event.atMs, event.withdrawalId);
        break;
      case "WithdrawalReleased": {
        const held = event.amount + event.fee;
        statements.setStatus.run(event.reason, event.atMs, event.withdrawalId);
        ledger(event.userId, "WITHDRAWAL_UNFREEZE", held, -held, refId, event.atMs);
        break;
      }
      case "WithdrawalCompleted": {
        // Released, then debited: the amounts of a user's entries add up to the available balance.
        const held = event.amount + event.fee;
        statements.setStatus.run("COMPLETED", event.atMs, event.withdrawalId);
        ledger(event.userId, "WITHDRAWAL_UNFREEZE", held, -held, refId, event.atMs);
        ledger(event.userId, "WITHDRAWAL", -event.amount, 0n, refId, event.atMs);
        if (event.fee !== 0n) ledger(event.userId, "WITHDRAWAL_FEE", -event.fee, 0n, refId, event.atMs);
        break;
      }
      default: {
        const unreachable: never = event;
        throw new Error(`read models: unknown withdrawal event ${JSON.stringify(unreachable)}`);
      }
    }
  };
}
