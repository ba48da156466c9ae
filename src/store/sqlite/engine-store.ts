// The engine's journal and snapshots in the embedded SQLite file. better-sqlite3 is synchronous, so a
// whole batch (journal rows and every projector's read-model writes) runs inside one
// BEGIN IMMEDIATE … COMMIT, written at synchronous=NORMAL; an fdatasync of the WAL on the thread
// pool (wal-sync.ts) makes it durable before the Promise resolves and the engine acknowledges or
// shows anything (commitBatch). That commit path is SQLite's own; the journal's rows, its pages and
// the checks a batch and a delete pass are written once for both databases (../engine-journal.ts).
// Snapshots are written in chunks, a step per turn of the event loop (engine-snapshots.ts).

import { closeSync, fdatasyncSync, openSync } from "node:fs";
import type {
  EngineStore,
  JournalEntry,
  PackedStateSnapshot,
  Projector,
  StateSnapshot,
} from "../../engine/store.js";
import {
  assertContinuesJournal,
  assertJournalDeletable,
  type JournalRow,
  journalPages,
  journalRowValuesOf,
} from "../engine-journal.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { engineMigrations } from "./engine-schema.js";
import { SqliteSnapshotChunks, type SqliteSnapshotOptions } from "./engine-snapshots.js";
import { atSynchronousNormal, synchronousFull, synchronousSetting } from "./synchronous-normal.js";
import { type FdatasyncFunction, sharedWalSync, type WalSync } from "./wal-sync.js";

// The read-model projection applies the engine's migrations before it reads the journal.
export { engineMigrations } from "./engine-schema.js";

export interface SqliteEngineStoreOptions extends SqliteSnapshotOptions {
  /**
   * How the WAL is synced after a batch written at synchronous=NORMAL (wal-sync.ts): node:fs's
   * fdatasync on the thread pool by default; tests inject a slow or failing one, the crash
   * simulation one that records what a power cut keeps.
   */
  readonly fdatasync?: FdatasyncFunction;
}

/**
 * Batches handed to the store at once: one whose WAL sync is under way and one written behind it
 * (its sync starts when the first's ends: wal-sync.ts syncs one at a time). More would only queue
 * behind the same sync and hold more decided state that nothing may read yet.
 */
export const sqliteCommitsInFlightMax = 2;

/**
 * A process killed between a batch's write and its sync leaves the batch in the WAL, in the page
 * cache, perhaps not on disk; the next start would recover it, project it and show it. Synced here,
 * before recovery reads anything, whatever a start finds in the WAL is durable before it is shown.
 */
