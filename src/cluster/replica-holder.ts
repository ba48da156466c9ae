// The replica an API node serves reads from (a JournalFollower) and its reloads: the part of the
// forwarding engine that owns the copy of the state (forwarding-engine.ts's header says what a
// reload is for: a gap behind the archive, or a fork). Only the current replica's batches reach
// the listeners; a reload that fails is tried again with a backoff; a reloaded state that breaks
// the core's invariants, or a journal that contradicts itself on every reload, fails the node.

import type { Logger } from "pino";
import type { Decider, StateCodec } from "../core/decider.js";
import type { CommittedListener, EnginePhase, StatePosition } from "../engine/engine.js";
import { JournalCorruptionError } from "../engine/errors.js";
import { JournalForkError } from "../engine/journal-chain.js";
import { JournalFollower } from "../engine/journal-follower.js";
import type { EngineStore, JournalEntry } from "../engine/store.js";
import type { ForwardingClock } from "./forwarding-clock.js";
import { handOverCopies } from "./hand-over-copies.js";

/** Told that the replica was replaced by one reloaded from the store, at this position. */
export type ReloadedListener = (position: StatePosition) => void;

export const defaultReloadRetryFirstMs = 100;
export const defaultReloadRetryMaxMs = 5_000;
/**
 * Reloads in a row that find the journal contradicting itself before the node gives up. One such
 * failure is expected now and then: the archiver may delete the journal, or the leader save a
 * snapshot, between a reload's reads of the snapshot and the journal.
 */
export const reloadCorruptAttemptsMax = 5;
/** How often a notification behind the replica may make it check the journal for a fork. */
const forkCheckIntervalMs = 250;
/** A read-your-writes wait whose catch-up fell short (or failed) reads again after this long. */
const catchUpAgainMs = 50;

export interface ReplicaHolderOptions<State, Command, Event> {
  readonly decider: Decider<State, Command, Event>;
  readonly codec: StateCodec<State>;
  readonly journal: EngineStore<Command, Event, unknown>;
  readonly logger: Logger;
  readonly clock: ForwardingClock;
  readonly assertState?: (state: State) => void;
  readonly reloadRetryFirstMs?: number;
  readonly reloadRetryMaxMs?: number;
}

/** The counters the holder keeps (the forwarding engine's stats of the same names). */
export interface ReplicaStats {
  reloads: number;
  reloadFailures: number;
  forks: number;
}

export class ReplicaHolder<State, Command, Event> {
  readonly #options: ReplicaHolderOptions<State, Command, Event>;
  readonly #stats: ReplicaStats;
  /** The replica reads are served from; replaced by a reload. */
  #follower!: JournalFollower<State, Command, Event>;
  /** Bumped when a reload starts: only the current replica's batches reach the listeners. */
  #generation = 0;
  /** The reload under way, if any (it never rejects: it retries, or fails the node). */
  #reloading: Promise<void> | undefined;
  /** Set from a fork's detection until the reloaded replica is swapped in: nothing is served. */
  #forked: JournalForkError | undefined;
  readonly #stopReloadRetries = new AbortController();
  readonly #listeners = new Set<CommittedListener<Command, Event>>();
  readonly #reloadedListeners = new Set<ReloadedListener>();
  #phase: EnginePhase = "running";
  /** When a late notification last made the replica look for a fork (checkForkSoon). */
  #lastForkCheckMs = 0;

  static async start<State, Command, Event>(
    options: ReplicaHolderOptions<State, Command, Event>,
    stats: ReplicaStats,
  ): Promise<ReplicaHolder<State, Command, Event>> {
    const holder = new ReplicaHolder(options, stats);
    holder.#follower = await holder.#startFollower();
    return holder;
  }

  private constructor(options: ReplicaHolderOptions<State, Command, Event>, stats: ReplicaStats) {
    this.#options = options;
    this.#stats = stats;
  }

  get phase(): EnginePhase {
    return this.#phase;
  }

  get sequence(): bigint {
    return this.#follower.sequence;
  }

  get position(): StatePosition & { readonly state: State } {
    return this.#follower.position;
  }

  stateHash(): string {
    return this.#follower.stateHash();
  }

  get reloading(): boolean {
    return this.#reloading !== undefined;
  }

  /** The fork being resolved, while nothing may be served. */
  get forked(): JournalForkError | undefined {
    return this.#forked;
  }

