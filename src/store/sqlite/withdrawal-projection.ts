// Withdrawals in the SQLite read models (src/store/exchange-projection/withdrawals.ts computes the
// rows): the withdrawal's own row, inserted or its status changed as the event comes.

import type { EventRows } from "../exchange-projection/event-rows.js";
import type { SqliteDatabase } from "./database.js";

export function createWithdrawalWriter(db: SqliteDatabase): (rows: EventRows) => void {
  const statements = {
    insert: db.prepare(
      `INSERT INTO exchange_withdrawals (withdrawal_id, user_id, amount, fee, address, status,
         requested_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, 'PENDING', ?, ?)`,
    ),
    setStatus: db.prepare(
      "UPDATE exchange_withdrawals SET status = ?, updated_at_ms = ? WHERE withdrawal_id = ?",
    ),
  };
  return (rows) => {
    if (rows.newWithdrawal !== undefined) statements.insert.run(...rows.newWithdrawal, rows.newWithdrawal[5]);
    if (rows.withdrawalStatus !== undefined) statements.setStatus.run(...rows.withdrawalStatus);
  };
}
