// The USDT ledger: every movement of a user's balance is one exchange_ledger row carrying the
// balance after it, moved on the batch's running balance (balances.ts) rather than the stored row.

import type { SqliteDatabase } from "../database.js";
import type { LedgerWriter } from "../lifecycle-projection.js";
import type { BatchBalances } from "./balances.js";

export function createLedgerWriter(db: SqliteDatabase, balanceOf: BatchBalances["balanceOf"]): LedgerWriter {
  const insertLedger = db.prepare(
    `INSERT INTO exchange_ledger (user_id, type, amount, frozen_delta, available_after, frozen_after, ref_id, time_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return (userId, type, amount, frozenDelta, refId, timeMs) => {
    const balance = balanceOf(userId);
    balance.available += amount;
    balance.frozen += frozenDelta;
    if (balance.available < 0n || balance.frozen < 0n) {
      throw new Error(`read models: negative balance for user ${userId} after ${type} ${refId}`);
    }
    insertLedger.run(userId, type, amount, frozenDelta, balance.available, balance.frozen, refId, timeMs);
  };
}
