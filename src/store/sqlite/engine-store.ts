// The engine's journal and snapshots in the embedded SQLite file. better-sqlite3 is synchronous, so a
// whole batch (journal rows and every projector's read-model writes) runs inside one
// BEGIN IMMEDIATE … COMMIT, written at synchronous=NORMAL; an fdatasync of the WAL on the thread
// pool (wal-sync.ts) makes it durable before the Promise resolves and the engine acknowledges or
// shows anything (commitBatch).
//
// Snapshots are written in chunks, a few at a time, one step per turn of the event loop, so a large
// one (a million resting orders: 91 MB of text, ~4 MB packed) never holds the event loop for more
// than a few milliseconds; the engine's commits run between the steps on the same connection
// (SQLite has one writer: a second connection writing 91 MB would block every commit). The chunks
// belong to a write id no snapshot row names yet, so recovery cannot see them; the snapshot row
// that names them is written last, in one small transaction, which makes the snapshot whole or
// absent after a crash at any point. Chunks no row names (a crashed write's, a pruned snapshot's)
// are deleted a slice per turn after the next snapshot is in.

import { closeSync, fdatasyncSync, openSync } from "node:fs";
import type { Statement } from "better-sqlite3";
import { JournalCorruptionError } from "../../engine/errors.js";
import { decodeJournalRow, entryTexts } from "../../engine/journal-chain.js";
import { isPackedSnapshot, unpackStateBytes } from "../../engine/snapshot-packing.js";
import type {
  EngineStore,
  JournalEntry,
  PackedStateSnapshot,
  Projector,
  StateSnapshot,
} from "../../engine/store.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { type FdatasyncFunction, sharedWalSync, type WalSync } from "./wal-sync.js";

/** Rows fetched per step of readJournal, so recovery never loads the whole journal at once. */
export const sqliteJournalReadBatchEntriesMax = 1024;
/** Snapshots kept; the older ones are deleted when a new one is written. */
export const sqliteSnapshotsKeptMax = 2;
/** Bytes in one snapshot chunk row: a 128 KiB blob is written in well under a millisecond. */
export const sqliteSnapshotChunkBytesDefault = 128 * 1024;
/** How long one step of a snapshot write may hold the event loop before it yields. */
export const sqliteSnapshotStepMsMax = 2;

export interface SqliteEngineStoreOptions {
  /** Bytes per snapshot chunk row; the crash simulation makes it small so a snapshot spans many writes. */
  readonly snapshotChunkBytes?: number;
  /**
   * Told how long each synchronous step of a snapshot save held the event loop (a batch of chunks,
   * the row naming them, a slice of the sweep): what a snapshot costs the hot path (bench:snapshot).
   */
  readonly onSnapshotStep?: (step: "chunks" | "pointer" | "sweep", ms: number) => void;
  /**
   * How the WAL is synced after a batch written at synchronous=NORMAL (wal-sync.ts): node:fs's
   * fdatasync on the thread pool by default; tests inject a slow or failing one, the crash
   * simulation one that records what a power cut keeps.
   */
  readonly fdatasync?: FdatasyncFunction;
  /**
   * The clock a snapshot step's time slice (sqliteSnapshotStepMsMax) is measured by, in ms:
   * performance.now by default. The crash simulation injects a counter, so that how a snapshot is
   * split into steps (and so its write boundaries) is the same in every run of a seed.
   */
  readonly stepClock?: () => number;
}

/**
 * Batches handed to the store at once: one whose WAL sync is under way and one written behind it
 * (its sync starts when the first's ends: wal-sync.ts syncs one at a time). More would only queue
 * behind the same sync and hold more decided state that nothing may read yet.
 */
export const sqliteCommitsInFlightMax = 2;

/**
 * How a snapshot row holds its state: `text` in its own `state` column (rows written before chunks
 * existed), or in `snapshot_chunks` rows as the text's UTF-8 bytes (`utf8`, a snapshot the engine
 * encoded inline) or packed (`brotli`, from the snapshot worker: snapshot-packing.ts).
 */
type SnapshotFormat = "text" | "utf8" | "brotli";

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
  `CREATE TABLE snapshot_chunks (
     write_id INTEGER NOT NULL,
     chunk INTEGER NOT NULL,
     bytes BLOB NOT NULL,
     PRIMARY KEY (write_id, chunk)
   ) STRICT;
   ALTER TABLE snapshots ADD COLUMN format TEXT NOT NULL DEFAULT 'text';
   ALTER TABLE snapshots ADD COLUMN write_id INTEGER;
   ALTER TABLE snapshots ADD COLUMN chunks INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE snapshots ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;`,
  // The journal as a hash chain (src/engine/journal-chain.ts): each entry's chain hash and the one
  // before it, and the chain hash at each snapshot's sequence. Rows written before stay NULL: the
  // chain starts at the first hashed entry.
  `ALTER TABLE journal ADD COLUMN prev_hash TEXT;
   ALTER TABLE journal ADD COLUMN hash TEXT;
   ALTER TABLE snapshots ADD COLUMN chain_hash TEXT;`,
];

