// PostgreSQL adapter of the legacy authorize nonces (the store is written once in the port,
// src/store/legacy.ts; SQLite twin: src/store/sqlite/legacy-nonces.ts). Two nodes remembering one
// nonce at once: the primary key lets exactly one of them win. PostgreSQL's own: expired rows are
// deleted in bounded batches, by row address, and the request does not wait for them.

import {
  type LegacyNonceStore,
  legacyNonceMigrations,
  legacyNonceStatements,
  legacyNonceStoreOn,
} from "../legacy.js";
import { sql } from "../sql.js";
import type { PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";
import { postgresStatements, postgresText, preparePostgres } from "./statements.js";

/** Rows one prune statement deletes at most, so it never holds many row locks or runs long. */
export const legacyNoncePruneBatchRowsMax = 5_000;

const prune = preparePostgres(
  "predex-legacy-nonces-prune",
  sql<{ nowMs: number; rowsMax: number }>`DELETE FROM legacy_nonces WHERE ctid = ANY (ARRAY(
     SELECT ctid FROM legacy_nonces WHERE expires_at_ms < ${"nowMs"} LIMIT ${"rowsMax"}))`,
);

export async function openPostgresLegacyNonceStore(pool: PostgresPool): Promise<LegacyNonceStore> {
  await applyPostgresMigrations(pool, "legacy_nonces", legacyNonceMigrations.map(postgresText));
  const pruneExpired = async (nowMs: number): Promise<void> => {
    for (;;) {
      const result = await prune.query(pool, { nowMs, rowsMax: legacyNoncePruneBatchRowsMax });
      if ((result.rowCount ?? 0) < legacyNoncePruneBatchRowsMax) return;
    }
  };
  const statements = postgresStatements(pool, "predex-legacy-nonces", legacyNonceStatements);
  return legacyNonceStoreOn(statements.remember, (nowMs) => {
    // Not awaited: the request does not wait for housekeeping, and a failed prune is retried at the
    // next interval (expired rows are harmless meanwhile: the remember statement takes them over).
    pruneExpired(nowMs).catch(() => {});
  });
}
