// The single writer. Commands queue up; the engine takes them in order, a batch at a time (group
// commit, as exchange-core flushes its journal at the end of a batch): each command is decided and
// its events evolved into memory, then the batch's accepted entries are journaled and projected into
// read models in one store transaction, and only after that commit are the submitters answered.
// A failed write leaves memory ahead of disk, so the engine stops for good and the host restarts
// from the journal; it never serves diverged state.

import type { Decider, StateCodec } from "../core/decider.js";
import type { Rejection } from "../core/errors.js";
import { BoundedQueue } from "./bounded-queue.js";
import { assert, EngineFatalError, EngineOverloadedError, EngineStoppedError } from "./errors.js";
import { chainEntry } from "./journal-chain.js";
import {
  makeSnapshot,
  type RecoveredState,
  type ReplayVerification,
  recoverState,
  verifyReplayAgainst,
} from "./recovery.js";
import { SnapshotWorker, type SnapshotWorkerCore } from "./snapshot-worker.js";
import type {
  EngineStore,
  JournalEntry,
  JournalSource,
  PackedStateSnapshot,
  Projector,
  StateSnapshot,
} from "./store.js";

export interface EngineLimits {
  /** Commands waiting to be sequenced; one more is refused with EngineOverloadedError. */
  readonly queueCommandsMax: number;
  /** Commands decided and committed together in one store transaction. */
  readonly journalBatchCommandsMax: number;
  /** Reads waiting for an in-flight commit; one more is refused with EngineOverloadedError. */
  readonly readersWaitingMax: number;
  /** A snapshot is written after this many committed commands (and on close). */
  readonly snapshotEveryCommands: number;
}

export const defaultEngineLimits: EngineLimits = {
  queueCommandsMax: 10_000,
  journalBatchCommandsMax: 256,
  readersWaitingMax: 10_000,
  snapshotEveryCommands: 10_000,
};

export type SubmitResult<Event> =
  | {
      readonly ok: true;
      readonly sequence: bigint;
      readonly nowMs: number;
      readonly events: readonly Event[];
    }
  | { readonly ok: false; readonly rejection: Rejection };

/** Where the state a reader sees stands in the journal. */
export interface StatePosition {
  /** The last committed command folded into the state (0n before the first). */
  readonly sequence: bigint;
  /** Its commit time. */
  readonly nowMs: number;
}

export type CommittedListener<Command, Event> = (entries: readonly JournalEntry<Command, Event>[]) => void;

export type EnginePhase = "running" | "closing" | "closed" | "failed";

/** One turn of the event loop (setImmediate): I/O callbacks run before the promise resolves. */
function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

export interface EngineOptions<State, Command, Event, Transaction> {
  readonly decider: Decider<State, Command, Event>;
  readonly codec: StateCodec<State>;
  readonly store: EngineStore<Command, Event, Transaction>;
  /** Read-model updates run inside each commit's transaction, in this order. */
  readonly projectors?: readonly Projector<Transaction, Command, Event>[];
  /** Milliseconds since the Unix epoch, an integer. The engine never lets commit time go backwards. */
  readonly clock?: () => number;
  readonly limits?: Partial<EngineLimits>;
  /** Called once when the engine stops after a failed write or a broken invariant. The host should exit. */
  readonly onFatal: (error: EngineFatalError) => void;
  /**
   * Throws if the state breaks the core's invariants (the core's assertInvariants). Run on the state
   * recovery rebuilt, before the engine takes a command: replay must never start serving bad state.
   */
  readonly assertState?: (state: Readonly<State>) => void;
  /**
   * Where verifyReplay reads the whole journal from sequence 1: the store (the default), or the
   * journal archive followed by the store once old entries are archived (journal-archive.ts).
   */
  readonly journalHistory?: JournalSource<Command, Event>;
  /**
   * Encode snapshots on a worker thread that keeps its own copy of the state (snapshot-worker.ts),
   * so a large state's snapshot never stalls the event loop. Without it they are encoded inline.
   */
  readonly snapshotWorker?: SnapshotWorkerCore;
  /** Problems that do not stop the engine: a failed periodic snapshot, a throwing listener. */
  readonly onError?: (error: unknown, context: "snapshot" | "listener") => void;
  /**
   * State already rebuilt from this store's snapshot and journal (a warm standby taking over), used
   * instead of recovering again; it must be at the journal's end.
   */
  readonly startFrom?: RecoveredState<State>;
  /** Timings for the operator's metrics (src/metrics); absent, the engine reads no timer at all. */
  readonly observer?: EngineObserver;
}

