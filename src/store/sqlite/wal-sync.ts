// Makes commits written at synchronous=NORMAL durable without holding the event loop: an
// fdatasync of the write-ahead log on libuv's thread pool, shared by every commit written before it
// started (group sync). A commit at NORMAL appends its frames to the WAL with write(2) and returns;
// a later fdatasync of the WAL file puts every frame written before it on disk, and SQLite
// recovers the WAL as a prefix (frames are checksummed in a chain), so the commit then survives a
// power cut exactly as one made at synchronous=FULL, whose COMMIT runs that fdatasync itself, on
// the caller's thread (docs/performance.md, issue #31: the nonce's commit). A WAL restarted after
// a checkpoint has its new header synced by SQLite itself at NORMAL; this fdatasync covers it too.
//
// The WAL file keeps its inode while any connection has the database open (SQLite deletes it only
// when the last connection closes), so one descriptor, opened read-only here, serves for the
// connection's life. The database must be a file in WAL mode; for any other (":memory:" in tests)
// there is nothing to sync apart and createWalSync answers undefined.

import { closeSync, fdatasync, openSync } from "node:fs";
import type { SqliteDatabase } from "./database.js";

export interface WalSync {
  /**
   * Resolves once an fdatasync of the WAL that started after this call has completed: everything
   * the connection wrote before the call is then on disk. Rejects if that fdatasync failed, with
   * the code SQLite gives its own failed sync (SQLITE_IOERR_FSYNC), so that it is told apart as a
   * database fault (src/store/database-faults.ts) as a failed COMMIT at FULL would be.
   */
  afterWrite(): Promise<void>;
  /** Waits for the sync under way (if any) and closes the descriptor; afterWrite then rejects. */
  close(): Promise<void>;
}

/** How a WAL descriptor is synced: node:fs's fdatasync by default (the thread pool); tests inject. */
export type FdatasyncFunction = (fd: number, done: (error: Error | null) => void) => void;

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export function createWalSync(
  db: SqliteDatabase,
  options: { readonly fdatasync?: FdatasyncFunction } = {},
): WalSync | undefined {
  if (db.memory || db.pragma("journal_mode", { simple: true }) !== "wal") return undefined;
  let fd: number;
  try {
    fd = openSync(`${db.name}-wal`, "r");
  } catch {
    // No WAL file to hold (it is made by the connection's first read): the caller commits at FULL.
    return undefined;
  }
  const sync = options.fdatasync ?? fdatasync;
  /** The waiters of the sync under way: their writes were done before it started. */
  let syncing: Waiter[] | undefined;
  /** The waiters that came during it: they need the next sync. */
  let next: Waiter[] = [];
  let closed = false;
  let idle: (() => void) | undefined;

  const start = () => {
    const waiters = next;
    next = [];
    syncing = waiters;
    sync(fd, (error) => {
      syncing = undefined;
      const failure = error === null ? undefined : syncError(error);
      for (const waiter of waiters) {
        if (failure === undefined) waiter.resolve();
        else waiter.reject(failure);
      }
      if (next.length > 0) start();
      else idle?.();
    });
  };

  return {
    afterWrite() {
      if (closed) return Promise.reject(new Error("The WAL sync is closed"));
      return new Promise<void>((resolve, reject) => {
        next.push({ resolve, reject });
        if (syncing === undefined) start();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      if (syncing !== undefined) await new Promise<void>((resolve) => (idle = resolve));
      closeSync(fd);
    },
  };
}

function syncError(error: Error): Error {
  return Object.assign(new Error(`fdatasync of the SQLite WAL failed: ${error.message}`, { cause: error }), {
    code: "SQLITE_IOERR_FSYNC",
  });
}

const sharedSyncs = new WeakMap<SqliteDatabase, { readonly sync: WalSync; users: number }>();

/**
 * The connection's one WAL sync, shared by every store that writes on it (the engine's batches,
 * the gateway's nonces): a sync covers whatever was written before it started, so the writes of
 * both made during one sync share the next, one fdatasync and one hand-off to the thread pool where
 * each store's own would make two. Each caller gets a handle of its own; the descriptor closes with
 * the last one. A caller that injects its fdatasync (tests) gets a sync of its own.
 */
export function sharedWalSync(
  db: SqliteDatabase,
  options: { readonly fdatasync?: FdatasyncFunction } = {},
): WalSync | undefined {
  if (options.fdatasync !== undefined) return createWalSync(db, options);
  let entry = sharedSyncs.get(db);
  if (entry === undefined) {
    const sync = createWalSync(db);
    if (sync === undefined) return undefined;
    entry = { sync, users: 0 };
    sharedSyncs.set(db, entry);
  }
  const shared = entry;
  shared.users += 1;
  let closed = false;
  return {
    afterWrite() {
      if (closed) return Promise.reject(new Error("The WAL sync is closed"));
      return shared.sync.afterWrite();
    },
    async close() {
      if (closed) return;
      closed = true;
      shared.users -= 1;
      if (shared.users > 0) return;
      if (sharedSyncs.get(db) === shared) sharedSyncs.delete(db);
      await shared.sync.close();
    },
  };
}