interface JournalRow {
  sequence: bigint;
  now_ms: bigint;
  command: string;
  events: string;
  prev_hash: string | null;
  hash: string | null;
}

interface SnapshotRow {
  sequence: bigint;
  now_ms: bigint;
  state: string;
  hash: string;
  chain_hash: string | null;
  format: SnapshotFormat;
  write_id: bigint | null;
  chunks: bigint;
  bytes: bigint;
}

interface ChunkRow {
  chunk: bigint;
  bytes: Buffer;
}

/** A chunked snapshot being written: its pointer row goes in once every chunk is. */
interface ChunkedWrite {
  readonly snapshot: StateSnapshot | PackedStateSnapshot;
  readonly format: Exclude<SnapshotFormat, "text">;
  readonly bytes: Buffer;
  readonly writeId: bigint;
  readonly chunks: number;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

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

export class SqliteEngineStore<Command, Event> implements EngineStore<Command, Event, SqliteDatabase> {
  readonly #selectLastSequence: Statement<[], bigint>;
  readonly #selectJournalPage: Statement<[bigint, number], JournalRow>;
  readonly #insertEntry: Statement<[bigint, number, string, string, string | null, string | null]>;
  readonly #selectLatestSnapshot: Statement<[], SnapshotRow>;
  readonly #selectChunks: Statement<[bigint], ChunkRow>;
  readonly #selectNextWriteId: Statement<[], bigint>;
  readonly #insertChunk: Statement<[bigint, number, Buffer]>;
  readonly #sweepOrphanChunks: (stepMsMax: number) => boolean;
  readonly #chunkBytes: number;
  readonly #onSnapshotStep: SqliteEngineStoreOptions["onSnapshotStep"];
  /** The save under way (or the last one), so saves run one after another. */
  #saving: Promise<void> = Promise.resolve();
  readonly #commit: (
    entries: readonly JournalEntry<Command, Event>[],
    projectors: readonly SqliteProjector<Command, Event>[],
  ) => void;
  readonly #writeChunks: (write: ChunkedWrite, from: number, stepMsMax: number) => number;
  readonly #writePointer: (write: ChunkedWrite) => void;
  readonly #selectFirstSequence: Statement<[], bigint | null>;
  readonly #deleteThrough: (sequence: bigint) => void;
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
    this.#chunkBytes = options.snapshotChunkBytes ?? sqliteSnapshotChunkBytesDefault;
    this.#onSnapshotStep = options.onSnapshotStep;
    this.#fdatasync = options.fdatasync;
    const stepClock = options.stepClock ?? (() => performance.now());
    const syncsApart = !db.memory && db.pragma("journal_mode", { simple: true }) === "wal";
    this.commitsWaitOnIo = syncsApart;
    this.commitsInFlightMax = syncsApart ? sqliteCommitsInFlightMax : 1;
    if (syncsApart) syncWrittenWal(db);
    if (!Number.isSafeInteger(this.#chunkBytes) || this.#chunkBytes <= 0) {
      throw new RangeError("snapshotChunkBytes is a positive integer");
    }
    // Sequences are bigint end to end; safeIntegers makes SQLite hand them back as bigint too.
    this.#selectLastSequence = db
      .prepare<[], bigint>("SELECT coalesce(max(sequence), 0) FROM journal")
      .pluck()
      .safeIntegers(true);
    this.#selectJournalPage = db
      .prepare<[bigint, number], JournalRow>(
        "SELECT sequence, now_ms, command, events, prev_hash, hash FROM journal WHERE sequence > ? ORDER BY sequence LIMIT ?",
      )
      .safeIntegers(true);
    this.#insertEntry = db.prepare(
      "INSERT INTO journal (sequence, now_ms, command, events, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.#selectLatestSnapshot = db
      .prepare<[], SnapshotRow>(
        `SELECT sequence, now_ms, state, hash, chain_hash, format, write_id, chunks, bytes
         FROM snapshots ORDER BY sequence DESC LIMIT 1`,
      )
      .safeIntegers(true);
    this.#selectChunks = db
      .prepare<[bigint], ChunkRow>(
        "SELECT chunk, bytes FROM snapshot_chunks WHERE write_id = ? ORDER BY chunk",
      )
      .safeIntegers(true);
    this.#selectNextWriteId = db
      .prepare<[], bigint>(
        `SELECT coalesce(max(id), 0) + 1 FROM (
           SELECT max(write_id) AS id FROM snapshot_chunks UNION ALL SELECT max(write_id) FROM snapshots)`,
      )
      .pluck()
      .safeIntegers(true);
    this.#insertChunk = db.prepare("INSERT INTO snapshot_chunks (write_id, chunk, bytes) VALUES (?, ?, ?)");
    const deleteOrphanChunk = db.prepare(
      `DELETE FROM snapshot_chunks WHERE rowid IN (
         SELECT rowid FROM snapshot_chunks AS chunk
         WHERE NOT EXISTS (SELECT 1 FROM snapshots WHERE snapshots.write_id = chunk.write_id)
         LIMIT 1)`,
    );
    // One chunk row at a time (freeing its overflow pages reads each of them) until the step's
    // time is up; true once no chunk is left that no snapshot row names.
    const sweep = db.transaction((stepMsMax: number): boolean => {
      const startedMs = stepClock();
      do {
        if (deleteOrphanChunk.run().changes === 0) return true;
      } while (stepClock() - startedMs < stepMsMax);
      return false;
    });
    this.#sweepOrphanChunks = (stepMsMax) => this.#withoutFsync(() => sweep.immediate(stepMsMax));
    const countChunks = db.prepare<[bigint], { chunks: number; bytes: number }>(
      "SELECT count(*) AS chunks, coalesce(sum(length(bytes)), 0) AS bytes FROM snapshot_chunks WHERE write_id = ?",
    );
    const upsertPointer = db.prepare<
      [bigint, number, string, string | null, SnapshotFormat, bigint, number, number]
    >(
      `INSERT OR REPLACE INTO snapshots (sequence, now_ms, state, hash, chain_hash, format, write_id, chunks, bytes)
       VALUES (?, ?, '', ?, ?, ?, ?, ?, ?)`,
    );
    const pruneSnapshots = db.prepare<[number]>(
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
          // The texts the engine encoded to hash the entry (journal-chain.ts), not encoded again.
          const texts = entryTexts(entry);
          this.#insertEntry.run(
            entry.sequence,
            entry.nowMs,
            texts.command,
            texts.events,
            entry.prevHash ?? null,
            entry.hash ?? null,
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
    const writeChunks = db.transaction((write: ChunkedWrite, from: number, stepMsMax: number): number => {
      const startedMs = stepClock();
      let chunk = from;
      do {
        const start = chunk * this.#chunkBytes;
        this.#insertChunk.run(write.writeId, chunk, write.bytes.subarray(start, start + this.#chunkBytes));
        chunk += 1;
      } while (chunk < write.chunks && stepClock() - startedMs < stepMsMax);
      return chunk;
    });
    this.#writeChunks = (write, from, stepMsMax) =>
      this.#withoutFsync(() => writeChunks.immediate(write, from, stepMsMax));
    const writePointer = db.transaction((write: ChunkedWrite) => {
      const written = countChunks.get(write.writeId)!;
      if (written.chunks !== write.chunks || written.bytes !== write.bytes.length) {
        throw new Error(
          `Snapshot at ${write.snapshot.sequence}: ${written.chunks} chunks of ${written.bytes} bytes written, expected ${write.chunks} of ${write.bytes.length}`,
        );
      }
      const { snapshot } = write;
      upsertPointer.run(
        snapshot.sequence,
        snapshot.nowMs,
        snapshot.hash,
        snapshot.chainHash ?? null,
        write.format,
        write.writeId,
        write.chunks,
        write.bytes.length,
      );
      pruneSnapshots.run(sqliteSnapshotsKeptMax);
    });
    this.#writePointer = (write) => this.#withoutFsync(() => writePointer.immediate(write));
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
      yield rows.map((row) =>
        decodeJournalRow<Command, Event>({
          sequence: row.sequence,
          nowMs: Number(row.now_ms),
          command: row.command,
          events: row.events,
          prevHash: row.prev_hash,
          hash: row.hash,
        }),
      );
      after = rows.at(-1)!.sequence;
      if (rows.length < sqliteJournalReadBatchEntriesMax) return;
    }
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
      const setting = walSync === undefined ? 0 : (this.db.pragma("synchronous", { simple: true }) as number);
      if (walSync === undefined || setting < 2) {
        // No WAL to sync apart (":memory:", a closed store), or a connection set below FULL on
        // purpose: the commit is as durable as the connection's own setting makes it.
        this.#commit(entries, projectors);
        return Promise.resolve();
      }
      // exec, not db.pragma: no Statement object (gateway-nonces.ts). Restored before returning,
      // so every other commit on the connection stays at the connection's setting.
      this.db.exec("PRAGMA synchronous = NORMAL");
      try {
        this.#commit(entries, projectors);
      } finally {
        this.db.exec(`PRAGMA synchronous = ${setting}`);
      }
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
    const row = this.#selectLatestSnapshot.get();
    if (row === undefined) return undefined;
    const snapshot = {
      sequence: row.sequence,
      nowMs: Number(row.now_ms),
      hash: row.hash,
      // A snapshot written before the chain has none.
      ...(row.chain_hash === null ? {} : { chainHash: row.chain_hash }),
    };
    if (row.format === "text") return { ...snapshot, state: row.state };
    const chunks = this.#selectChunks.all(row.write_id!);
    const bytes = Buffer.concat(chunks.map((chunk) => chunk.bytes));
    if (
      BigInt(chunks.length) !== row.chunks ||
      BigInt(bytes.length) !== row.bytes ||
      chunks.some((chunk, index) => chunk.chunk !== BigInt(index))
    ) {
      throw new JournalCorruptionError(`Snapshot at sequence ${row.sequence} is missing chunks`);
    }
    let text: Buffer;
    try {
      text = row.format === "brotli" ? unpackStateBytes(bytes) : bytes;
    } catch (error) {
      throw new JournalCorruptionError(
        `Snapshot at sequence ${row.sequence} does not unpack: ${(error as Error).message}`,
      );
    }
    return { ...snapshot, state: text.toString("utf8") };
  }

