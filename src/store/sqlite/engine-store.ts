// The engine's journal and snapshots in the embedded SQLite file. better-sqlite3 is synchronous, so a
// whole batch (journal rows and every projector's read-model writes) runs inside one
// BEGIN IMMEDIATE … COMMIT; WAL with synchronous=FULL (set by openDatabase) makes the commit
// durable before the Promise resolves and the engine acknowledges anything.

import type { Statement } from "better-sqlite3";
import { decodePlainData, encodePlainData } from "../../engine/journal-codec.js";
import type { EngineStore, JournalEntry, Projector, StateSnapshot } from "../../engine/store.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";

/** Rows fetched per step of readJournal, so recovery never loads the whole journal at once. */
export const sqliteJournalReadBatchEntriesMax = 1024;
/** Snapshots kept; the older ones are deleted when a new one is written. */
export const sqliteSnapshotsKeptMax = 2;

export const engineMigrations: readonly string[] = [
  `CREATE TABLE journal (
     sequence INTEGER PRIMARY KEY,
     now_ms INTEGER NOT NULL,
     command TEXT NOT NULL,
     events TEXT NOT NULL
   ) STRICT;
   CREATE TABLE snapshots (
     sequence INTEGER PRIMARY KEY,
     now_ms INTEGER NOT NULL,
     state TEXT NOT NULL,
     hash TEXT NOT NULL
   ) STRICT;`,
];

interface JournalRow {
  sequence: bigint;
  now_ms: bigint;
  command: string;
  events: string;
}

interface SnapshotRow {
  sequence: bigint;
  now_ms: bigint;
  state: string;
  hash: string;
}

/** Projectors on SQLite get the database handle, already inside the batch's transaction. */
export type SqliteProjector<Command, Event> = Projector<SqliteDatabase, Command, Event>;

