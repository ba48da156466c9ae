// The legacy merchant bills' queries on the SQLite file; written once in the port (src/store/legacy-bills.ts).

import { billQueriesOn, billStatements, type LegacyBillQueries } from "../legacy-bills.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { sqliteStatements } from "./statements.js";

export type { LegacyBillQueries };

// The unclaimed-pool sum reads positions by market; the index keeps it off a full scan (on
// PostgreSQL the index is part of the exchange schema).
const billMigrations = [
  "CREATE INDEX IF NOT EXISTS legacy_bills_positions_by_market ON exchange_positions (market_id, status);",
];

export function createSqliteLegacyBillQueries(db: SqliteDatabase): LegacyBillQueries {
  applyMigrations(db, "legacy_bills", billMigrations);
  return billQueriesOn(sqliteStatements(db, billStatements, { safeIntegers: true }));
}
