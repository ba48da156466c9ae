// Deposits credited to a user: the DEPOSIT ledger entry, then the deposit's own row, keyed by its
// transaction hash.

import type { DepositCreditedEvent } from "../../../core/events.js";
import type { SqliteDatabase } from "../database.js";
import type { LedgerWriter } from "../lifecycle-projection.js";

export type DepositProjection = (event: DepositCreditedEvent) => void;

export function createDepositProjection(db: SqliteDatabase, ledger: LedgerWriter): DepositProjection {
  const insertDeposit = db.prepare(
    "INSERT INTO exchange_deposits (tx_hash, user_id, amount, credited_at_ms) VALUES (?, ?, ?, ?)",
  );
  return (event) => {
    ledger(event.userId, "DEPOSIT", event.amount, 0n, event.txHash, event.atMs);
    insertDeposit.run(event.txHash, event.userId, event.amount, event.atMs);
  };
}
