// The issued deposit addresses in the embedded SQLite file. Module "wallet-hd" holds the addresses
// derived from an account key (deposit-addresses.ts); module "wallet"'s old table keeps the HMAC
// addresses issued before, as a record that still maps them to their users. The store itself is
// written once in the port.

import {
  type DepositAddressStore,
  depositAddressStatements,
  depositAddressStoreOn,
} from "../deposit-addresses.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { sqliteStatements } from "./statements.js";

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
  return depositAddressStoreOn(sqliteStatements(db, depositAddressStatements));
}
