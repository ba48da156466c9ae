// SQLite adapter of the gateway's nonce port (src/store/gateway-nonces.ts). The nonces of the
// window live in memory (per partner, bounded) for the hot path and in a table so that a restart
// still refuses a request captured before it. Writes are group-committed: the nonces of one turn
// of the event loop go in one transaction, and each request is answered only after its nonce is
// on disk, so durability costs one commit per batch, not one per request.

import { MemoryNonceWindow, type NonceOutcome, type NonceStore } from "../gateway-nonces.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";

const gatewayNonceMigrations = [
  `CREATE TABLE gateway_nonces (
     app_key TEXT NOT NULL,
     nonce TEXT NOT NULL,
     expires_at_ms INTEGER NOT NULL,
     PRIMARY KEY (app_key, nonce)
   ) WITHOUT ROWID;
   CREATE INDEX gateway_nonces_by_expiry ON gateway_nonces (expires_at_ms);`,
];

/** Expired rows are deleted at most this often, in one statement, off the per-request path. */
export const gatewayNoncePruneIntervalMs = 60_000;

export interface SqliteGatewayNonceOptions {
  readonly windowMs: number;
  readonly entriesPerPartnerMax?: number;
  /** The clock the window is loaded against at start. */
  readonly nowMs?: () => number;
}

interface PendingNonce {
  readonly partnerKey: string;
  readonly nonce: string;
  readonly expiresAtMs: number;
  readonly resolve: (outcome: NonceOutcome) => void;
  readonly reject: (error: unknown) => void;
}

export function createSqliteGatewayNonceStore(
  db: SqliteDatabase,
  options: SqliteGatewayNonceOptions,
): NonceStore {
  applyMigrations(db, "gateway_nonces", gatewayNonceMigrations);
  const window = new MemoryNonceWindow(options.windowMs, options.entriesPerPartnerMax);
  const startMs = (options.nowMs ?? Date.now)();
  const live = db
    .prepare<[number], { app_key: string; nonce: string; expires_at_ms: number }>(
      "SELECT app_key, nonce, expires_at_ms FROM gateway_nonces WHERE expires_at_ms > ? ORDER BY expires_at_ms",
    )
    .all(startMs);
  for (const row of live) window.rememberUntil(row.app_key, row.nonce, startMs, row.expires_at_ms);

  const insert = db.prepare(
    "INSERT OR REPLACE INTO gateway_nonces (app_key, nonce, expires_at_ms) VALUES (?, ?, ?)",
  );
  const prune = db.prepare("DELETE FROM gateway_nonces WHERE expires_at_ms <= ?");
  let prunedAtMs = 0;
  let pending: PendingNonce[] = [];
  const commit = db.transaction((batch: readonly PendingNonce[], nowMs: number) => {
    if (nowMs - prunedAtMs >= gatewayNoncePruneIntervalMs) {
      prune.run(nowMs);
      prunedAtMs = nowMs;
    }
    for (const entry of batch) insert.run(entry.partnerKey, entry.nonce, entry.expiresAtMs);
  });
  const flush = (nowMs: number) => {
    const batch = pending;
    pending = [];
    try {
      commit(batch, nowMs);
    } catch (error) {
      for (const entry of batch) {
        window.forget(entry.partnerKey, entry.nonce);
        entry.reject(error);
      }
      return;
    }
    for (const entry of batch) entry.resolve("fresh");
  };

  return {
    remember(partnerKey, nonce, nowMs) {
      const expiresAtMs = nowMs + options.windowMs;
      const outcome = window.rememberUntil(partnerKey, nonce, nowMs, expiresAtMs);
      if (outcome !== "fresh") return outcome;
      return new Promise<NonceOutcome>((resolve, reject) => {
        if (pending.length === 0) setImmediate(() => flush(nowMs));
        pending.push({ partnerKey, nonce, expiresAtMs, resolve, reject });
      });
    },
  };
}