/** What the engine reports about its own work, after the fact. */
export interface EngineObserver {
  /** A batch committed: commands taken from the queue, entries journaled, the store's commit time. */
  batchCommitted(commands: number, entries: number, commitSeconds: number): void;
  /** A snapshot was encoded and written, taking this long. */
  snapshotSaved(seconds: number): void;
}

interface PendingCommand<Command, Event> {
  readonly command: Command;
  /**
   * Commands of its group from this one to the group's end (1 for a command submitted alone): a
   * group submitted together (submitMany) is decided in one batch when it fits in one.
   */
  readonly groupRest: number;
  readonly resolve: (result: SubmitResult<Event>) => void;
  readonly reject: (error: Error) => void;
}

/** A batch decided into memory whose store commit has not been finished yet (oldest first). */
interface InFlightBatch<Command, Event> {
  readonly batch: readonly PendingCommand<Command, Event>[];
  readonly entries: readonly JournalEntry<Command, Event>[];
  readonly results: readonly SubmitResult<Event>[];
  /** The last sequence decided in it (the one before it when every command was refused). */
  readonly sequence: bigint;
  /** The journal's chain hash at `sequence`. */
  readonly chainHash: string | null;
  readonly nowMs: number;
  readonly startedMs: number;
  /** Resolves (never rejects) once the store's commit has settled; then `settled` and `error` say how. */
  readonly done: Promise<void>;
  settled: boolean;
  error: unknown;
}

interface WaitingReader {
  readonly run: () => void;
  readonly reject: (error: Error) => void;
}

export class Engine<State, Command, Event, Transaction = unknown> {
  readonly #decider: Decider<State, Command, Event>;
  readonly #codec: StateCodec<State>;
  readonly #store: EngineStore<Command, Event, Transaction>;
  readonly #journalHistory: JournalSource<Command, Event>;
  readonly #projectors: readonly Projector<Transaction, Command, Event>[];
  readonly #clock: () => number;
  readonly #limits: EngineLimits;
  readonly #onFatal: (error: EngineFatalError) => void;
  readonly #onError: (error: unknown, context: "snapshot" | "listener") => void;
  readonly #observer: EngineObserver | undefined;

  readonly #queue: BoundedQueue<PendingCommand<Command, Event>>;
  readonly #listeners = new Set<CommittedListener<Command, Event>>();
  #waitingReaders: WaitingReader[] = [];
  /** Batches committing, oldest first: at most the store's commitsInFlightMax (1 unless it pipelines). */
  #pipeline: InFlightBatch<Command, Event>[] = [];
  readonly #commitsInFlightMax: number;
  /** The batch being decided (taken from the queue, not in the pipeline yet). */
  #deciding: readonly PendingCommand<Command, Event>[] = [];
  /** Wakes a drain loop that waits for its oldest commit when a command arrives (submit). */
  #wakeOnArrival: (() => void) | undefined;

  #state: State;
  #committedSequence: bigint;
  /** The last sequence decided into memory: ahead of the committed one while batches commit. */
  #decidedSequence: bigint;
  /** The chain hash at #decidedSequence, which the next entry links to (journal-chain.ts). */
  #decidedChainHash: string | null;
  /** The chain hash at #committedSequence, which a snapshot records. */
  #committedChainHash: string | null;
  #committedNowMs: number;
  /** Highest nowMs handed to the decider; the next batch never gets less. */
  #nowMsFloor: number;
  #snapshotSequence: bigint;
  #snapshotAttemptSequence: bigint;
  #phase: EnginePhase = "running";
  #failure: EngineFatalError | undefined;
  /** The running drain loop, if any; at most one exists. */
  #loop: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  readonly #snapshotWorker: SnapshotWorker | undefined;
  /** A snapshot being made (on the worker, or encoded inline) and written, if any; at most one at a time. */
  #snapshotInFlight: Promise<void> | undefined;

