// SQLite adapter of the gateway's nonce port (src/store/gateway-nonces.ts). The nonces of the
// window live in memory (per partner, bounded) for the hot path and in a table so that a restart
// still refuses a request captured before it. Writes are group-committed: the nonces asked in a
// turn of the event loop (or while the previous batch awaited its sync) go in one transaction, and
// each request is answered only after its nonce is on disk, so durability costs one commit per
// batch, not one per request. Rows are keyed by expiry first: every expiry is "now + window", so
// each batch appends to the end of one b-tree (a page or two per commit) where a key of (app_key,
// random nonce) dirtied a page per nonce, scattered over the whole table, and a second index
// besides (docs/performance.md, issue #31 request path: 25–30 against 6–11 µs of CPU a nonce).
// Uniqueness per partner is the in-memory window's job; the table is only read whole, at start, and
// pruned from its front.
//
// A batch commits at synchronous=NORMAL and is made durable by an fdatasync of the WAL on libuv's
// thread pool (wal-sync.ts) before its requests go on: the same durability as a commit at FULL,
// whose fsync would otherwise hold the event loop for every request's turn (11–14% of the main
// thread under bench:orders, docs/performance.md, issue #31: the nonce's commit). Nobody reads the
// table but the next start, so a row visible to this connection before it is durable changes
// nothing; what matters is that no request is let through before its nonce is on disk.
//
// Under concurrency, syncs are spaced: once a batch of more than one nonce has been written, the
// next sync starts no sooner than gatewayNonceSyncIntervalMsMin after it (PostgreSQL's commit_delay
// with commit_siblings, in effect). A sync of the WAL takes 0.15–0.3 ms on a quiet disk, so without
// it a batch went to disk every few requests and each paid a commit, the thread-pool hand-off and
// the kernel's fdatasync (~60 µs of CPU a batch): a signed GET cost ~20 µs more than when the
// fsync held the event loop and so gathered a whole turn (docs/performance.md, i31-get). A lone
// client's batches hold one nonce and never wait.

import { noteStatementOutcome } from "../database-faults.js";
import { MemoryNonceWindow, type NonceOutcome, type NonceStore } from "../gateway-nonces.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { type FdatasyncFunction, sharedWalSync } from "./wal-sync.js";

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
/**
 * After a batch of more than one nonce, the next sync starts at least this long after it began
 * (node's timers round up to whole milliseconds): at most ~1,000 syncs a second under load, each
 * shared by the nonces of that millisecond, for at most this much more latency a request.
 */
export const gatewayNonceSyncIntervalMsMin = 1;

export interface SqliteGatewayNonceOptions {
  readonly windowMs: number;
  readonly entriesPerPartnerMax?: number;
  /** The clock the window is loaded against at start. */
  readonly nowMs?: () => number;
  /** How the WAL is synced after a batch (tests inject one to hold or fail it). */
  readonly fdatasync?: FdatasyncFunction;
  /** gatewayNonceSyncIntervalMsMin unless given (0: a batch is written as soon as it may be). */
  readonly syncIntervalMsMin?: number;
}

/** The SQLite nonce store; close it (waiting for a sync under way) before closing the database. */
export interface SqliteGatewayNonceStore extends NonceStore {
  close(): Promise<void>;
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
): SqliteGatewayNonceStore {
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
  // Without a WAL file of its own (":memory:"), or on a connection set below FULL, the commit is
  // as durable as the connection makes it and the batch goes on at once.
  const walSync = sharedWalSync(db, options.fdatasync === undefined ? {} : { fdatasync: options.fdatasync });
  /** Commits the batch; true when it still needs the WAL synced (it was written at NORMAL). */
  const write = (batch: readonly PendingNonce[], nowMs: number): boolean => {
    // Compiled each time, never a prepared statement: SQLite applies (and reads) this pragma when
    // the statement is compiled, not when it runs. exec, not db.pragma, to set it: 0.5 against 2.5
    // µs a call (no Statement object, no rows).
    const setting = walSync === undefined ? 0 : (db.pragma("synchronous", { simple: true }) as number);
    if (setting < 2) {
      commit(batch, nowMs);
      return false;
    }
    // FULL (2) or EXTRA (3) both sync the WAL at COMMIT; the setting is restored before returning.
    db.exec("PRAGMA synchronous = NORMAL");
    try {
      commit(batch, nowMs);
    } finally {
      db.exec(`PRAGMA synchronous = ${setting}`);
    }
    return true;
  };
  const fail = (batch: readonly PendingNonce[], error: unknown) => {
    for (const entry of batch) {
      window.forget(entry.partnerKey, entry.nonce);
      entry.reject(error);
    }
  };
  // At most one written batch awaits its sync; the nonces asked meanwhile gather in memory and
  // are written together once it is done. Written each turn instead, they waited for the same
  // next sync anyway, but each turn paid a commit of its own: with the event loop no longer held
  // by the sync, turns are short, and a signed GET cost 40–90 µs more CPU (docs/performance.md).
  let awaitingSync = false;
  let pendingSinceMs = 0;
  const syncIntervalMsMin = options.syncIntervalMsMin ?? gatewayNonceSyncIntervalMsMin;
  /** When the last batch was written (performance.now()) and whether it held more than one nonce. */
  let writtenAtMs = Number.NEGATIVE_INFINITY;
  let writtenConcurrently = false;
  let spacing: NodeJS.Timeout | undefined;
  /** Writes the pending batch now, or once the interval since the last concurrent batch is over. */
  const flushWhenDue = (now: boolean) => {
    const waitMs = writtenConcurrently ? writtenAtMs + syncIntervalMsMin - performance.now() : 0;
    if (waitMs > 0) spacing = setTimeout(flush, waitMs);
    else if (now) flush();
    else setImmediate(flush);
  };
  const flush = () => {
    spacing = undefined;
    const batch = pending;
    pending = [];
    writtenAtMs = performance.now();
    writtenConcurrently = false;
    let needsSync: boolean;
    try {
      needsSync = write(batch, pendingSinceMs);
    } catch (error) {
      fail(batch, error);
      return;
    }
    if (!needsSync) {
      for (const entry of batch) entry.resolve("fresh");
      return;
    }
    writtenConcurrently = batch.length > 1;
    // A failed sync leaves the rows written but perhaps not on disk: the requests are refused and
    // their nonces forgotten, so that a retry is not called a replay. Nothing of theirs ran: the
    // fault says so (nothing done, retry), where a failed COMMIT would leave it unknown.
    awaitingSync = true;
    walSync!.afterWrite().then(
      () => {
        for (const entry of batch) entry.resolve("fresh");
        synced();
      },
      (error: unknown) => {
        noteStatementOutcome(error, false);
        fail(batch, error);
        synced();
      },
    );
  };
  const synced = () => {
    awaitingSync = false;
    if (pending.length > 0) flushWhenDue(true);
  };

  return {
    remember(partnerKey, nonce, nowMs) {
      const expiresAtMs = nowMs + options.windowMs;
      const outcome = window.rememberUntil(partnerKey, nonce, nowMs, expiresAtMs);
      if (outcome !== "fresh") return outcome;
      return new Promise<NonceOutcome>((resolve, reject) => {
        if (pending.length === 0) {
          pendingSinceMs = nowMs;
          if (!awaitingSync) flushWhenDue(false);
        }
        pending.push({ partnerKey, nonce, expiresAtMs, resolve, reject });
      });
    },
    async close() {
      // Nonces held back by the spacing are written now rather than after the sync is closed.
      if (spacing !== undefined) {
        clearTimeout(spacing);
        flush();
      }
      await walSync?.close();
    },
  };
}
