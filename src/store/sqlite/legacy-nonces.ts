// SQLite adapter of the legacy authorize nonces (the store is written once in the port,
// src/store/legacy.ts). SQLite's own: expired rows go in one DELETE, before the request's statement.

import {
  type LegacyNonceStore,
  legacyNonceMigrations,
  legacyNonceStatements,
  legacyNonceStoreOn,
} from "../legacy.js";
import { sql } from "../sql.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { prepareSqlite, sqliteStatements, sqliteText } from "./statements.js";

const prune = sql<{ nowMs: number }>`DELETE FROM legacy_nonces WHERE expires_at_ms < ${"nowMs"}`;

export function createSqliteLegacyNonceStore(db: SqliteDatabase): LegacyNonceStore {
  applyMigrations(db, "legacy_nonces", legacyNonceMigrations.map(sqliteText));
  const pruneExpired = prepareSqlite(db, prune);
  return legacyNonceStoreOn(sqliteStatements(db, legacyNonceStatements).remember, (nowMs) => {
    pruneExpired.run({ nowMs });
  });
}
