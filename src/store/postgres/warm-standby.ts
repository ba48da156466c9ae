// A warm standby engine node: it follows the leader's journal into an in-memory state (snapshot +
// journal, then each append as it commits) while it waits for the leadership lock. When the leader
// dies its lock goes with its connection (or its lease runs out, leadership.ts); the standby takes
// the lock, bumps the epoch (from then on the old leader cannot write a row), reads the journal to
// its end, checks the core's invariants, and hands back a state an Engine can start serving from
// (EngineOptions.startFrom) without recovering again.
//
// A database fault does not end it: a read that fails is tried again at the next wake-up (the
// follower's position only moves entry by entry, so state and position always agree), the
// listening connection reconnects by itself, and a takeover that fails half-way (the database went
// away after the lock was taken) gives the lock back, goes on following and tries again after a
// backoff. A copy that no longer follows the journal (a fork: the database was promoted from an
// asynchronous replica that lacked entries this copy folded, JournalFollower's chain checks; or a
// gap: it fell behind the archive) is rebuilt from the database's latest snapshot and journal, as
// at start, retrying while the database is away; a fork is reported (onFork). A takeover that
// meets a fork rebuilds the copy under its new epoch before it leads. Only a state that breaks the
// core's invariants ends the campaign: the caller then builds a new standby from the database.

import { setTimeout as delay } from "node:timers/promises";
import type { Decider, StateCodec } from "../../core/decider.js";
import { JournalCorruptionError } from "../../engine/errors.js";
import { JournalForkError } from "../../engine/journal-chain.js";
import { JournalFollower } from "../../engine/journal-follower.js";
import type { RecoveredState } from "../../engine/recovery.js";
import type { PostgresPool } from "./database.js";
import { PostgresEngineStore } from "./engine-store.js";
import { listenForJournalAppends } from "./journal-wakeups.js";
import {
  acquireLeadership,
  engineApplicationName,
  type Leadership,
  LeadershipAbortedError,
} from "./leadership.js";

export interface WarmStandbyOptions<State, Command, Event> {
  readonly url: string;
  /** The node's pool; its connections should carry engineApplicationName(nodeId). */
  readonly pool: PostgresPool;
  readonly nodeId: string;
  readonly decider: Decider<State, Command, Event>;
  readonly codec: StateCodec<State>;
  /** Throws if the state breaks the core's invariants (the core's assertInvariants). */
  readonly assertState?: (state: Readonly<State>) => void;
  readonly leaseMs?: number;
  readonly renewEveryMs?: number;
  readonly lockWaitSliceMs?: number;
  /** Bounds on the lock's and the listener's connections (database.ts). */
  readonly connectTimeoutMs?: number;
  readonly statementTimeoutMs?: number;
  /** The follower re-reads the journal at least this often, notifications or not. */
  readonly pollEveryMs?: number;
  /** Problems while following (a read that failed); following goes on at the next wake-up. */
  readonly onFollowError?: (error: unknown) => void;
  /** The copy held another history than the journal: it is being rebuilt from the database. */
  readonly onFork?: (error: JournalForkError) => void;
  /** A takeover attempt failed and is tried again after waitMs. */
  readonly onCampaignError?: (error: unknown, attempt: number, waitMs: number) => void;
  /** The first pause after a failed takeover attempt; it doubles up to campaignRetryMaxMs. */
  readonly campaignRetryFirstMs?: number;
  readonly campaignRetryMaxMs?: number;
}

export const defaultCampaignRetryFirstMs = 100;
export const defaultCampaignRetryMaxMs = 1_000;

/** A failed rebuild of the copy is tried again after this long, doubling up to 5 s. */
const reloadRetryFirstMs = 100;
const reloadRetryMaxMs = 5_000;

