// SQLite adapter of the gateway's nonce port (src/store/gateway-nonces.ts). The nonces of the
// window live in memory (per partner, bounded) for the hot path and in a table so that a restart
// still refuses a request captured before it. Writes are group-committed: the nonces of one turn
// of the event loop go in one transaction, and each request is answered only after its nonce is
// on disk, so durability costs one commit per batch, not one per request. Rows are keyed by expiry
// first: every expiry is "now + window", so each batch appends to the end of one b-tree (a page or
// two per commit) where a key of (app_key, random nonce) dirtied a page per nonce, scattered over
// the whole table, and a second index besides (docs/performance.md, issue #31 request path: 25–30
// against 6–11 µs of CPU a nonce). Uniqueness per partner is the in-memory window's job; the table
// is only read whole, at start, and pruned from its front.

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
  `CREATE TABLE gateway_nonces_by_expiry_first (
     expires_at_ms INTEGER NOT NULL,
     app_key TEXT NOT NULL,
     nonce TEXT NOT NULL,
     PRIMARY KEY (expires_at_ms, app_key, nonce)
   ) WITHOUT ROWID;
   INSERT INTO gateway_nonces_by_expiry_first (expires_at_ms, app_key, nonce)
     SELECT expires_at_ms, app_key, nonce FROM gateway_nonces;
   DROP TABLE gateway_nonces;
   ALTER TABLE gateway_nonces_by_expiry_first RENAME TO gateway_nonces;`,
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

  // A nonce taken again after its expiry gets a row of its own; the old one is pruned (and is
  // skipped at start, being expired). OR IGNORE: the same nonce in the same millisecond is one fact.
  const insert = db.prepare(
    "INSERT OR IGNORE INTO gateway_nonces (expires_at_ms, app_key, nonce) VALUES (?, ?, ?)",
  );
  const prune = db.prepare("DELETE FROM gateway_nonces WHERE expires_at_ms <= ?");
  let prunedAtMs = 0;
  let pending: PendingNonce[] = [];
  const commit = db.transaction((batch: readonly PendingNonce[], nowMs: number) => {
    if (nowMs - prunedAtMs >= gatewayNoncePruneIntervalMs) {
      prune.run(nowMs);
      prunedAtMs = nowMs;
    }
    for (const entry of batch) insert.run(entry.expiresAtMs, entry.partnerKey, entry.nonce);
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
