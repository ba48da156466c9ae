// The engine's port to durable storage. The engine is written against this interface only, so an
// embedded SQLite file, a PostgreSQL server or a fault-injecting in-memory store can sit behind it
// (TigerBeetle builds its replica over a Storage type the same way). Every method is
// Promise-based so an adapter with asynchronous I/O fits; a synchronous adapter simply resolves.

/** One accepted command as the journal keeps it: what was asked, when, and what it caused. */
export interface JournalEntry<Command, Event> {
  /** 1, 2, 3, … with no gaps: the journal is the total order of accepted commands. */
  readonly sequence: bigint;
  /** The commit time the decider saw, in milliseconds since the Unix epoch; never decreases. */
  readonly nowMs: number;
  readonly command: Command;
  readonly events: readonly Event[];
  /**
   * The chain hash of the entry before (journal-chain.ts); null where the chain starts (sequence
   * 1, or the first entry after a journal written before the chain). Absent, with `hash`, on
   * entries written before the chain.
   */
  readonly prevHash?: string | null;
  /** sha256 over the chain's version, `prevHash` and this entry's canonical encoding (hex). */
  readonly hash?: string;
}

/** The encoded state after `sequence` commands, so recovery replays only the journal after it. */
export interface StateSnapshot {
  readonly sequence: bigint;
  /** nowMs of the entry at `sequence`, so the clock floor survives a restart. */
  readonly nowMs: number;
  /** The StateCodec's canonical encoding. */
  readonly state: string;
  /** sha256 of `state` in hex, to detect a torn or corrupted snapshot. */
  readonly hash: string;
  /** The journal's chain hash at `sequence` (journal-chain.ts); null or absent when none is known. */
  readonly chainHash?: string | null;
}

/**
 * A snapshot as the snapshot worker hands it over: the encoding packed (UTF-8, brotli;
 * snapshot-packing.ts) into a buffer that crossed threads without a copy. A store keeps it packed
 * or unpacks it; loadLatestSnapshot always gives back the text.
 */
export interface PackedStateSnapshot {
  readonly sequence: bigint;
  readonly nowMs: number;
  readonly packedState: Uint8Array;
  /** sha256 of the unpacked text in hex, as StateSnapshot.hash. */
  readonly hash: string;
  /** As StateSnapshot.chainHash. */
  readonly chainHash?: string | null;
}

/**
 * Updates read models from a committed batch, inside the same transaction as the journal write:
 * either both are durable or neither is. `Transaction` is what the adapter hands out (the
 * better-sqlite3 handle for SQLite, a pooled client inside BEGIN for PostgreSQL), so projectors are
 * written per adapter. A projector throwing aborts the whole commit, which stops the engine.
 * Synchronous adapters (SQLite) refuse a projector that returns a Promise.
 */
export type Projector<Transaction, Command, Event> = (
  transaction: Transaction,
  entries: readonly JournalEntry<Command, Event>[],
) => void | Promise<void>;

export interface EngineStore<Command, Event, Transaction> {
  /** Sequence of the last journaled entry, 0n when the journal is empty. */
  lastSequence(): Promise<bigint>;
  /** Journal entries with sequence > afterSequence, in order, a bounded batch at a time. */
  readJournal(afterSequence: bigint): AsyncIterable<readonly JournalEntry<Command, Event>[]>;
  /**
   * Appends entries and runs the projectors in one atomic, durable transaction. The entries must
   * continue the journal exactly (first sequence = lastSequence() + 1, then +1 each); an adapter
   * refuses anything else, which also stops a second writer that has diverged.
   */
  commitBatch(
    entries: readonly JournalEntry<Command, Event>[],
    projectors: readonly Projector<Transaction, Command, Event>[],
  ): Promise<void>;
  /**
   * True when every commitBatch waits on I/O (a database over the network), so the event loop has
   * turned, with every socket served, by the time a commit resolves. The engine then starts the
   * next batch at once instead of yielding a turn first (see Engine.#scheduleDrain).
   */
  readonly commitsWaitOnIo?: boolean;
  /**
   * How many commitBatch calls may be pending at once (1 when absent). A store that takes more
   * commits them strictly in call order, each atomically, and a batch behind one that failed cannot
   * land (it does not continue the journal); the engine decides the next batch on top of one still
   * committing, hands it over, finishes batches in order, and stops on the first failure.
   */
  readonly commitsInFlightMax?: number;
  /** The snapshot with the highest sequence, if any. */
  loadLatestSnapshot(): Promise<StateSnapshot | undefined>;
  /**
   * Writes a snapshot atomically: recovery sees it whole or not at all, even after a crash in the
   * middle. Older snapshots may be pruned. The engine's commits may run while a save is under way
   * (the SQLite store writes a large one in small steps, one per turn of the event loop); a store
   * runs its saves one after another.
   */
  saveSnapshot(snapshot: StateSnapshot | PackedStateSnapshot): Promise<void>;
  /**
   * Optional, for stores whose journal can be archived (src/engine/journal-archive.ts): deletes the
   * journal entries with sequence ≤ `sequence`, after the archiver has written them durably
   * elsewhere. An adapter refuses to delete past the latest snapshot or the last entry, so recovery
   * (latest snapshot + the journal after it) never needs an archived entry.
   */
  deleteJournalThrough?(sequence: bigint): Promise<void>;
  /** Optional, with deleteJournalThrough: the first entry's sequence still in the journal (lastSequence() + 1 when empty). */
  firstSequence?(): Promise<bigint>;
}

/** Whatever hands out journal entries in order: a store, or the archive followed by a store. */
export interface JournalSource<Command, Event> {
  readJournal(afterSequence: bigint): AsyncIterable<readonly JournalEntry<Command, Event>[]>;
}
