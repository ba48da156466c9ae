// Money in and out of a user's balance that is no trade: a deposit credited (its DEPOSIT entry and
// the deposit's own row, keyed by its transaction hash).

import type { DepositCreditedEvent } from "../../core/events.js";
import { EventRows, type ProjectionReads } from "./event-rows.js";

export function depositRows(event: DepositCreditedEvent, reads: ProjectionReads): EventRows {
  const rows = new EventRows(reads);
  rows.addLedger(event.userId, "DEPOSIT", event.amount, 0n, event.txHash, event.atMs);
  rows.deposit = [event.txHash, event.userId, event.amount, event.atMs];
  return rows;
}