export class SqliteEngineStore<Command, Event> implements EngineStore<Command, Event, SqliteDatabase> {
  readonly #selectLastSequence: Statement<[], bigint>;
  readonly #selectJournalPage: Statement<[bigint, number], JournalRow>;
  readonly #insertEntry: Statement<[bigint, number, string, string]>;
  readonly #selectLatestSnapshot: Statement<[], SnapshotRow>;
  readonly #upsertSnapshot: Statement<[bigint, number, string, string]>;
  readonly #pruneSnapshots: Statement<[number]>;
  readonly #commit: (
    entries: readonly JournalEntry<Command, Event>[],
    projectors: readonly SqliteProjector<Command, Event>[],
  ) => void;
  readonly #writeSnapshot: (snapshot: StateSnapshot) => void;
  readonly #selectFirstSequence: Statement<[], bigint | null>;
  readonly #deleteThrough: (sequence: bigint) => void;

  constructor(readonly db: SqliteDatabase) {
    applyMigrations(db, "engine", engineMigrations);
    // Sequences are bigint end to end; safeIntegers makes SQLite hand them back as bigint too.
    this.#selectLastSequence = db
      .prepare<[], bigint>("SELECT coalesce(max(sequence), 0) FROM journal")
      .pluck()
      .safeIntegers(true);
    this.#selectJournalPage = db
      .prepare<[bigint, number], JournalRow>(
        "SELECT sequence, now_ms, command, events FROM journal WHERE sequence > ? ORDER BY sequence LIMIT ?",
      )
      .safeIntegers(true);
    this.#insertEntry = db.prepare(
      "INSERT INTO journal (sequence, now_ms, command, events) VALUES (?, ?, ?, ?)",
    );
    this.#selectLatestSnapshot = db
      .prepare<[], SnapshotRow>(
        "SELECT sequence, now_ms, state, hash FROM snapshots ORDER BY sequence DESC LIMIT 1",
      )
      .safeIntegers(true);
    this.#upsertSnapshot = db.prepare(
      "INSERT OR REPLACE INTO snapshots (sequence, now_ms, state, hash) VALUES (?, ?, ?, ?)",
    );
    this.#pruneSnapshots = db.prepare(
      "DELETE FROM snapshots WHERE sequence NOT IN (SELECT sequence FROM snapshots ORDER BY sequence DESC LIMIT ?)",
    );

    const commit = db.transaction(
      (
        entries: readonly JournalEntry<Command, Event>[],
        projectors: readonly SqliteProjector<Command, Event>[],
      ) => {
        let expected = this.#selectLastSequence.get()! + 1n;
        for (const entry of entries) {
          if (entry.sequence !== expected) {
            throw new Error(
              `Journal write out of order: expected sequence ${expected}, got ${entry.sequence}`,
            );
          }
          this.#insertEntry.run(
            entry.sequence,
            entry.nowMs,
            encodePlainData(entry.command),
            encodePlainData(entry.events),
          );
          expected += 1n;
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
    // IMMEDIATE takes the write lock up front, so another connection cannot make us fail mid-batch.
    this.#commit = (entries, projectors) => commit.immediate(entries, projectors);
    const writeSnapshot = db.transaction((snapshot: StateSnapshot) => {
      this.#upsertSnapshot.run(snapshot.sequence, snapshot.nowMs, snapshot.state, snapshot.hash);
      this.#pruneSnapshots.run(sqliteSnapshotsKeptMax);
    });
    this.#writeSnapshot = (snapshot) => writeSnapshot.immediate(snapshot);
    this.#selectFirstSequence = db
      .prepare<[], bigint | null>("SELECT min(sequence) FROM journal")
      .pluck()
      .safeIntegers(true);
    const deleteEntries = db.prepare<[bigint]>("DELETE FROM journal WHERE sequence <= ?");
    const selectSnapshotSequence = db
      .prepare<[], bigint | null>("SELECT max(sequence) FROM snapshots")
      .pluck()
      .safeIntegers(true);
    const deleteThrough = db.transaction((sequence: bigint) => {
      const last = this.#selectLastSequence.get()!;
      const snapshotSequence = selectSnapshotSequence.get() ?? 0n;
      if (sequence >= last || sequence > snapshotSequence) {
        throw new Error(
          `Journal entries through ${sequence} are still needed: the journal ends at ${last}, the latest snapshot is at ${snapshotSequence}`,
        );
      }
      deleteEntries.run(sequence);
    });
    this.#deleteThrough = (sequence) => deleteThrough.immediate(sequence);
  }

  async lastSequence(): Promise<bigint> {
    return this.#selectLastSequence.get()!;
  }

  async *readJournal(afterSequence: bigint): AsyncIterable<readonly JournalEntry<Command, Event>[]> {
    let after = afterSequence;
    for (;;) {
      // One page per query (keyset pagination): no cursor stays open while the caller awaits.
      const rows = this.#selectJournalPage.all(after, sqliteJournalReadBatchEntriesMax);
      if (rows.length === 0) return;
      yield rows.map((row) => ({
        sequence: row.sequence,
        nowMs: Number(row.now_ms),
        command: decodePlainData<Command>(row.command),
        events: decodePlainData<Event[]>(row.events),
      }));
      after = rows.at(-1)!.sequence;
      if (rows.length < sqliteJournalReadBatchEntriesMax) return;
    }
  }

  async commitBatch(
    entries: readonly JournalEntry<Command, Event>[],
    projectors: readonly SqliteProjector<Command, Event>[],
  ): Promise<void> {
    this.#commit(entries, projectors);
  }

  async loadLatestSnapshot(): Promise<StateSnapshot | undefined> {
    const row = this.#selectLatestSnapshot.get();
    if (row === undefined) return undefined;
    return { sequence: row.sequence, nowMs: Number(row.now_ms), state: row.state, hash: row.hash };
  }

  async saveSnapshot(snapshot: StateSnapshot): Promise<void> {
    this.#writeSnapshot(snapshot);
  }

  async deleteJournalThrough(sequence: bigint): Promise<void> {
    this.#deleteThrough(sequence);
  }

  async firstSequence(): Promise<bigint> {
    return this.#selectFirstSequence.get() ?? this.#selectLastSequence.get()! + 1n;
  }
}
