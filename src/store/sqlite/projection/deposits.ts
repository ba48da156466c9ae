// Deposits credited to a user (src/store/exchange-projection/ledger.ts computes the rows): the
// deposit's own row, keyed by its transaction hash.

import type { DepositRow } from "../../exchange-projection/event-rows.js";
import type { SqliteDatabase } from "../database.js";

export function createDepositWriter(db: SqliteDatabase): (row: DepositRow) => void {
  const insertDeposit = db.prepare<DepositRow>(
    "INSERT INTO exchange_deposits (tx_hash, user_id, amount, credited_at_ms) VALUES (?, ?, ?, ?)",
  );
  return (row) => void insertDeposit.run(...row);
}