  /**
   * Writes the chunks a step per turn of the event loop, then the row that names them, then deletes
   * the chunks no row names any more a slice per turn. Resolves once the snapshot is in: whole,
   * and durable with the next synced commit (see #withoutFsync).
   */
  saveSnapshot(snapshot: StateSnapshot | PackedStateSnapshot): Promise<void> {
    const saved = this.#saving.then(() => this.#save(snapshot));
    this.#saving = saved.catch(() => {});
    return saved;
  }

  async #save(snapshot: StateSnapshot | PackedStateSnapshot): Promise<void> {
    const packed = isPackedSnapshot(snapshot);
    const bytes = packed
      ? Buffer.from(
          snapshot.packedState.buffer,
          snapshot.packedState.byteOffset,
          snapshot.packedState.byteLength,
        )
      : Buffer.from(snapshot.state, "utf8");
    const write: ChunkedWrite = {
      snapshot,
      format: packed ? "brotli" : "utf8",
      bytes,
      writeId: this.#selectNextWriteId.get()!,
      chunks: Math.ceil(bytes.length / this.#chunkBytes),
    };
    for (let chunk = 0; chunk < write.chunks; ) {
      chunk = this.#step("chunks", () => this.#writeChunks(write, chunk, sqliteSnapshotStepMsMax));
      await nextTurn();
    }
    this.#step("pointer", () => this.#writePointer(write));
    for (;;) {
      await nextTurn();
      const swept = this.#step("sweep", () => this.#sweepOrphanChunks(sqliteSnapshotStepMsMax));
      if (swept) return;
    }
  }