export interface Takeover<State, Command, Event> {
  readonly leadership: Leadership;
  /** The journal store fenced with the new epoch: the engine's store from now on. */
  readonly store: PostgresEngineStore<Command, Event>;
  /** State at the end of the journal, invariants checked: EngineOptions.startFrom. */
  readonly state: RecoveredState<State>;
  /** Entries the standby was behind when it got the lock (what it read after the bump). */
  readonly entriesBehind: bigint;
}

/** The state the standby followed to breaks the core's invariants: no node can serve it. */
export class StandbyStateBrokenError extends Error {
  override readonly name = "StandbyStateBrokenError";
}

export class WarmStandby<State, Command, Event> {
  readonly #options: WarmStandbyOptions<State, Command, Event>;
  readonly #reader: PostgresEngineStore<Command, Event>;
  #follower: JournalFollower<State, Command, Event>;
  /** A rebuild of the copy under way (never rejects). */
  #reloading: Promise<void> | undefined;
  #stopFollowing: (() => Promise<void>) | undefined;
  readonly #abort = new AbortController();
  #forks = 0;

  static async start<State, Command, Event>(
    options: WarmStandbyOptions<State, Command, Event>,
  ): Promise<WarmStandby<State, Command, Event>> {
    const reader = await PostgresEngineStore.open<Command, Event>(options.pool);
    const follower = await JournalFollower.start({
      decider: options.decider,
      codec: options.codec,
      store: reader,
    });
    const standby = new WarmStandby(options, reader, follower);
    await standby.#follow();
    return standby;
  }

  private constructor(
    options: WarmStandbyOptions<State, Command, Event>,
    reader: PostgresEngineStore<Command, Event>,
    follower: JournalFollower<State, Command, Event>,
  ) {
    this.#options = options;
    this.#reader = reader;
    this.#follower = follower;
  }

  #catchUpQuietly(): void {
    if (this.#reloading !== undefined) return;
    const follower = this.#follower;
    follower.catchUp().catch((error: unknown) => {
      if (error instanceof JournalCorruptionError && follower === this.#follower) this.#reload(error);
      else this.#options.onFollowError?.(error);
    });
  }

  #reportFork(cause: JournalCorruptionError): void {
    if (!(cause instanceof JournalForkError)) return;
    this.#forks += 1;
    this.#options.onFork?.(cause);
  }

