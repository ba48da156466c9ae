// The engine's snapshots in the SQLite file, SQLite's own layout: a snapshot's bytes in chunk rows,
// written a few at a time, one step per turn of the event loop, so a large one (a million resting
// orders: 91 MB of text, ~4 MB packed) never holds the event loop for more than a few milliseconds;
// the engine's commits run between the steps on the same connection (SQLite has one writer: a
// second connection writing 91 MB would block every commit). The chunks belong to a write id no
// snapshot row names yet, so recovery cannot see them; the snapshot row that names them (the
// pointer) is written last, in one small transaction, which makes the snapshot whole or absent
// after a crash at any point. Chunks no row names (a crashed write's, a pruned snapshot's) are
// deleted a slice per turn after the next snapshot is in.
//
// Each step commits at synchronous=NORMAL (withoutFsync): atomic, but its commit does not wait for
// an fsync (10–25 ms on a busy disk, as long as the step itself several times over). A snapshot
// need not be durable the moment it is written: after a power cut without it, recovery starts from
// the one before and replays the (durable) journal. Its WAL frames become durable with the next
// sync of the WAL, an engine batch's (engine-store.ts commitBatch), since the WAL is written in
// order and recovered as a prefix; and the only thing that relies on a snapshot, deleting the
// journal before it (deleteJournalThrough), is a commit at FULL itself.

import type { Transaction } from "better-sqlite3";
import { JournalCorruptionError } from "../../engine/errors.js";
import { isPackedSnapshot, unpackStateBytes } from "../../engine/snapshot-packing.js";
import type { PackedStateSnapshot, StateSnapshot } from "../../engine/store.js";
import { type SnapshotHeaderRow, snapshotOf, snapshotsKeptMax } from "../engine-journal.js";
import type { SqliteDatabase } from "./database.js";
import { withoutFsync } from "./synchronous-normal.js";

/** Bytes in one snapshot chunk row: a 128 KiB blob is written in well under a millisecond. */
export const sqliteSnapshotChunkBytesDefault = 128 * 1024;
/** How long one step of a snapshot write may hold the event loop before it yields. */
export const sqliteSnapshotStepMsMax = 2;

/** A synchronous step of a snapshot save: a batch of chunks, the row naming them, a slice of the sweep. */
export type SnapshotStep = "chunks" | "pointer" | "sweep";

export interface SqliteSnapshotOptions {
  /** Bytes per snapshot chunk row; the crash simulation makes it small so a snapshot spans many writes. */
  readonly snapshotChunkBytes?: number;
  /** Told how long each step held the event loop: what a snapshot costs the hot path (bench:snapshot). */
  readonly onSnapshotStep?: (step: SnapshotStep, ms: number) => void;
  /**
   * The clock a step's time slice (sqliteSnapshotStepMsMax) is measured by, in ms: performance.now
   * by default. The crash simulation injects a counter, so that how a snapshot is split into steps
   * (and so its write boundaries) is the same in every run of a seed.
   */
  readonly stepClock?: () => number;
}

/**
 * How a snapshot row holds its state: `text` in its own `state` column (rows written before chunks
 * existed), or in `snapshot_chunks` rows as the text's UTF-8 bytes (`utf8`, a snapshot the engine
 * encoded inline) or packed (`brotli`, from the snapshot worker: snapshot-packing.ts).
 */
type SnapshotFormat = "text" | "utf8" | "brotli";

