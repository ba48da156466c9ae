// PostgreSQL adapter of the legacy authorize nonces (port: LegacyNonceStore in src/store/legacy.ts;
// SQLite twin: src/store/sqlite/legacy-nonces.ts). "Seen before" is one statement: the INSERT wins,
// or the conflicting row had expired and is taken over; a live row makes it return nothing. Two
// nodes remembering one nonce at once: the primary key lets exactly one of them win.

import type { LegacyNonceStore } from "../legacy.js";
import type { PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";

export const legacyNonceMigrations: readonly string[] = [
  `CREATE TABLE legacy_nonces (
     partner_id bigint NOT NULL,
     nonce text NOT NULL,
     expires_at_ms bigint NOT NULL,
     PRIMARY KEY (partner_id, nonce)
   );
   CREATE INDEX legacy_nonces_by_expiry ON legacy_nonces (expires_at_ms);`,
];

/** Expired nonces are deleted at most this often per node, off the per-request path. */
export const postgresLegacyNoncePruneIntervalMs = 60_000;
/** Rows one prune statement deletes at most, so it never holds many row locks or runs long. */
export const legacyNoncePruneBatchRowsMax = 5_000;

const statements = {
  remember: {
    name: "predex-legacy-nonces-remember",
    text: `INSERT INTO legacy_nonces AS nonces (partner_id, nonce, expires_at_ms) VALUES ($1, $2, $3)
           ON CONFLICT (partner_id, nonce) DO UPDATE SET expires_at_ms = EXCLUDED.expires_at_ms
             WHERE nonces.expires_at_ms <= $4
           RETURNING 1`,
  },
  prune: {
    name: "predex-legacy-nonces-prune",
    text: `DELETE FROM legacy_nonces WHERE ctid = ANY (ARRAY(
             SELECT ctid FROM legacy_nonces WHERE expires_at_ms <= $1 LIMIT $2))`,
  },
} as const;

export async function openPostgresLegacyNonceStore(pool: PostgresPool): Promise<LegacyNonceStore> {
  await applyPostgresMigrations(pool, "legacy_nonces", legacyNonceMigrations);
  let prunedAtMs = 0;
  const prune = async (nowMs: number): Promise<void> => {
    for (;;) {
      const result = await pool.query({ ...statements.prune, values: [nowMs, legacyNoncePruneBatchRowsMax] });
      if ((result.rowCount ?? 0) < legacyNoncePruneBatchRowsMax) return;
    }
  };
  return {
    async remember(partnerId, nonce, nowMs, expiresAtMs) {
      if (nowMs - prunedAtMs >= postgresLegacyNoncePruneIntervalMs) {
        prunedAtMs = nowMs;
        // Not awaited: the request does not wait for housekeeping, and a failed prune is retried
        // at the next interval (expired rows are harmless meanwhile: the statement above ignores them).
        prune(nowMs).catch(() => {});
      }
      const result = await pool.query({
        ...statements.remember,
        values: [partnerId, nonce, expiresAtMs, nowMs],
      });
      return result.rowCount === 1;
    },
  };
}