  onCommitted(listener: CommittedListener<Command, Event>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  onReloaded(listener: ReloadedListener): () => void {
    this.#reloadedListeners.add(listener);
    return () => this.#reloadedListeners.delete(listener);
  }

  /** Stops: no reload starts or retries from here (a failed node stays failed). */
  close(): void {
    if (this.#phase === "running") this.#phase = "closed";
    this.#stopReloadRetries.abort();
  }

  /**
   * Entries this node's own leading engine committed and handed over in-process (copies: the
   * replica shares nothing mutable with the engine). Anything that does not follow on is read as
   * always. During a reload nothing is folded: the new copy reads these from the store.
   */
  foldHandedOver(entries: readonly JournalEntry<Command, Event>[]): void {
    if (this.#phase === "failed" || this.#reloading !== undefined) return;
    try {
      if (!this.#follower.foldCommitted(handOverCopies(entries))) this.catchUpQuietly();
    } catch (error) {
      if (error instanceof JournalCorruptionError) this.#reload(error);
      else throw error;
    }
  }

  /** A catch-up (which checks the entry the replica holds last) unless one ran in the last 250 ms. */
  checkForkSoon(): void {
    const nowMs = this.#options.clock.now();
    if (nowMs - this.#lastForkCheckMs < forkCheckIntervalMs) return;
    this.#lastForkCheckMs = nowMs;
    this.catchUpQuietly();
  }

  catchUpQuietly(): void {
    // A reload under way catches the new replica up once it is swapped in.
    if (this.#reloading !== undefined || this.#phase === "failed") return;
    const follower = this.#follower;
    follower.catchUp().catch((error: unknown) => {
      if (error instanceof JournalCorruptionError) {
        // The journal contradicts the replica (a gap: this node fell behind an archived stretch),
        // unless that replica was replaced meanwhile.
        if (follower === this.#follower) this.#reload(error);
        return;
      }
      this.#options.logger.warn({ err: error }, "the replica could not read the journal; retrying");
    });
  }

  /**
   * Waits until the replica holds `sequence` (read-your-writes), reading the journal afresh on every
   * pass (a reload swaps in a new replica, and the wait goes on with it), until `untilMs`: "held",
   * "timed out", or "stopped" when the node failed, or is closing while the journal contradicts the
   * replica (a closing node does not reload). Never throws.
   */
  async holdBy(sequence: bigint, untilMs: number): Promise<"held" | "timed out" | "stopped"> {
    const clock = this.#options.clock;
    while (this.#follower.sequence < sequence) {
      if (this.#phase === "failed") return "stopped";
      const leftMs = untilMs - clock.now();
      if (leftMs <= 0) return "timed out";
      // The old replica cannot get there during a reload; the new one will hold it once swapped in.
      const reading = this.#reloading?.then(() => "reloaded" as const) ?? this.#catchUpOnce(sequence);
      const timer = new AbortController();
      const read = await Promise.race([
        reading,
        clock.sleep(leftMs, timer.signal).then(() => "late" as const),
      ]);
      timer.abort();
      if (read === "stopped") return "stopped";
      if (read === "again") await clock.sleep(Math.min(catchUpAgainMs, untilMs - clock.now()));
    }
    return "held";
  }

  /**
   * One catch-up toward `sequence`: "again" when it fell short or failed (read again after a
   * moment), "reloading" when it met a contradiction and a reload started, "stopped" when a closing
   * node met one.
   */
  async #catchUpOnce(sequence: bigint): Promise<"reached" | "again" | "reloading" | "stopped"> {
    const follower = this.#follower;
    try {
      return (await follower.catchUpTo(sequence)) >= sequence ? "reached" : "again";
    } catch (error) {
      // The database did not answer: read again in a moment (the caller bounds the wait).
      if (!(error instanceof JournalCorruptionError)) return "again";
      if (this.#phase !== "running") return "stopped";
      // A replica already replaced says nothing about the current one.
      if (follower === this.#follower) this.#reload(error);
      return "reloading";
    }
  }

  /** A replica from the latest snapshot plus the journal after it, whose batches reach the listeners while it is the current one. */
  #startFollower(): Promise<JournalFollower<State, Command, Event>> {
    const generation = this.#generation;
    return JournalFollower.start({
      decider: this.#options.decider,
      codec: this.#options.codec,
      store: this.#options.journal,
      onFolded: (entries) => {
        if (generation === this.#generation) notify(this.#listeners, entries, this.#options.logger);
      },
    });
  }

  /** Starts replacing the replica with one loaded from the latest snapshot (once: a second call joins). */
  #reload(cause: JournalCorruptionError): void {
    if (this.#reloading !== undefined || this.#phase !== "running") return;
    // From here the old replica's batches reach no listener; reads still use it until the swap,
    // unless it holds a fork: then nothing is read from it again.
    this.#generation += 1;
    if (cause instanceof JournalForkError) {
      this.#forked = cause;
      this.#stats.forks += 1;
      this.#options.logger.error(
        { err: cause, sequence: String(this.#follower.sequence), forkAt: String(cause.sequence) },
        "journal fork: this node's copy holds another history than the database (an asynchronous failover lost acknowledged entries, or a split brain); reads are refused while it reloads from the database's snapshot and journal",
      );
    } else {
      this.#options.logger.warn(
        { err: cause, sequence: String(this.#follower.sequence) },
        "the replica cannot follow the journal (it fell behind the archive?): reloading it from the latest snapshot",
      );
    }
    const run = async () => {
      try {
        await this.#reloadUntilDone();
      } finally {
        this.#reloading = undefined;
      }
      // Wake-ups and local batches that came while loading were dropped: read what was committed since.
      this.catchUpQuietly();
    };
    this.#reloading = run();
  }

  async #reloadUntilDone(): Promise<void> {
    let corruptInARow = 0;
    for (let attempt = 0; this.#phase === "running"; attempt++) {
      let follower: JournalFollower<State, Command, Event>;
      try {
        follower = await this.#startFollower();
      } catch (error) {
        if (this.#phase !== "running") return;
        corruptInARow = error instanceof JournalCorruptionError ? corruptInARow + 1 : 0;
        if (corruptInARow >= reloadCorruptAttemptsMax) {
          this.#fail(error, "the journal contradicts itself on every reload: the replica stops");
          return;
        }
        await this.#waitBeforeReloading(error, attempt);
        continue;
      }
      try {
        this.#options.assertState?.(follower.position.state);
      } catch (error) {
        // Loading the same snapshot and journal again would give the same state.
        this.#fail(error, "the reloaded replica breaks the core's invariants: the replica stops");
        return;
      }
      if (this.#phase !== "running") return;
      this.#swapIn(follower);
      return;
    }
  }

  /** The backoff after a failed reload: firstMs doubling up to maxMs; cut short by close. */
  async #waitBeforeReloading(error: unknown, attempt: number): Promise<void> {
    const firstMs = this.#options.reloadRetryFirstMs ?? defaultReloadRetryFirstMs;
    const maxMs = this.#options.reloadRetryMaxMs ?? defaultReloadRetryMaxMs;
    this.#stats.reloadFailures += 1;
    const waitMs = Math.min(firstMs * 2 ** Math.min(attempt, 16), maxMs);
    this.#options.logger.error({ err: error, attempt, waitMs }, "reloading the replica failed; trying again");
    await this.#options.clock.sleep(waitMs, this.#stopReloadRetries.signal);
  }

  #swapIn(follower: JournalFollower<State, Command, Event>): void {
    const previous = this.#follower.sequence;
    this.#follower = follower;
    this.#forked = undefined;
    this.#stats.reloads += 1;
    this.#options.logger.warn(
      {
        from: String(previous),
        to: String(follower.sequence),
        snapshot: String(follower.position.snapshotSequence),
      },
      "the replica was reloaded from the latest snapshot; following the journal again",
    );
    const { sequence, nowMs } = follower.position;
    for (const listener of this.#reloadedListeners) {
      try {
        listener({ sequence, nowMs });
      } catch (error) {
        this.#options.logger.error({ err: error }, "a reload listener failed");
      }
    }
  }

  #fail(error: unknown, message: string): void {
    // It cannot serve reads that are right any more; /readyz and the sockets say so.
    this.#phase = "failed";
    this.#options.logger.fatal({ err: error }, message);
  }
}

function notify<Command, Event>(
  listeners: ReadonlySet<CommittedListener<Command, Event>>,
  entries: readonly JournalEntry<Command, Event>[],
  logger: Logger,
): void {
  for (const listener of listeners) {
    try {
      listener(entries);
    } catch (error) {
      logger.error({ err: error }, "a commit listener failed");
    }
  }
}