function syncWrittenWal(db: SqliteDatabase): void {
  let fd: number;
  try {
    fd = openSync(`${db.name}-wal`, "r");
  } catch {
    return; // No WAL file: nothing was written since the last checkpoint removed it.
  }
  try {
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Projectors on SQLite get the database handle, already inside the batch's transaction. */
export type SqliteProjector<Command, Event> = Projector<SqliteDatabase, Command, Event>;

/** The journal's statements, prepared once. Sequences are bigint end to end (safeIntegers). */
function prepareJournalStatements(db: SqliteDatabase) {
  return {
    selectLastSequence: db
      .prepare<[], bigint>("SELECT coalesce(max(sequence), 0) FROM journal")
      .pluck()
      .safeIntegers(true),
    selectFirstSequence: db
      .prepare<[], bigint | null>("SELECT min(sequence) FROM journal")
      .pluck()
      .safeIntegers(true),
    selectPage: db
      .prepare<[bigint, number], JournalRow>(
        "SELECT sequence, now_ms, command, events, prev_hash, hash FROM journal WHERE sequence > ? ORDER BY sequence LIMIT ?",
      )
      .safeIntegers(true),
    insertEntry: db.prepare<[bigint, number, string, string, string | null, string | null]>(
      "INSERT INTO journal (sequence, now_ms, command, events, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    selectSnapshotSequence: db
      .prepare<[], bigint | null>("SELECT max(sequence) FROM snapshots")
      .pluck()
      .safeIntegers(true),
    deleteEntries: db.prepare<[bigint]>("DELETE FROM journal WHERE sequence <= ?"),
  };
}

type JournalStatements = ReturnType<typeof prepareJournalStatements>;

/** Appends a batch that continues the journal and runs the projectors: one transaction. */
function batchTransaction<Command, Event>(db: SqliteDatabase, journal: JournalStatements) {
  return db.transaction(
    (
      entries: readonly JournalEntry<Command, Event>[],
      projectors: readonly SqliteProjector<Command, Event>[],
    ) => {
      assertContinuesJournal(journal.selectLastSequence.get()!, entries);
      for (const entry of entries) {
        const row = journalRowValuesOf(entry);
        journal.insertEntry.run(row.sequence, row.nowMs, row.command, row.events, row.prevHash, row.hash);
      }
      for (const projector of projectors) {
        const returned: unknown = projector(db, entries);
        // A Promise would finish after COMMIT, outside the transaction: refuse it loudly.
        if (typeof (returned as PromiseLike<void> | undefined)?.then === "function") {
          throw new TypeError("SQLite projectors must be synchronous");
        }
      }
    },
  );
}

/** Deletes the journal through a sequence the latest snapshot covers (deleteJournalThrough). */
function deleteThroughTransaction(db: SqliteDatabase, journal: JournalStatements) {
  return db.transaction((sequence: bigint) => {
    assertJournalDeletable({
      sequence,
      lastSequence: journal.selectLastSequence.get()!,
      snapshotSequence: journal.selectSnapshotSequence.get() ?? 0n,
    });
    journal.deleteEntries.run(sequence);
  });
}

export class SqliteEngineStore<Command, Event> implements EngineStore<Command, Event, SqliteDatabase> {
  readonly #journal: JournalStatements;
  readonly #commit: ReturnType<typeof batchTransaction<Command, Event>>;
  readonly #deleteThrough: ReturnType<typeof deleteThroughTransaction>;
  readonly #snapshots: SqliteSnapshotChunks;
  readonly #fdatasync: FdatasyncFunction | undefined;
  /** The WAL's sync, opened at the first commit (a store only read from never holds a descriptor). */
  #walSync: WalSync | undefined | null = null;
  /**
   * With a WAL file to sync apart (any file database; not ":memory:"), a batch is written at
   * NORMAL and its commit resolves after an fdatasync on the thread pool: the event loop turns
   * meanwhile, and the engine writes the next batch behind it (commitsInFlightMax).
   */
  readonly commitsWaitOnIo: boolean;
  readonly commitsInFlightMax: number;

  constructor(
    readonly db: SqliteDatabase,
    options: SqliteEngineStoreOptions = {},
  ) {
    applyMigrations(db, "engine", engineMigrations);
    this.#fdatasync = options.fdatasync;
    const syncsApart = !db.memory && db.pragma("journal_mode", { simple: true }) === "wal";
    this.commitsWaitOnIo = syncsApart;
    this.commitsInFlightMax = syncsApart ? sqliteCommitsInFlightMax : 1;
    if (syncsApart) syncWrittenWal(db);
    this.#snapshots = new SqliteSnapshotChunks(db, options);
    this.#journal = prepareJournalStatements(db);
    this.#commit = batchTransaction<Command, Event>(db, this.#journal);
    this.#deleteThrough = deleteThroughTransaction(db, this.#journal);
  }

  async lastSequence(): Promise<bigint> {
    return this.#journal.selectLastSequence.get()!;
  }

  readJournal(afterSequence: bigint): AsyncIterable<readonly JournalEntry<Command, Event>[]> {
    const page = this.#journal.selectPage;
    return journalPages<Command, Event>(afterSequence, (after, limit) => page.all(after, limit));
  }

  /**
   * Writes the batch in one transaction, then resolves once it is on disk. On a file in WAL mode
   * the transaction commits at synchronous=NORMAL (its frames appended to the WAL, no fsync) and
   * the Promise resolves after an fdatasync of the WAL that started after the write has completed
   * on the thread pool (wal-sync.ts): as durable as a commit at FULL, whose COMMIT runs that sync
   * on the event loop. Between the two the batch is readable on this connection but perhaps not
   * durable; nothing shows it meanwhile, because everything that shows a batch follows the
   * engine's committed position, which moves when this Promise resolves: the answers, the
   * listeners (realtime feeds, the deferred read-model projection), reads of the engine's state
   * and the snapshot worker's copy (engine.ts #finishBatch), and no read model is written in this
   * transaction (SQLite projectors here are for tests and tools; the platform's follow the
   * journal). A failed sync rejects with SQLITE_IOERR_FSYNC: the batch may or may not survive, and
   * the engine stops as after any failed commit (its commands' outcome is unknown).
   */
  commitBatch(
    entries: readonly JournalEntry<Command, Event>[],
    projectors: readonly SqliteProjector<Command, Event>[],
  ): Promise<void> {
    try {
      const walSync = this.#openWalSync();
      const setting = walSync === undefined ? 0 : synchronousSetting(this.db);
      // IMMEDIATE takes the write lock up front, so another connection cannot make us fail mid-batch.
      if (walSync === undefined || setting < synchronousFull) {
        // No WAL to sync apart (":memory:", a closed store), or a connection set below FULL on
        // purpose: the commit is as durable as the connection's own setting makes it.
        this.#commit.immediate(entries, projectors);
        return Promise.resolve();
      }
      // Restored before returning, so every other commit on the connection stays at its setting.
      atSynchronousNormal(this.db, setting, () => this.#commit.immediate(entries, projectors));
      return walSync.afterWrite();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #openWalSync(): WalSync | undefined {
    if (this.#walSync === null) {
      this.#walSync = this.commitsWaitOnIo
        ? sharedWalSync(this.db, this.#fdatasync === undefined ? {} : { fdatasync: this.#fdatasync })
        : undefined;
    }
    return this.#walSync;
  }

  /**
   * Waits for the WAL sync under way (if any) and closes its descriptor; a commit after it syncs
   * on the event loop, at the connection's own setting (FULL).
   */
  async close(): Promise<void> {
    const walSync = this.#walSync;
    this.#walSync = undefined;
    await walSync?.close();
  }

  async loadLatestSnapshot(): Promise<StateSnapshot | undefined> {
    return this.#snapshots.load();
  }

  /**
   * Writes the snapshot in chunks a step per turn, then the row naming them (engine-snapshots.ts).
   * Resolves once it is in: whole, and durable with the next synced commit.
   */
  saveSnapshot(snapshot: StateSnapshot | PackedStateSnapshot): Promise<void> {
    return this.#snapshots.save(snapshot);
  }

  /** A commit at the connection's setting (FULL): what it relies on, the snapshot, is synced by then. */
  async deleteJournalThrough(sequence: bigint): Promise<void> {
    this.#deleteThrough.immediate(sequence);
  }

  async firstSequence(): Promise<bigint> {
    return this.#journal.selectFirstSequence.get() ?? this.#journal.selectLastSequence.get()! + 1n;
  }
}
