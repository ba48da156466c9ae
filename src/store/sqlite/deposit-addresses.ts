// The issued deposit addresses in the embedded SQLite file (module "wallet", its own migrations).

import type { DepositAddressStore } from "../deposit-addresses.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";

export const walletMigrations: readonly string[] = [
  `CREATE TABLE wallet_deposit_addresses (
     address TEXT PRIMARY KEY,
     user_id INTEGER NOT NULL UNIQUE,
     issued_at_ms INTEGER NOT NULL
   ) STRICT;`,
];

export function createSqliteDepositAddressStore(db: SqliteDatabase): DepositAddressStore {
  applyMigrations(db, "wallet", walletMigrations);
  const insert = db.prepare(
    "INSERT INTO wallet_deposit_addresses (address, user_id, issued_at_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
  );
  const byAddress = db
    .prepare<[string], number>("SELECT user_id FROM wallet_deposit_addresses WHERE address = ?")
    .pluck();
  return {
    remember(userId, address, nowMs) {
      insert.run(address, userId, nowMs);
    },
    userIdOf(address) {
      return byAddress.get(address);
    },
  };
}
