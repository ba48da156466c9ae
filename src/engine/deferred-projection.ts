// Read models projected behind the journal (issue #31), as exchange-core and LMAX build theirs
// downstream of the matching thread: a command is acknowledged once its journal entry is durable,
// and the read models catch up afterwards, many commits at a time, in transactions of their own.
//
// - Entries come from the engine's committed batches (onCommitted), in journal order, before any
//   submitter of that batch is answered; they wait here until a step projects them.
// - A step projects up to stepEntriesMax entries in one transaction of the target, which records
//   the last sequence it holds in the same transaction: after a crash at any point the read models
//   are whole as of that sequence, and open() projects the journal from there.
// - A step runs at once (next turn of the event loop) when stepEntriesMin entries wait, otherwise
//   delayMs after the first one arrived, so a quiet platform's read models are current within
//   delayMs and a busy one's are projected in bulk.
// - Read-your-writes: whatever reads a read model calls catchUp() first, which projects every
//   entry waiting (synchronously: the target is a synchronous store), so a read that follows an
//   acknowledged command sees it, as the read in the same transaction used to.
// - A step that throws (the disk is full, a bug) stops the projection for good: reads then throw
//   ProjectionStoppedError and onFatal asks the host to exit; the next start projects from the
//   recorded sequence again. The journal, not the read models, is the truth, so nothing is lost.

import { assert, EngineStoppedError } from "./errors.js";
import type { JournalEntry, JournalSource } from "./store.js";

/** Where the read models are written: one atomic transaction per step, synchronously. */
export interface ProjectionTarget<Command, Event> {
  /** The last journal sequence the read models hold (0n when they hold none). */
  projectedSequence(): bigint;
  /**
   * Projects `entries` (continuing projectedSequence() exactly, one after another) and records the
   * last one's sequence, in one transaction: either all of it is in or none of it.
   */
  project(entries: readonly JournalEntry<Command, Event>[]): void;
}

export interface DeferredProjectionLimits {
  /** Entries projected in one transaction (one step) at most. */
  readonly stepEntriesMax: number;
  /** Entries waiting that make a step run at the next turn of the event loop instead of after delayMs. */
  readonly stepEntriesMin: number;
  /** How long an entry waits at most, when nothing reads, before a step projects it. */
  readonly delayMs: number;
}

/**
 * A step starts at the next turn once 128 entries wait (under load, every four or five engine
 * batches): in process, steps of 128–256 entries cost 15–20% less CPU per order than projecting in
 * each journal commit, and hold the event loop for a few milliseconds (docs/performance.md, issue
 * #31); steps of 64 save less, steps of 1,024 a little more but hold the loop for tens of
 * milliseconds, which a p99 of 20 ms cannot afford. 10 ms: a reader never waits for a step
 * (catchUp projects at once); this only bounds how stale an unread read model gets, and how much a
 * crash leaves to project at the next start.
 */
export const defaultDeferredProjectionLimits: DeferredProjectionLimits = {
  stepEntriesMax: 256,
  stepEntriesMin: 128,
  delayMs: 10,
};

/**
 * The projection stopped after a failed step; nothing reads the read models until a restart. A
 * kind of EngineStoppedError: the surfaces answer "nothing was done, try again later".
 */
export class ProjectionStoppedError extends EngineStoppedError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ProjectionStoppedError";
  }
}

export interface DeferredProjectionOptions<Command, Event> {
  readonly target: ProjectionTarget<Command, Event>;
  /** Where open() reads the entries the read models miss (the store, or archive + store). */
  readonly journal: JournalSource<Command, Event>;
  /** The journal's last sequence: open() projects up to it. */
  readonly committedSequence: bigint;
  readonly limits?: Partial<DeferredProjectionLimits>;
  /** Called once when a step failed: the host should exit (and project again at the next start). */
  readonly onFatal: (error: ProjectionStoppedError) => void;
  /** Tells how long each step took, for the metrics and the benches; absent, no timer is read. */
  readonly onStep?: (entries: number, ms: number) => void;
  /**
   * "scheduled" (the default): steps run by themselves (stepEntriesMin, delayMs). "on-demand": only
   * catchUp() projects, so a test decides where every step falls (the crash simulation).
   */
  readonly steps?: "scheduled" | "on-demand";
}

export class DeferredProjection<Command, Event> {
  readonly #target: ProjectionTarget<Command, Event>;
  readonly #limits: DeferredProjectionLimits;
  readonly #onFatal: (error: ProjectionStoppedError) => void;
  readonly #onStep: ((entries: number, ms: number) => void) | undefined;
  readonly #scheduled: boolean;
  /** Committed entries not projected yet, oldest first, continuing #projectedSequence. */
  #pending: JournalEntry<Command, Event>[] = [];
  #projectedSequence: bigint;
  /** The last sequence handed over (projected or pending). */
  #receivedSequence: bigint;
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #failure: ProjectionStoppedError | undefined;
  #closed = false;