  /** Rebuilds the copy from the latest snapshot and the journal after it, until that succeeds. */
  #reload(cause: JournalCorruptionError): void {
    this.#reportFork(cause);
    if (!(cause instanceof JournalForkError)) this.#options.onFollowError?.(cause);
    const options = this.#options;
    this.#reloading = (async () => {
      for (let attempt = 0; !this.#abort.signal.aborted; attempt++) {
        try {
          this.#follower = await JournalFollower.start({
            decider: options.decider,
            codec: options.codec,
            store: this.#reader,
          });
          return;
        } catch (error) {
          options.onFollowError?.(error);
          try {
            await delay(
              Math.min(reloadRetryFirstMs * 2 ** Math.min(attempt, 16), reloadRetryMaxMs),
              undefined,
              {
                signal: this.#abort.signal,
              },
            );
          } catch {
            return; // stopped
          }
        }
      }
    })().finally(() => {
      this.#reloading = undefined;
      // Wake-ups that came while it loaded were dropped: read what was committed since.
      // Not while a takeover holds the copy (it stopped the wake-ups and catches up itself).
      if (!this.#abort.signal.aborted && this.#stopFollowing !== undefined) this.#catchUpQuietly();
    });
  }

  /** Forks met so far (the copy held another history than the journal and was rebuilt). */
  get forks(): number {
    return this.#forks;
  }

  /** The last journal entry the standby has folded in. */
  get sequence(): bigint {
    return this.#follower.sequence;
  }

  stateHash(): string {
    return this.#follower.stateHash();
  }

  /** Wakes the follower on every append (and a timer); the listener reconnects by itself. */
  async #follow(): Promise<void> {
    const options = this.#options;
    this.#follower.useStore(this.#reader);
    const wakeups = await listenForJournalAppends({
      url: options.url,
      applicationName: engineApplicationName(options.nodeId),
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.pollEveryMs === undefined ? {} : { pollEveryMs: options.pollEveryMs }),
      onWake: () => this.#catchUpQuietly(),
    });
    this.#stopFollowing = () => wakeups.close();
  }

  /**
   * Follows until the lock is free, then takes over. Resolves once the state is ready to serve. A
   * failed attempt is tried again (following meanwhile) until stop(); rejects with
   * LeadershipAbortedError when stopped, StandbyStateBrokenError when the state breaks the core's
   * invariants, and JournalCorruptionError when the journal does not continue the state.
   */
  async takeOver(): Promise<Takeover<State, Command, Event>> {
    const firstMs = this.#options.campaignRetryFirstMs ?? defaultCampaignRetryFirstMs;
    const maxMs = this.#options.campaignRetryMaxMs ?? defaultCampaignRetryMaxMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#attemptTakeOver();
      } catch (error) {
        if (this.#abort.signal.aborted) throw new LeadershipAbortedError("Stopped waiting for leadership");
        if (error instanceof StandbyStateBrokenError || error instanceof JournalCorruptionError) throw error;
        const waitMs = Math.min(firstMs * 2 ** Math.min(attempt - 1, 16), maxMs);
        this.#options.onCampaignError?.(error, attempt, waitMs);
        try {
          await delay(waitMs, undefined, { signal: this.#abort.signal });
        } catch {
          throw new LeadershipAbortedError("Stopped waiting for leadership");
        }
      }
    }
  }

  async #attemptTakeOver(): Promise<Takeover<State, Command, Event>> {
    const options = this.#options;
    if (this.#stopFollowing === undefined) await this.#follow();
    const leadership = await acquireLeadership(options.pool, {
      url: options.url,
      nodeId: options.nodeId,
      signal: this.#abort.signal,
      ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
      ...(options.renewEveryMs === undefined ? {} : { renewEveryMs: options.renewEveryMs }),
      ...(options.lockWaitSliceMs === undefined ? {} : { lockWaitSliceMs: options.lockWaitSliceMs }),
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.statementTimeoutMs }),
    });
    try {
      // No wake-up may fold anything once the state is handed to an engine: stop them, then catch
      // up (which joins a pass a wake-up started), after any rebuild under way.
      const stopFollowing = this.#stopFollowing;
      this.#stopFollowing = undefined;
      await stopFollowing?.();
      await this.#reloading;
      const store = await PostgresEngineStore.open<Command, Event>(options.pool, leadership);
      // After the bump nobody else can append, so this end is the end.
      const before = this.#follower.sequence;
      this.#follower.useStore(store);
      let end: bigint;
      try {
        end = await this.#follower.catchUp();
      } catch (error) {
        if (!(error instanceof JournalCorruptionError)) throw error;
        // The copy cannot lead from another history than the journal's: rebuilt from it first.
        this.#reportFork(error);
        this.#follower = await JournalFollower.start({
          decider: options.decider,
          codec: options.codec,
          store,
        });
        end = this.#follower.sequence;
      }
      const state = this.#follower.position;
      try {
        options.assertState?.(state.state);
      } catch (error) {
        throw new StandbyStateBrokenError(
          `The state at sequence ${state.sequence} breaks the core's invariants: ${(error as Error).message}`,
          { cause: error },
        );
      }
      return { leadership, store, state, entriesBehind: end - before };
    } catch (error) {
      await leadership.release();
      throw error;
    }
  }

  /** Stops following (and waiting for the lock, if takeOver is waiting). */
  async stop(): Promise<void> {
    this.#abort.abort();
    const stopFollowing = this.#stopFollowing;
    this.#stopFollowing = undefined;
    await stopFollowing?.();
  }
}