interface SnapshotRow extends SnapshotHeaderRow {
  state: string;
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

/** The statements of the snapshot tables, prepared once. Sequences and write ids read as bigint. */
function prepareSnapshotStatements(db: SqliteDatabase) {
  return {
    selectLatest: db
      .prepare<[], SnapshotRow>(
        `SELECT sequence, now_ms, state, hash, chain_hash, format, write_id, chunks, bytes
         FROM snapshots ORDER BY sequence DESC LIMIT 1`,
      )
      .safeIntegers(true),
    selectChunks: db
      .prepare<[bigint], ChunkRow>(
        "SELECT chunk, bytes FROM snapshot_chunks WHERE write_id = ? ORDER BY chunk",
      )
      .safeIntegers(true),
    selectNextWriteId: db
      .prepare<[], bigint>(
        `SELECT coalesce(max(id), 0) + 1 FROM (
           SELECT max(write_id) AS id FROM snapshot_chunks UNION ALL SELECT max(write_id) FROM snapshots)`,
      )
      .pluck()
      .safeIntegers(true),
    insertChunk: db.prepare<[bigint, number, Buffer]>(
      "INSERT INTO snapshot_chunks (write_id, chunk, bytes) VALUES (?, ?, ?)",
    ),
    deleteOrphanChunk: db.prepare(
      `DELETE FROM snapshot_chunks WHERE rowid IN (
         SELECT rowid FROM snapshot_chunks AS chunk
         WHERE NOT EXISTS (SELECT 1 FROM snapshots WHERE snapshots.write_id = chunk.write_id)
         LIMIT 1)`,
    ),
    countChunks: db.prepare<[bigint], { chunks: number; bytes: number }>(
      "SELECT count(*) AS chunks, coalesce(sum(length(bytes)), 0) AS bytes FROM snapshot_chunks WHERE write_id = ?",
    ),
    upsertPointer: db.prepare<
      [bigint, number, string, string | null, SnapshotFormat, bigint, number, number]
    >(
      `INSERT OR REPLACE INTO snapshots (sequence, now_ms, state, hash, chain_hash, format, write_id, chunks, bytes)
       VALUES (?, ?, '', ?, ?, ?, ?, ?, ?)`,
    ),
    pruneSnapshots: db.prepare<[number]>(
      "DELETE FROM snapshots WHERE sequence NOT IN (SELECT sequence FROM snapshots ORDER BY sequence DESC LIMIT ?)",
    ),
  };
}

type SnapshotStatements = ReturnType<typeof prepareSnapshotStatements>;

/** A snapshot's state as stored: its UTF-8 text, or packed by the snapshot worker. */
function bytesOf(snapshot: StateSnapshot | PackedStateSnapshot): Buffer {
  if (!isPackedSnapshot(snapshot)) return Buffer.from(snapshot.state, "utf8");
  const packed = snapshot.packedState;
  return Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
}

/** Snapshots in chunk rows behind a pointer row, written a step per turn (see the file's comment). */
export class SqliteSnapshotChunks {
  readonly #db: SqliteDatabase;
  readonly #statements: SnapshotStatements;
  readonly #chunkBytes: number;
  readonly #stepClock: () => number;
  readonly #onSnapshotStep: SqliteSnapshotOptions["onSnapshotStep"];
  readonly #writeChunks: Transaction<(write: ChunkedWrite, from: number, stepMsMax: number) => number>;
  readonly #writePointer: Transaction<(write: ChunkedWrite) => void>;
  readonly #sweep: Transaction<(stepMsMax: number) => boolean>;
  /** The save under way (or the last one), so saves run one after another. */
  #saving: Promise<void> = Promise.resolve();

  constructor(db: SqliteDatabase, options: SqliteSnapshotOptions = {}) {
    this.#chunkBytes = options.snapshotChunkBytes ?? sqliteSnapshotChunkBytesDefault;
    if (!Number.isSafeInteger(this.#chunkBytes) || this.#chunkBytes <= 0) {
      throw new RangeError("snapshotChunkBytes is a positive integer");
    }
    this.#db = db;
    this.#stepClock = options.stepClock ?? (() => performance.now());
    this.#onSnapshotStep = options.onSnapshotStep;
    this.#statements = prepareSnapshotStatements(db);
    this.#writeChunks = db.transaction((write: ChunkedWrite, from: number, stepMsMax: number) =>
      this.#insertChunks(write, from, stepMsMax),
    );
    this.#writePointer = db.transaction((write: ChunkedWrite) => this.#insertPointer(write));
    this.#sweep = db.transaction((stepMsMax: number) => this.#deleteOrphanChunks(stepMsMax));
  }