  /** Projects the journal entries the read models miss (after a crash, or an upgrade), then follows. */
  static async open<Command, Event>(
    options: DeferredProjectionOptions<Command, Event>,
  ): Promise<DeferredProjection<Command, Event>> {
    const projection = new DeferredProjection(options);
    const from = projection.#projectedSequence;
    assert(
      from <= options.committedSequence,
      `the read models (at ${from}) are not ahead of the journal (at ${options.committedSequence})`,
    );
    if (from === options.committedSequence) return projection;
    let expected = from + 1n;
    read: for await (const batch of options.journal.readJournal(from)) {
      for (const entry of batch) {
        if (entry.sequence > options.committedSequence) break read;
        assert(
          entry.sequence === expected,
          `journal entry ${expected} is there to project (found ${entry.sequence})`,
        );
        projection.#pending.push(entry);
        expected += 1n;
        if (projection.#pending.length >= projection.#limits.stepEntriesMax) projection.#step();
      }
    }
    assert(
      expected === options.committedSequence + 1n,
      `the journal holds every entry up to ${options.committedSequence} to project (it ends at ${expected - 1n})`,
    );
    projection.#receivedSequence = options.committedSequence;
    projection.catchUp();
    return projection;
  }

  private constructor(options: DeferredProjectionOptions<Command, Event>) {
    this.#target = options.target;
    this.#limits = { ...defaultDeferredProjectionLimits, ...options.limits };
    for (const [name, value] of Object.entries(this.#limits)) {
      assert(
        Number.isSafeInteger(value) && value >= 0,
        `deferred projection limit ${name} is a whole number`,
      );
    }
    assert(this.#limits.stepEntriesMax > 0, "stepEntriesMax is positive");
    this.#onFatal = options.onFatal;
    this.#onStep = options.onStep;
    this.#scheduled = options.steps !== "on-demand";
    this.#projectedSequence = this.#target.projectedSequence();
    this.#receivedSequence = this.#projectedSequence;
  }

  /** The last sequence the read models hold. */
  get projectedSequence(): bigint {
    return this.#projectedSequence;
  }

  /** Committed entries not projected yet. */
  get pendingEntries(): number {
    return this.#pending.length;
  }

  get failure(): ProjectionStoppedError | undefined {
    return this.#failure;
  }

  /**
   * Takes a committed batch (the engine's onCommitted, before its submitters are answered). Entries
   * the read models already hold are skipped; anything else must continue the journal exactly.
   */
  committed(entries: readonly JournalEntry<Command, Event>[]): void {
    if (this.#failure !== undefined || entries.length === 0) return;
    for (const entry of entries) {
      if (entry.sequence <= this.#receivedSequence) continue;
      assert(
        entry.sequence === this.#receivedSequence + 1n,
        `committed entries reach the projection in order (expected ${this.#receivedSequence + 1n}, got ${entry.sequence})`,
      );
      this.#pending.push(entry);
      this.#receivedSequence = entry.sequence;
    }
    this.#schedule();
  }

  /**
   * Projects everything committed so far, now: call it before reading a read model. Throws
   * ProjectionStoppedError once a step has failed.
   */
  catchUp(): void {
    if (this.#failure !== undefined) throw this.#failure;
    while (this.#pending.length > 0) {
      this.#step();
      if (this.#failure !== undefined) throw this.#failure;
    }
    this.#cancelSchedule();
  }

  /** Projects what is pending and stops following (the engine has committed its last batch). */
  close(): void {
    this.#closed = true;
    this.#cancelSchedule();
    if (this.#failure === undefined) this.catchUp();
  }

  #schedule(): void {
    if (!this.#scheduled || this.#closed || this.#pending.length === 0 || this.#immediate !== undefined)
      return;
    if (this.#pending.length >= this.#limits.stepEntriesMin) {
      if (this.#timer !== undefined) clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#immediate = setImmediate(() => {
        this.#immediate = undefined;
        this.#step();
        this.#schedule();
      });
      return;
    }
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#step();
      this.#schedule();
    }, this.#limits.delayMs);
  }

  #cancelSchedule(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    this.#timer = undefined;
    this.#immediate = undefined;
  }

  /** Projects the oldest pending entries, up to stepEntriesMax, in one transaction of the target. */
  #step(): void {
    if (this.#failure !== undefined || this.#pending.length === 0) return;
    const count = Math.min(this.#pending.length, this.#limits.stepEntriesMax);
    const entries = this.#pending.slice(0, count);
    const startedMs = this.#onStep === undefined ? 0 : performance.now();
    try {
      this.#target.project(entries);
    } catch (error) {
      this.#fail(error);
      return;
    }
    this.#pending = this.#pending.slice(count);
    this.#projectedSequence = entries.at(-1)!.sequence;
    this.#onStep?.(count, performance.now() - startedMs);
  }

  #fail(cause: unknown): void {
    this.#failure = new ProjectionStoppedError(
      `The read models stopped at sequence ${this.#projectedSequence}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.#pending = [];
    this.#cancelSchedule();
    this.#onFatal(this.#failure);
  }
}