  /** Recovers state from the store (latest snapshot + journal) and starts taking commands. */
  static async open<State, Command, Event, Transaction>(
    options: EngineOptions<State, Command, Event, Transaction>,
  ): Promise<Engine<State, Command, Event, Transaction>> {
    const recovered =
      options.startFrom ?? (await recoverState(options.decider, options.codec, options.store));
    if (options.startFrom !== undefined) {
      const end = await options.store.lastSequence();
      assert(recovered.sequence === end, `the state handed to the engine is at the journal's end (${end})`);
    }
    options.assertState?.(recovered.state);
    const engine = new Engine(options, recovered);
    await engine.#maybeSnapshot();
    return engine;
  }

  private constructor(
    options: EngineOptions<State, Command, Event, Transaction>,
    recovered: RecoveredState<State>,
  ) {
    this.#decider = options.decider;
    this.#codec = options.codec;
    this.#store = options.store;
    this.#journalHistory = options.journalHistory ?? options.store;
    this.#projectors = options.projectors ?? [];
    this.#clock = options.clock ?? Date.now;
    this.#limits = { ...defaultEngineLimits, ...options.limits };
    this.#onFatal = options.onFatal;
    this.#onError = options.onError ?? ((error, context) => console.error(`engine ${context} error`, error));
    this.#observer = options.observer;
    for (const [name, value] of Object.entries(this.#limits)) {
      assert(Number.isSafeInteger(value) && value > 0, `engine limit ${name} is a positive integer`);
    }
    this.#queue = new BoundedQueue(this.#limits.queueCommandsMax);
    this.#state = recovered.state;
    this.#committedSequence = recovered.sequence;
    this.#decidedSequence = recovered.sequence;
    this.#decidedChainHash = recovered.chainHash;
    this.#committedChainHash = recovered.chainHash;
    this.#commitsInFlightMax = options.store.commitsInFlightMax ?? 1;
    assert(
      Number.isSafeInteger(this.#commitsInFlightMax) && this.#commitsInFlightMax >= 1,
      "a store's commitsInFlightMax is a positive integer",
    );
    this.#committedNowMs = recovered.nowMs;
    this.#nowMsFloor = recovered.nowMs;
    this.#snapshotSequence = recovered.snapshotSequence;
    this.#snapshotAttemptSequence = recovered.snapshotSequence;
    this.#snapshotWorker =
      options.snapshotWorker === undefined
        ? undefined
        : new SnapshotWorker(options.snapshotWorker, {
            encodedState: options.codec.encode(recovered.state),
            sequence: recovered.sequence,
            nowMs: recovered.nowMs,
          });
  }

  get phase(): EnginePhase {
    return this.#phase;
  }

  /** The error that stopped the engine, if it failed. */
  get failure(): EngineFatalError | undefined {
    return this.#failure;
  }

  /** The last command that is durable in the journal. */
  get committedSequence(): bigint {
    return this.#committedSequence;
  }

  /** The journal's chain hash at committedSequence (journal-chain.ts); null when none is known. */
  get chainHash(): string | null {
    return this.#committedChainHash;
  }

  /** The sequence of the last snapshot written (0n if none): the journal before it may be archived. */
  get snapshotSequence(): bigint {
    return this.#snapshotSequence;
  }

  get queuedCommands(): number {
    return this.#queue.length;
  }

  /**
   * Queues a command. Resolves after the batch holding it has committed: with the events and the
   * journal sequence if accepted, with the rejection if refused (a refused command changes nothing
   * and is not journaled). Rejects with EngineOverloadedError when the queue is full and with
   * EngineStoppedError / EngineFatalError when the engine is closing or has failed.
   */
  submit(command: Command): Promise<SubmitResult<Event>> {
    if (this.#phase !== "running") return Promise.reject(this.#stoppedError());
    if (this.#queue.isFull) {
      return Promise.reject(new EngineOverloadedError("queueCommandsMax", this.#limits.queueCommandsMax));
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ command, groupRest: 1, resolve, reject });
      this.#scheduleDrain();
      this.#wakeOnArrival?.();
    });
  }

  /**
   * Queues several commands together, all or none: when the queue has no room for every one of them
   * it rejects with EngineOverloadedError and queues nothing. They are decided in order, one after
   * the other with nothing in between, and in one batch (one commit time, one store transaction)
   * when there are at most journalBatchCommandsMax of them; a larger group fills consecutive
   * batches. Each is still its own command: its own decision, journal entry and result, in order.
   */
  submitMany(commands: readonly Command[]): Promise<SubmitResult<Event>[]> {
    if (this.#phase !== "running") return Promise.reject(this.#stoppedError());
    if (commands.length === 0) return Promise.resolve([]);
    if (!this.#queue.hasRoomFor(commands.length)) {
      return Promise.reject(new EngineOverloadedError("queueCommandsMax", this.#limits.queueCommandsMax));
    }
    const answers = commands.map(
      (command, index) =>
        new Promise<SubmitResult<Event>>((resolve, reject) => {
          this.#queue.push({ command, groupRest: commands.length - index, resolve, reject });
        }),
    );
    this.#scheduleDrain();
    this.#wakeOnArrival?.();
    return Promise.all(answers);
  }

  /**
   * Runs `reader` against committed state: at once when no batch is in flight, otherwise right after
   * the in-flight batch commits, so a query never sees a change that could still be lost. The reader
   * must not mutate the state or keep references to it past its return.
   */
  read<T>(reader: (state: Readonly<State>, position: StatePosition) => T): Promise<T> {
    if (this.#phase === "failed") return Promise.reject(this.#stoppedError());
    if (this.#pipeline.length === 0) {
      try {
        return Promise.resolve(reader(this.#state, this.#position()));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    if (this.#waitingReaders.length >= this.#limits.readersWaitingMax) {
      return Promise.reject(new EngineOverloadedError("readersWaitingMax", this.#limits.readersWaitingMax));
    }
    return new Promise((resolve, reject) => {
      this.#waitingReaders.push({
        run: () => {
          try {
            resolve(reader(this.#state, this.#position()));
          } catch (error) {
            reject(error);
          }
        },
        reject,
      });
    });
  }

  /**
   * Calls `listener` with each batch's accepted entries after it commits, in sequence order.
   * Listeners run synchronously on the engine's turn, so they must be quick (fan out, don't work).
   * Returns a function that unsubscribes.
   */
  onCommitted(listener: CommittedListener<Command, Event>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Stops taking commands, commits everything already queued, writes a snapshot (a failed one is
   * reported through onError), unless `snapshot` is false: a host stepping down after losing the
   * store's lock writes none, it could not.
   */
  close(options: { readonly snapshot?: boolean } = {}): Promise<void> {
    if (this.#closing !== undefined) return this.#closing;
    if (this.#phase === "failed") return Promise.resolve();
    this.#phase = "closing";
    this.#closing = (async () => {
      while (this.#loop !== undefined) await this.#loop;
      await this.#snapshotInFlight;
      if (this.#phase === "failed") return;
      this.#phase = "closed";
      try {
        if (options.snapshot !== false && this.#committedSequence > this.#snapshotSequence)
          await this.#saveSnapshot();
      } catch (error) {
        // As any failed snapshot: the journal has everything, and the host still has to close
        // (a store that refuses the write as fenced, after another node took over).
        this.#onError(error, "snapshot");
      } finally {
        await this.#snapshotWorker?.close();
      }
    })();
    return this.#closing;
  }

  /**
   * Replays the whole journal from the initial state (and from the latest snapshot) up to the
   * committed sequence and compares the encodings with the live state, byte for byte.
   */
  async verifyReplay(): Promise<ReplayVerification> {
    // A snapshot being written is part of what is verified once it is in.
    await this.#snapshotInFlight;
    const live = await this.read((state, position) => ({
      sequence: position.sequence,
      encodedState: this.#codec.encode(state),
    }));
    return verifyReplayAgainst(this.#decider, this.#codec, this.#store, live, this.#journalHistory);
  }

  #position(): StatePosition {
    return { sequence: this.#committedSequence, nowMs: this.#committedNowMs };
  }

  #stoppedError(): Error {
    if (this.#phase === "failed") {
      return new EngineStoppedError("The engine stopped after a fatal error", { cause: this.#failure });
    }
    return new EngineStoppedError("The engine is closed");
  }

  #scheduleDrain(): void {
    if (this.#loop !== undefined) return;
    this.#loop = (async () => {
      try {
        await this.#drain();
      } catch (error) {
        this.#fail(error);
      } finally {
        this.#loop = undefined;
        // A submit may have landed between the last queue check and here.
        if (this.#queue.length > 0 && this.#phase !== "failed") this.#scheduleDrain();
      }
    })();
  }

  /**
   * Commits what is queued, a batch at a time, until nothing is queued or committing. With a store
   * that takes more than one commit at a time (commitsInFlightMax, PostgreSQL's pipelined writer),
   * the next batch is decided on top of the one committing and handed to the store while it
   * commits, so the database goes from one to the next without waiting for this process; batches
   * are still finished (made visible, answered) strictly in order, each after its own commit.
   */
  async #drain(): Promise<void> {
    // Waiting one turn of the event loop before a batch lets every request that arrived in this
    // I/O phase join it, which is what makes group commit pay off. It also keeps the loop fair:
    // submitters answered in microtasks that submit again at once would otherwise keep it here
    // forever, and no socket write, request or timer would run meanwhile.
    await nextTurn();
    for (;;) {
      if (this.#phase === "failed") return;
      if (this.#mayStartBatch()) this.#pipeline.push(this.#startBatch());
      const oldest = this.#pipeline[0];
      if (oldest === undefined) return;
      if (!oldest.settled && this.#pipeline.length < this.#commitsInFlightMax && this.#queue.length === 0) {
        // Room for another batch: wait for the oldest commit or for commands, whichever comes first.
        const arrived = await Promise.race([
          oldest.done.then(() => false),
          new Promise<boolean>((resolve) => {
            this.#wakeOnArrival = () => resolve(true);
          }),
        ]);
        this.#wakeOnArrival = undefined;
        if (arrived && !oldest.settled) {
          await nextTurn(); // the rest of this I/O phase's commands join the batch
          continue;
        }
      }
      await oldest.done;
      // A failed write leaves memory ahead of disk: #fail stops the engine and fails this batch's
      // commands with every later one's.
      if (oldest.error !== undefined) {
        this.#fail(oldest.error, "store");
        return;
      }
      this.#pipeline.shift();
      this.#finishBatch(oldest);
      await this.#maybeSnapshot();
      // A store whose commits wait on I/O has just had the loop turn during the commit: what queued
      // meanwhile is the next batch, and it starts at once (the database is not left idle a turn).
      const turnedDuringCommit = this.#store.commitsWaitOnIo === true && oldest.entries.length > 0;
      if (!(turnedDuringCommit && this.#queue.length > 0)) await nextTurn();
    }
  }

  /**
   * Whether a batch may start now: commands wait and the store has room. A batch is not decided on
   * top of one still committing while a reader waits for committed state, or while a snapshot that
   * must be encoded inline is due: both need memory to hold nothing uncommitted, which the pipeline
   * then drains to.
   */
  #mayStartBatch(): boolean {
    return (
      this.#queue.length > 0 &&
      this.#pipeline.length < this.#commitsInFlightMax &&
      (this.#pipeline.length === 0 || (this.#waitingReaders.length === 0 && !this.#inlineSnapshotDue()))
    );
  }

  /**
   * How many queued commands the next batch takes: up to journalBatchCommandsMax, stopping before a
   * group that would not fit whole (it starts the next batch). A group larger than a whole batch is
   * split only when it is at the front, into consecutive batches.
   */
  #batchLength(): number {
    const lengthMax = this.#limits.journalBatchCommandsMax;
    let length = 0;
    for (let next = this.#queue.peek(0); next !== undefined; next = this.#queue.peek(length)) {
      if (length + next.groupRest > lengthMax) return length === 0 ? lengthMax : length;
      length += next.groupRest;
    }
    return length;
  }

  #inlineSnapshotDue(): boolean {
    return (
      (this.#snapshotWorker === undefined || this.#snapshotWorker.failed) &&
      this.#snapshotInFlight === undefined &&
      this.#committedSequence - this.#snapshotAttemptSequence >= BigInt(this.#limits.snapshotEveryCommands)
    );
  }

  /** Decides the next batch into memory and hands its accepted entries to the store. */
  #startBatch(): InFlightBatch<Command, Event> {
    const batch = this.#queue.take(this.#batchLength());
    // Failed with the rest if the core throws while deciding them (a broken invariant).
    this.#deciding = batch;
    const nowMs = this.#advanceClock();
    const entries: JournalEntry<Command, Event>[] = [];
    const results: SubmitResult<Event>[] = [];
    let sequence = this.#decidedSequence;
    let chainHash = this.#decidedChainHash;
    for (const pending of batch) {
      const decision = this.#decider.decide(this.#state, pending.command, { nowMs, sequence: sequence + 1n });
      if (!decision.ok) {
        results.push({ ok: false, rejection: decision.rejection });
        continue;
      }
      assert(Array.isArray(decision.events), "an accepted decision carries an events array");
      for (const event of decision.events) this.#state = this.#decider.evolve(this.#state, event);
      sequence += 1n;
      // Hashed as it is journaled: each entry links to the one before (journal-chain.ts).
      const entry = chainEntry(chainHash, sequence, nowMs, pending.command, decision.events);
      chainHash = entry.hash!;
      entries.push(entry);
      results.push({ ok: true, sequence, nowMs, events: decision.events });
    }
    this.#decidedSequence = sequence;
    this.#decidedChainHash = chainHash;
    this.#deciding = [];
    const startedMs = this.#observer === undefined ? 0 : performance.now();
    let commit: Promise<void>;
    try {
      commit = entries.length > 0 ? this.#store.commitBatch(entries, this.#projectors) : Promise.resolve();
    } catch (error) {
      commit = Promise.reject(error);
    }
    const inFlight: InFlightBatch<Command, Event> = {
      batch,
      entries,
      results,
      sequence,
      chainHash,
      nowMs,
      startedMs,
      settled: false,
      error: undefined,
      done: commit.then(
        () => {
          inFlight.settled = true;
        },
        (error: unknown) => {
          inFlight.error = error ?? new Error("the store's commit failed");
          inFlight.settled = true;
        },
      ),
    };
    return inFlight;
  }

  /**
   * After its commit: makes a batch the committed state, tells the listeners, answers its submitters.
   * With pipelined commits the next batch may already be evolved into memory here, so the snapshot
   * worker and the listeners copy this batch's events after that: a decided event must never be
   * changed afterwards (evolve may keep an event's arrays in the state, but replaces them, never
   * edits them in place).
   */
  #finishBatch(inFlight: InFlightBatch<Command, Event>): void {
    const { entries, batch, results } = inFlight;
    if (entries.length > 0) {
      this.#observer?.batchCommitted(
        batch.length,
        entries.length,
        (performance.now() - inFlight.startedMs) / 1000,
      );
      // The worker's copy follows only what is durable, in commit order.
      this.#snapshotWorker?.apply(entries);
      this.#committedNowMs = inFlight.nowMs;
    }
    this.#committedSequence = inFlight.sequence;
    this.#committedChainHash = inFlight.chainHash;
    // Readers see committed state only: once nothing decided is still committing.
    if (this.#pipeline.length === 0) this.#runWaitingReaders();
    if (entries.length > 0) this.#notifyCommitted(entries);
    batch.forEach((pending, index) => {
      pending.resolve(results[index]!);
    });
  }

  #advanceClock(): number {
    const now = this.#clock();
    assert(Number.isSafeInteger(now), "the clock returns integer milliseconds");
    // TigerBeetle asserts commit timestamps only move forward; a clock stepping back (NTP) must not
    // make a later command look older, so we hold at the highest time already used.
    if (now > this.#nowMsFloor) this.#nowMsFloor = now;
    return this.#nowMsFloor;
  }

  #runWaitingReaders(): void {
    const readers = this.#waitingReaders;
    this.#waitingReaders = [];
    for (const reader of readers) reader.run();
  }

  #notifyCommitted(entries: readonly JournalEntry<Command, Event>[]): void {
    for (const listener of this.#listeners) {
      try {
        listener(entries);
      } catch (error) {
        this.#onError(error, "listener");
      }
    }
  }

  async #maybeSnapshot(): Promise<void> {
    if (this.#committedSequence - this.#snapshotAttemptSequence < BigInt(this.#limits.snapshotEveryCommands))
      return;
    if (this.#snapshotInFlight !== undefined) return;
    // Encoded inline (no worker, or a worker that failed), the snapshot is of the state in memory:
    // only while that is the committed state, with no later batch decided into it yet.
    const inline = this.#snapshotWorker === undefined || this.#snapshotWorker.failed;
    if (inline && this.#pipeline.length > 0) return;
    // Not awaited: the engine goes on committing while the snapshot is made and written. The
    // worker is asked now, after this batch's events and before the next batch's; without it the
    // state is encoded inline, synchronously, before #saveSnapshot's first await. Either way it is
    // the state right here, and the store writes it meanwhile (in steps, on SQLite). A failure
    // only makes the next start replay more (the journal holds everything); the next attempt
    // comes after another snapshotEveryCommands commands.
    this.#snapshotInFlight = this.#saveSnapshot()
      .catch((error: unknown) => this.#onError(error, "snapshot"))
      .finally(() => {
        this.#snapshotInFlight = undefined;
      });
  }

  async #saveSnapshot(): Promise<void> {
    const position = {
      state: this.#state,
      sequence: this.#committedSequence,
      nowMs: this.#committedNowMs,
      chainHash: this.#committedChainHash,
    };
    const previousAttempt = this.#snapshotAttemptSequence;
    this.#snapshotAttemptSequence = position.sequence;
    const startedMs = this.#observer === undefined ? 0 : performance.now();
    // A failed worker (reported through onError once) falls back to encoding inline.
    const worker = this.#snapshotWorker;
    let snapshot: StateSnapshot | PackedStateSnapshot;
    if (worker === undefined || worker.failed) snapshot = makeSnapshot(this.#codec, position);
    else {
      try {
        snapshot = { ...(await worker.snapshot(position.sequence)), chainHash: position.chainHash };
      } catch (error) {
        // The worker folds the batches it was handed only when a snapshot is asked for (it is sent
        // them in lots), so a copy that broke in between shows here. The snapshot is still due: the
        // next batch's attempt encodes it inline instead of waiting another snapshotEveryCommands.
        if (worker.failed) this.#snapshotAttemptSequence = previousAttempt;
        throw error;
      }
    }
    await this.#store.saveSnapshot(snapshot);
    this.#observer?.snapshotSaved((performance.now() - startedMs) / 1000);
    if (snapshot.sequence > this.#snapshotSequence) this.#snapshotSequence = snapshot.sequence;
  }

  /**
   * Stops for good. The commands of batches handed to the store may or may not be in it: they get
   * the EngineFatalError (their outcome is unknown). Those never handed to it (still queued, or
   * being decided when the core threw) surely are not: they get EngineStoppedError, as a closed
   * engine's are, so they may be sent again.
   */
  #fail(cause: unknown, origin: "store" | "core" = "core"): void {
    if (this.#phase === "failed") return;
    this.#phase = "failed";
    const error = new EngineFatalError(
      `The engine stopped: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause, origin },
    );
    this.#failure = error;
    // Only the batches handed to the store may be in the journal. The one whose commit failed learns
    // the store's error as the cause (a surface tells "never written", such as a refused connection,
    // from "may be written" by it); the batches behind it, or in flight when something else failed,
    // may be in the journal whatever the cause. What was still queued or being decided never reached
    // the store, and a waiting reader read nothing: for them nothing was done.
    const [failing, ...behind] = this.#pipeline;
    const mayBeWritten = new EngineFatalError(
      "The engine stopped while this command's batch was being written",
      { cause: new Error("the engine failed while this batch was in flight"), origin },
    );
    for (const pending of failing?.batch ?? [])
      pending.reject(failing?.error === cause ? error : mayBeWritten);
    for (const pending of behind.flatMap((inFlight) => inFlight.batch)) pending.reject(mayBeWritten);
    const notTaken = [...this.#deciding, ...this.#queue.drain()];
    this.#pipeline = [];
    this.#deciding = [];
    const readers = this.#waitingReaders;
    this.#waitingReaders = [];
    const stopped = this.#stoppedError();
    for (const pending of notTaken) pending.reject(stopped);
    void this.#snapshotWorker?.close();
    for (const reader of readers) reader.reject(stopped);
    this.#onFatal(error);
  }
}
