// The accounts domain on the SQLite adapter, with a read model projected in the commit: the shape a
// real read model (orders, trades, balances) takes. Shared by the SQLite engine tests and the
// SIGKILL child process.

import type { Projector } from "../../src/engine/store.js";
import { applyMigrations, openDatabase, type SqliteDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import type { AccountCommand, AccountEvent } from "./accounts-domain.js";

const balanceMigrations = [
  "CREATE TABLE test_account_balances (account_id TEXT PRIMARY KEY, available INTEGER NOT NULL, frozen INTEGER NOT NULL) STRICT",
];

/** Keeps test_account_balances equal to the accounts in state, one upsert per touched account. */
export function balancesProjector(
  db: SqliteDatabase,
): Projector<SqliteDatabase, AccountCommand, AccountEvent> {
  applyMigrations(db, "test-accounts", balanceMigrations);
  const open = db.prepare(
    "INSERT INTO test_account_balances (account_id, available, frozen) VALUES (?, 0, 0)",
  );
  const add = db.prepare(
    "UPDATE test_account_balances SET available = available + ?, frozen = frozen + ? WHERE account_id = ?",
  );
  return (_db, entries) => {
    for (const entry of entries) {
      for (const event of entry.events) {
        switch (event.type) {
          case "opened":
            open.run(event.accountId);
            break;
          case "deposited":
            add.run(event.amount, 0n, event.accountId);
            break;
          case "transferred":
            add.run(-event.amount, 0n, event.from);
            add.run(event.amount, 0n, event.to);
            break;
          case "held":
            add.run(-event.amount, event.amount, event.accountId);
            break;
          case "released":
            add.run(event.amount, -event.amount, event.accountId);
            break;
          default: {
            const unreachable: never = event;
            return unreachable;
          }
        }
      }
    }
  };
}

export function readBalances(db: SqliteDatabase): Map<string, [bigint, bigint]> {
  const rows = db
    .prepare<[], { account_id: string; available: bigint; frozen: bigint }>(
      "SELECT account_id, available, frozen FROM test_account_balances",
    )
    .safeIntegers(true)
    .all();
  return new Map(rows.map((row) => [row.account_id, [row.available, row.frozen]]));
}

export function openAccountsSqlite(path: string): {
  db: SqliteDatabase;
  store: SqliteEngineStore<AccountCommand, AccountEvent>;
  projectors: Projector<SqliteDatabase, AccountCommand, AccountEvent>[];
} {
  const db = openDatabase({ path });
  const store = new SqliteEngineStore<AccountCommand, AccountEvent>(db);
  return { db, store, projectors: [balancesProjector(db)] };
}
