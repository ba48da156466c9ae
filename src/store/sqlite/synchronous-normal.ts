// A SQLite write that need not wait for an fsync of its own: run at synchronous=NORMAL (its WAL
// frames written, not synced), the connection's own setting (FULL, from openDatabase) back before
// this returns. The caller says what makes the write durable: the engine's batch a WAL sync on the
// thread pool, a snapshot step the next batch's sync (engine-store.ts, engine-snapshots.ts).

import type { SqliteDatabase } from "./database.js";

/** SQLite's synchronous=FULL: a COMMIT syncs the WAL itself. */
export const synchronousFull = 2;

/**
 * The connection's synchronous setting (0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA). db.pragma compiles a
 * statement each time, as it must: SQLite reads this pragma when a statement is compiled.
 */
export function synchronousSetting(db: SqliteDatabase): number {
  return db.pragma("synchronous", { simple: true }) as number;
}

/**
 * Runs `work` at synchronous=NORMAL and puts `setting` back. exec, not db.pragma, to set it: no
 * Statement object (0.5 against 2.5 µs; gateway-nonces.ts).
 */
export function atSynchronousNormal<T>(db: SqliteDatabase, setting: number, work: () => T): T {
  db.exec("PRAGMA synchronous = NORMAL");
  try {
    return work();
  } finally {
    db.exec(`PRAGMA synchronous = ${setting}`);
  }
}

/** `work` without an fsync of its own when the connection would sync it (FULL or above). */
export function withoutFsync<T>(db: SqliteDatabase, work: () => T): T {
  const setting = synchronousSetting(db);
  return setting < synchronousFull ? work() : atSynchronousNormal(db, setting, work);
}