  /**
   * Runs a snapshot step's transaction with synchronous=NORMAL: atomic, but its commit does not
   * wait for an fsync (10–25 ms on a busy disk, as long as the step itself several times over). A
   * snapshot need not be durable the moment it is written: after a power cut without it, recovery
   * starts from the one before and replays the (durable) journal. Its WAL frames become durable
   * with the next sync of the WAL, an engine batch's (commitBatch), since the WAL is
   * written in order and recovered as a prefix; and the only thing that relies on a snapshot,
   * deleting the journal before it (deleteJournalThrough), is a commit at FULL itself. The connection's
   * setting (FULL, from openDatabase) is back before this returns.
   */
  #withoutFsync<T>(work: () => T): T {
    const setting = this.db.pragma("synchronous", { simple: true }) as number;
    if (setting < 2) return work();
    this.db.pragma("synchronous = NORMAL");
    try {
      return work();
    } finally {
      this.db.pragma(`synchronous = ${setting}`);
    }
  }

  #step<T>(step: "chunks" | "pointer" | "sweep", work: () => T): T {
    if (this.#onSnapshotStep === undefined) return work();
    const startedMs = performance.now();
    const result = work();
    this.#onSnapshotStep(step, performance.now() - startedMs);
    return result;
  }

  async deleteJournalThrough(sequence: bigint): Promise<void> {
    this.#deleteThrough(sequence);
  }

  async firstSequence(): Promise<bigint> {
    return this.#selectFirstSequence.get() ?? this.#selectLastSequence.get()! + 1n;
  }
}
