// The issued deposit addresses in the embedded SQLite file. Module "wallet-hd" holds the addresses
// derived from an account key (deposit-addresses.ts); module "wallet"'s old table keeps the HMAC
// addresses issued before, as a record that still maps them to their users.

import type { DepositAddressStore, IssuedDepositAddress } from "../deposit-addresses.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";

/** The first addresses, from before the account key: never shown again, still looked up. */
export const walletMigrations: readonly string[] = [
  `CREATE TABLE wallet_deposit_addresses (
     address TEXT PRIMARY KEY,
     user_id INTEGER NOT NULL UNIQUE,
     issued_at_ms INTEGER NOT NULL
   ) STRICT;`,
];

export const hdWalletMigrations: readonly string[] = [
  `CREATE TABLE wallet_hd_deposit_addresses (
     address TEXT PRIMARY KEY,
     user_id INTEGER NOT NULL,
     key_id TEXT NOT NULL,
     issued_at_ms INTEGER NOT NULL,
     UNIQUE (key_id, user_id)
   ) STRICT;`,
];

export function createSqliteDepositAddressStore(db: SqliteDatabase): DepositAddressStore {
  applyMigrations(db, "wallet", walletMigrations);
  applyMigrations(db, "wallet-hd", hdWalletMigrations);
  const insert = db.prepare(
    "INSERT INTO wallet_hd_deposit_addresses (address, user_id, key_id, issued_at_ms) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
  );
  const byUser = db
    .prepare<[number, string], string>(
      "SELECT address FROM wallet_hd_deposit_addresses WHERE user_id = ? AND key_id = ?",
    )
    .pluck();
  const byAddress = db
    .prepare<[string], number>("SELECT user_id FROM wallet_hd_deposit_addresses WHERE address = ?")
    .pluck();
  const byRetiredAddress = db
    .prepare<[string], number>("SELECT user_id FROM wallet_deposit_addresses WHERE address = ?")
    .pluck();
  const underKey = db.prepare<[string], { address: string; userId: number }>(
    "SELECT address, user_id AS userId FROM wallet_hd_deposit_addresses WHERE key_id = ? ORDER BY user_id",
  );
  const countUnderKey = db
    .prepare<[string], number>("SELECT count(*) FROM wallet_hd_deposit_addresses WHERE key_id = ?")
    .pluck();
  return {
    async remember(userId, address, keyId, nowMs) {
      insert.run(address, userId, keyId, nowMs);
    },
    async addressOf(userId, keyId) {
      return byUser.get(userId, keyId);
    },
    async userIdOf(address) {
      return byAddress.get(address) ?? byRetiredAddress.get(address);
    },
    async issuedUnder(keyId): Promise<IssuedDepositAddress[]> {
      return underKey.all(keyId);
    },
    async countIssuedUnder(keyId) {
      return countUnderKey.get(keyId) ?? 0;
    },
  };
}
