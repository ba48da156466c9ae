// SQLite adapter of the legacy authorize nonces. A nonce is a primary key per partner, so "seen
// before" is one INSERT OR IGNORE: atomic, and durable across restarts for the whole window.

import type { LegacyNonceStore } from "../legacy.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";

const legacyNonceMigrations = [
  `CREATE TABLE legacy_nonces (
     partner_id INTEGER NOT NULL,
     nonce TEXT NOT NULL,
     expires_at_ms INTEGER NOT NULL,
     PRIMARY KEY (partner_id, nonce)
   ) WITHOUT ROWID;
   CREATE INDEX legacy_nonces_by_expiry ON legacy_nonces (expires_at_ms);`,
];

/** Expired nonces are deleted at most this often, in one statement, off the per-request path. */
export const noncePruneIntervalMs = 60_000;

export function createSqliteLegacyNonceStore(db: SqliteDatabase): LegacyNonceStore {
  applyMigrations(db, "legacy_nonces", legacyNonceMigrations);
  const insert = db.prepare(
    "INSERT OR IGNORE INTO legacy_nonces (partner_id, nonce, expires_at_ms) VALUES (?, ?, ?)",
  );
  const refreshExpired = db.prepare(
    "UPDATE legacy_nonces SET expires_at_ms = ? WHERE partner_id = ? AND nonce = ? AND expires_at_ms <= ?",
  );
  const prune = db.prepare("DELETE FROM legacy_nonces WHERE expires_at_ms <= ?");
  let prunedAtMs = 0;
  return {
    async remember(partnerId, nonce, nowMs, expiresAtMs) {
      if (nowMs - prunedAtMs >= noncePruneIntervalMs) {
        prune.run(nowMs);
        prunedAtMs = nowMs;
      }
      if (insert.run(partnerId, nonce, expiresAtMs).changes === 1) return true;
      // A row that outlived its window but was not pruned yet no longer counts as seen.
      return refreshExpired.run(expiresAtMs, partnerId, nonce, nowMs).changes === 1;
    },
  };
}
