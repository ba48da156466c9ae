// Withdrawals: one row per withdrawal with its current status, and the ledger entries that move its
// money. The core forgets a withdrawal once it completes or is released; the table keeps it.

import type {
  WithdrawalApprovedEvent,
  WithdrawalCompletedEvent,
  WithdrawalReleasedEvent,
  WithdrawalRequestedEvent,
} from "../../core/events.js";
import { EventRows, type ProjectionReads } from "./event-rows.js";

export type WithdrawalEvent =
  | WithdrawalRequestedEvent
  | WithdrawalApprovedEvent
  | WithdrawalReleasedEvent
  | WithdrawalCompletedEvent;

export function withdrawalRows(event: WithdrawalEvent, reads: ProjectionReads): EventRows {
  const rows = new EventRows(reads);
  const refId = String(event.withdrawalId);
  switch (event.type) {
    case "WithdrawalRequested": {
      const held = event.amount + event.fee;
      rows.newWithdrawal = [
        event.withdrawalId,
        event.userId,
        event.amount,
        event.fee,
        event.address,
        event.atMs,
      ];
      rows.addLedger(event.userId, "WITHDRAWAL_FREEZE", -held, held, refId, event.atMs);
      break;
    }
    case "WithdrawalApproved":
      rows.withdrawalStatus = ["APPROVED", event.atMs, event.withdrawalId];
      break;
    case "WithdrawalReleased": {
      const held = event.amount + event.fee;
      rows.withdrawalStatus = [event.reason, event.atMs, event.withdrawalId];
      rows.addLedger(event.userId, "WITHDRAWAL_UNFREEZE", held, -held, refId, event.atMs);
      break;
    }
    case "WithdrawalCompleted": {
      // Released, then debited: the amounts of a user's entries add up to the available balance.
      const held = event.amount + event.fee;
      rows.withdrawalStatus = ["COMPLETED", event.atMs, event.withdrawalId];
      rows.addLedger(event.userId, "WITHDRAWAL_UNFREEZE", held, -held, refId, event.atMs);
      rows.addLedger(event.userId, "WITHDRAWAL", -event.amount, 0n, refId, event.atMs);
      if (event.fee !== 0n) rows.addLedger(event.userId, "WITHDRAWAL_FEE", -event.fee, 0n, refId, event.atMs);
      break;
    }
    default: {
      const unreachable: never = event;
      throw new Error(`read models: unknown withdrawal event ${JSON.stringify(unreachable)}`);
    }
  }
  return rows;
}
