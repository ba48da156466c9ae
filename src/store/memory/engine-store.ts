// An in-memory EngineStore with injected faults, after TigerBeetle's testing storage: tests crash the
// engine between any two writes and recover from what was durably written. Entries and snapshots
// are kept as the same JSON text the SQLite adapter writes, so a codec that loses information fails
// here too, and nothing the engine holds in memory can alias "disk".

import { decodeJournalRow } from "../../engine/journal-chain.js";
import { unpackSnapshot } from "../../engine/snapshot-packing.js";
import type {
  EngineStore,
  JournalEntry,
  PackedStateSnapshot,
  Projector,
  StateSnapshot,
} from "../../engine/store.js";
import { assertContinuesJournal, type JournalRowValues, journalRowValuesOf } from "../engine-journal.js";

/** Entries handed out per step of readJournal. */
export const memoryJournalReadBatchEntriesMax = 512;

/** What projectors get from the memory store: a key-value read model, staged until the commit. */
export interface MemoryTransaction {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  delete(key: string): void;
}

/**
 * Hooks at each write boundary; throw (or return a rejected Promise) to inject a fault. Numbers
 * count calls on this store instance from 1.
 */
export interface MemoryStoreFaults<Command, Event> {
  /** Before anything of the commit is written: throwing loses the whole batch. */
  beforeCommit?(commitNumber: number, entries: readonly JournalEntry<Command, Event>[]): void | Promise<void>;
  /** After the batch is durable: throwing models a crash that loses only the acknowledgement. */
  afterCommit?(commitNumber: number, entries: readonly JournalEntry<Command, Event>[]): void | Promise<void>;
  /** Before a snapshot is written: throwing loses the snapshot. */
  beforeSnapshot?(snapshotNumber: number, snapshot: StateSnapshot): void | Promise<void>;
}

/** An entry as a journal row holds it: its encoded texts, as the SQL stores keep them. */
type StoredEntry = JournalRowValues;

/** Everything that would survive a power cut. */
export interface DurableImage {
  readonly journal: StoredEntry[];
  readonly snapshots: StateSnapshot[];
  readonly readModels: Map<string, unknown>;
}

export interface MemoryEngineStoreOptions<Command, Event> {
  readonly faults?: MemoryStoreFaults<Command, Event>;
  readonly snapshotsKeptMax?: number;
}

export class MemoryEngineStore<Command, Event> implements EngineStore<Command, Event, MemoryTransaction> {
  readonly #image: DurableImage;
  readonly #faults: MemoryStoreFaults<Command, Event>;
  readonly #snapshotsKeptMax: number;
  #crashed = false;
  #commitCount = 0;
  #snapshotCount = 0;

  constructor(options: MemoryEngineStoreOptions<Command, Event> = {}, image?: DurableImage) {
    this.#faults = options.faults ?? {};
    this.#snapshotsKeptMax = options.snapshotsKeptMax ?? 2;
    this.#image = image ?? { journal: [], snapshots: [], readModels: new Map() };
  }

  /** commitBatch calls so far, including failed ones. */
  get commitCount(): number {
    return this.#commitCount;
  }

  get snapshotCount(): number {
    return this.#snapshotCount;
  }