  load(): StateSnapshot | undefined {
    const row = this.#statements.selectLatest.get();
    if (row === undefined) return undefined;
    if (row.format === "text") return snapshotOf(row, row.state);
    const chunks = this.#statements.selectChunks.all(row.write_id!);
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
    return snapshotOf(row, text.toString("utf8"));
  }

  /**
   * Writes the chunks a step per turn of the event loop, then the row that names them, then deletes
   * the chunks no row names any more a slice per turn. Resolves once the snapshot is in: whole,
   * and durable with the next synced commit.
   */
  save(snapshot: StateSnapshot | PackedStateSnapshot): Promise<void> {
    const saved = this.#saving.then(() => this.#save(snapshot));
    this.#saving = saved.catch(() => {});
    return saved;
  }

  async #save(snapshot: StateSnapshot | PackedStateSnapshot): Promise<void> {
    const bytes = bytesOf(snapshot);
    const write: ChunkedWrite = {
      snapshot,
      format: isPackedSnapshot(snapshot) ? "brotli" : "utf8",
      bytes,
      writeId: this.#statements.selectNextWriteId.get()!,
      chunks: Math.ceil(bytes.length / this.#chunkBytes),
    };
    for (let chunk = 0; chunk < write.chunks; ) {
      chunk = this.#step("chunks", () => this.#writeChunks.immediate(write, chunk, sqliteSnapshotStepMsMax));
      await nextTurn();
    }
    this.#step("pointer", () => this.#writePointer.immediate(write));
    for (;;) {
      await nextTurn();
      const swept = this.#step("sweep", () => this.#sweep.immediate(sqliteSnapshotStepMsMax));
      if (swept) return;
    }
  }

  /** Chunk rows from `from` until the step's time is up or all are in; the next chunk to write. */
  #insertChunks(write: ChunkedWrite, from: number, stepMsMax: number): number {
    const startedMs = this.#stepClock();
    let chunk = from;
    do {
      const start = chunk * this.#chunkBytes;
      this.#statements.insertChunk.run(
        write.writeId,
        chunk,
        write.bytes.subarray(start, start + this.#chunkBytes),
      );
      chunk += 1;
    } while (chunk < write.chunks && this.#stepClock() - startedMs < stepMsMax);
    return chunk;
  }

  /** The row naming every chunk of the write, once they are all there; older snapshots pruned. */
  #insertPointer(write: ChunkedWrite): void {
    const written = this.#statements.countChunks.get(write.writeId)!;
    if (written.chunks !== write.chunks || written.bytes !== write.bytes.length) {
      throw new Error(
        `Snapshot at ${write.snapshot.sequence}: ${written.chunks} chunks of ${written.bytes} bytes written, expected ${write.chunks} of ${write.bytes.length}`,
      );
    }
    const { snapshot } = write;
    this.#statements.upsertPointer.run(
      snapshot.sequence,
      snapshot.nowMs,
      snapshot.hash,
      snapshot.chainHash ?? null,
      write.format,
      write.writeId,
      write.chunks,
      write.bytes.length,
    );
    this.#statements.pruneSnapshots.run(snapshotsKeptMax);
  }

  /**
   * One chunk row at a time (freeing its overflow pages reads each of them) until the step's time
   * is up; true once no chunk is left that no snapshot row names.
   */
  #deleteOrphanChunks(stepMsMax: number): boolean {
    const startedMs = this.#stepClock();
    do {
      if (this.#statements.deleteOrphanChunk.run().changes === 0) return true;
    } while (this.#stepClock() - startedMs < stepMsMax);
    return false;
  }

  /** A step's transaction (IMMEDIATE: the write lock up front), without an fsync, timed if asked. */
  #step<T>(step: SnapshotStep, work: () => T): T {
    const run = () => withoutFsync(this.#db, work);
    if (this.#onSnapshotStep === undefined) return run();
    const startedMs = performance.now();
    const result = run();
    this.#onSnapshotStep(step, performance.now() - startedMs);
    return result;
  }
}
