// SQLite adapter of the gateway's nonce port (src/store/gateway-nonces.ts; the batching it shares
// with PostgreSQL's: gateway-nonces-batching.ts). The nonces of the window live in memory (per
// partner, bounded) for the hot path and in a table so that a restart still refuses a request
// captured before it. Writes are group-committed: the nonces asked in a turn of the event loop (or
// while the previous batch awaited its sync) go in one transaction, and each request is answered
// only after its nonce is on disk, so durability costs one commit per batch, not one per request.
// Rows are keyed by expiry first: every expiry is "now + window", so each batch appends to the end
// of one b-tree (a page or two per commit) where a key of (app_key, random nonce) dirtied a page
// per nonce, scattered over the whole table, and a second index besides (docs/performance.md,
// issue #31 request path: 25–30 against 6–11 µs of CPU a nonce). Uniqueness per partner is the
// in-memory window's job; the table is only read whole, at start, and pruned from its front.
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
import { MemoryNonceWindow, type NonceStore } from "../gateway-nonces.js";
import {
  NonceBatchQueue,
  type NonceBatchWrite,
  type PendingNonce,
  pruneIsDue,
} from "../gateway-nonces-batching.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { atSynchronousNormal, synchronousFull, synchronousSetting } from "./synchronous-normal.js";
import { type FdatasyncFunction, sharedWalSync, type WalSync } from "./wal-sync.js";

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

export function createSqliteGatewayNonceStore(
  db: SqliteDatabase,
  options: SqliteGatewayNonceOptions,
): SqliteGatewayNonceStore {
  applyMigrations(db, "gateway_nonces", gatewayNonceMigrations);
  const window = new MemoryNonceWindow(options.windowMs, options.entriesPerPartnerMax);
  loadLiveNonces(db, window, (options.nowMs ?? Date.now)());
  // Without a WAL file of its own (":memory:"), or on a connection set below FULL, the commit is
  // as durable as the connection makes it and the batch goes on at once.
  const walSync = sharedWalSync(db, options.fdatasync === undefined ? {} : { fdatasync: options.fdatasync });
  const spacing = new SyncSpacing(options.syncIntervalMsMin ?? gatewayNonceSyncIntervalMsMin);
  // At most one written batch awaits its sync; the nonces asked meanwhile gather in memory and
  // are written together once it is done (in the same turn: nothing more would join them). Written
  // each turn instead, they waited for the same next sync anyway, but each turn paid a commit of
  // its own: with the event loop no longer held by the sync, turns are short, and a signed GET cost
  // 40–90 µs more CPU (docs/performance.md).
  const queue = new NonceBatchQueue(window, sqliteBatchWrite(db, walSync, spacing), {
    batchesInFlightMax: 1,
    nextBatchDelayMs: () => spacing.delayMs(),
    nextBatchAtOnceAfterSettled: true,
  });
  return {
    remember: (partnerKey, nonce, nowMs) => queue.remember(partnerKey, nonce, nowMs),
    async close() {
      // Nonces held back by the spacing are written now rather than after the sync is closed.
      queue.writeDelayedNow();
      await walSync?.close();
    },
  };
}

/** Puts the live rows of the table in the window: the table is only ever read here, at start. */
function loadLiveNonces(db: SqliteDatabase, window: MemoryNonceWindow, startMs: number): void {
  const live = db
    .prepare<[number], { app_key: string; nonce: string; expires_at_ms: number }>(
      "SELECT app_key, nonce, expires_at_ms FROM gateway_nonces WHERE expires_at_ms >= ? ORDER BY expires_at_ms",
    )
    .all(startMs);
  for (const row of live) window.rememberUntil(row.app_key, row.nonce, startMs, row.expires_at_ms);
}

/**
 * SQLite's write of a batch: one transaction (with the prune when due), committed at NORMAL when
 * the connection would sync it, then made durable by a WAL sync on the thread pool.
 */
function sqliteBatchWrite(
  db: SqliteDatabase,
  walSync: WalSync | undefined,
  spacing: SyncSpacing,
): NonceBatchWrite {
  // A nonce taken again after its expiry gets a row of its own; the old one is pruned (and is
  // skipped at start, being expired). OR IGNORE: the same nonce in the same millisecond is one fact.
  const insert = db.prepare(
    "INSERT OR IGNORE INTO gateway_nonces (expires_at_ms, app_key, nonce) VALUES (?, ?, ?)",
  );
  const prune = db.prepare("DELETE FROM gateway_nonces WHERE expires_at_ms < ?");
  let prunedAtMs = 0;
  const commit = db.transaction((batch: readonly PendingNonce[], nowMs: number) => {
    if (pruneIsDue(prunedAtMs, nowMs)) {
      prune.run(nowMs);
      prunedAtMs = nowMs;
    }
    for (const entry of batch) insert.run(entry.expiresAtMs, entry.partnerKey, entry.nonce);
  });
  return (batch, nowMs) => {
    spacing.writing();
    // Read each time, never a prepared statement: SQLite applies (and reads) this pragma when the
    // statement is compiled, not when it runs (synchronous-normal.ts).
    const setting = walSync === undefined ? 0 : synchronousSetting(db);
    if (setting < synchronousFull) {
      commit(batch, nowMs);
      return undefined;
    }
    // FULL (2) or EXTRA (3) both sync the WAL at COMMIT; the setting is restored before returning.
    atSynchronousNormal(db, setting, () => commit(batch, nowMs));
    spacing.written(batch.length);
    // A failed sync leaves the rows written but perhaps not on disk: the requests are refused and
    // their nonces forgotten, so that a retry is not called a replay. Nothing of theirs ran: the
    // fault says so (nothing done, retry), where a failed COMMIT would leave it unknown.
    return walSync!.afterWrite().then(everyNonceFresh, refusedAsNothingDone);
  };
}

const everyNonceFresh = (): undefined => undefined;

function refusedAsNothingDone(error: unknown): never {
  noteStatementOutcome(error, false);
  throw error;
}

/**
 * The spacing of syncs under concurrency: after a batch of more than one nonce that needed a sync,
 * the next is taken no sooner than the interval after that one was written.
 */
class SyncSpacing {
  /** When the last batch was written (performance.now()) and whether it held more than one nonce. */
  #writtenAtMs = Number.NEGATIVE_INFINITY;
  #writtenConcurrently = false;

  constructor(readonly intervalMsMin: number) {}

  writing(): void {
    this.#writtenAtMs = performance.now();
    this.#writtenConcurrently = false;
  }

  written(nonces: number): void {
    this.#writtenConcurrently = nonces > 1;
  }

  delayMs(): number {
    return this.#writtenConcurrently ? this.#writtenAtMs + this.intervalMsMin - performance.now() : 0;
  }
}