  /**
   * Simulates the process dying: this instance refuses every further call (an in-flight write never
   * lands), and the returned store sees only what was durable, with new faults (none by default).
   */
  crash(options: MemoryEngineStoreOptions<Command, Event> = {}): MemoryEngineStore<Command, Event> {
    this.#crashed = true;
    const image: DurableImage = {
      journal: [...this.#image.journal],
      snapshots: [...this.#image.snapshots],
      readModels: new Map(this.#image.readModels),
    };
    return new MemoryEngineStore(options, image);
  }

  /** The durable data itself, for tests that inspect or tamper with it. */
  get durableImage(): DurableImage {
    return this.#image;
  }

  /** A committed read-model value. */
  readModel(key: string): unknown {
    return structuredClone(this.#image.readModels.get(key));
  }

  async lastSequence(): Promise<bigint> {
    this.#assertAlive();
    return this.#image.journal.at(-1)?.sequence ?? 0n;
  }

  async *readJournal(afterSequence: bigint): AsyncIterable<readonly JournalEntry<Command, Event>[]> {
    this.#assertAlive();
    // The journal is contiguous from its first entry (1 until entries are archived), so entry n
    // sits at index n - first.
    const first = this.#image.journal[0]?.sequence ?? 1n;
    let index = Number(afterSequence + 1n < first ? 0n : afterSequence + 1n - first);
    while (index < this.#image.journal.length) {
      const stored = this.#image.journal.slice(index, index + memoryJournalReadBatchEntriesMax);
      index += stored.length;
      yield stored.map((entry) => decodeJournalRow<Command, Event>(entry));
      this.#assertAlive();
    }
  }

  async commitBatch(
    entries: readonly JournalEntry<Command, Event>[],
    projectors: readonly Projector<MemoryTransaction, Command, Event>[],
  ): Promise<void> {
    this.#assertAlive();
    const commitNumber = ++this.#commitCount;
    await this.#faults.beforeCommit?.(commitNumber, entries);
    this.#assertAlive();
    assertContinuesJournal(this.#image.journal.at(-1)?.sequence ?? 0n, entries);
    const stored = entries.map(journalRowValuesOf);
    const staged = new StagedReadModels(this.#image.readModels);
    for (const projector of projectors) await projector(staged, entries);
    // Nothing above touched the image, so a crash or a throw until here leaves it as it was.
    this.#assertAlive();
    this.#image.journal.push(...stored);
    staged.apply();
    await this.#faults.afterCommit?.(commitNumber, entries);
  }

  async loadLatestSnapshot(): Promise<StateSnapshot | undefined> {
    this.#assertAlive();
    return this.#image.snapshots.at(-1);
  }

  async saveSnapshot(saved: StateSnapshot | PackedStateSnapshot): Promise<void> {
    this.#assertAlive();
    // Kept as text: this store is for tests, where the snapshot's bytes are no burden.
    const snapshot = unpackSnapshot(saved);
    const snapshotNumber = ++this.#snapshotCount;
    await this.#faults.beforeSnapshot?.(snapshotNumber, snapshot);
    this.#assertAlive();
    const snapshots = this.#image.snapshots.filter((kept) => kept.sequence !== snapshot.sequence);
    snapshots.push({ ...snapshot });
    snapshots.sort((a, b) => (a.sequence < b.sequence ? -1 : a.sequence > b.sequence ? 1 : 0));
    this.#image.snapshots.splice(
      0,
      this.#image.snapshots.length,
      ...snapshots.slice(-this.#snapshotsKeptMax),
    );
  }

  async deleteJournalThrough(sequence: bigint): Promise<void> {
    this.#assertAlive();
    const last = this.#image.journal.at(-1)?.sequence ?? 0n;
    const snapshot = this.#image.snapshots.at(-1);
    if (sequence >= last || snapshot === undefined || sequence > snapshot.sequence) {
      throw new Error(`Journal entries through ${sequence} are still needed`);
    }
    const first = this.#image.journal[0]?.sequence ?? 1n;
    if (sequence >= first) this.#image.journal.splice(0, Number(sequence - first + 1n));
  }

  async firstSequence(): Promise<bigint> {
    this.#assertAlive();
    return this.#image.journal[0]?.sequence ?? 1n;
  }

  #assertAlive(): void {
    if (this.#crashed) throw new Error("This store instance has crashed");
  }
}

class StagedReadModels implements MemoryTransaction {
  readonly #changes = new Map<string, { value: unknown } | undefined>();

  constructor(readonly committed: Map<string, unknown>) {}

  get(key: string): unknown {
    const change = this.#changes.get(key);
    if (this.#changes.has(key)) return structuredClone(change?.value);
    return structuredClone(this.committed.get(key));
  }

  set(key: string, value: unknown): void {
    this.#changes.set(key, { value: structuredClone(value) });
  }

  delete(key: string): void {
    this.#changes.set(key, undefined);
  }

  apply(): void {
    for (const [key, change] of this.#changes) {
      if (change === undefined) this.committed.delete(key);
      else this.committed.set(key, change.value);
    }
  }
}
