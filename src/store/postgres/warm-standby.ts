// A warm standby engine node: it follows the leader's journal into an in-memory state (snapshot +
// journal, then each append as it commits) while it waits for the leadership lock. When the leader
// dies its lock goes with its connection (or its lease runs out, leadership.ts); the standby takes
// the lock, bumps the epoch (from then on the old leader cannot write a row), reads the journal to
// its end, checks the core's invariants, and hands back a state an Engine can start serving from
// (EngineOptions.startFrom) without recovering again.

import type { Decider, StateCodec } from "../../core/decider.js";
import { JournalFollower } from "../../engine/journal-follower.js";
import type { RecoveredState } from "../../engine/recovery.js";
import type { PostgresPool } from "./database.js";
import { PostgresEngineStore } from "./engine-store.js";
import { listenForJournalAppends } from "./journal-wakeups.js";
import { acquireLeadership, engineApplicationName, type Leadership } from "./leadership.js";

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
  /** The follower re-reads the journal at least this often, notifications or not. */
  readonly pollEveryMs?: number;
  /** Problems while following (a read that failed); following goes on at the next wake-up. */
  readonly onFollowError?: (error: unknown) => void;
}

export interface Takeover<State, Command, Event> {
  readonly leadership: Leadership;
  /** The journal store fenced with the new epoch: the engine's store from now on. */
  readonly store: PostgresEngineStore<Command, Event>;
  /** State at the end of the journal, invariants checked: EngineOptions.startFrom. */
  readonly state: RecoveredState<State>;
  /** Entries the standby was behind when it got the lock (what it read after the bump). */
  readonly entriesBehind: bigint;
}

export class WarmStandby<State, Command, Event> {
  readonly #options: WarmStandbyOptions<State, Command, Event>;
  readonly #follower: JournalFollower<State, Command, Event>;
  readonly #stopFollowing: () => Promise<void>;
  readonly #abort = new AbortController();

  static async start<State, Command, Event>(
    options: WarmStandbyOptions<State, Command, Event>,
  ): Promise<WarmStandby<State, Command, Event>> {
    const reader = await PostgresEngineStore.open<Command, Event>(options.pool);
    const follower = await JournalFollower.start({
      decider: options.decider,
      codec: options.codec,
      store: reader,
    });
    const wakeups = await listenForJournalAppends({
      url: options.url,
      applicationName: engineApplicationName(options.nodeId),
      ...(options.pollEveryMs === undefined ? {} : { pollEveryMs: options.pollEveryMs }),
      onWake: () => {
        follower.catchUp().catch((error: unknown) => options.onFollowError?.(error));
      },
    });
    return new WarmStandby(options, follower, () => wakeups.close());
  }

  private constructor(
    options: WarmStandbyOptions<State, Command, Event>,
    follower: JournalFollower<State, Command, Event>,
    stopFollowing: () => Promise<void>,
  ) {
    this.#options = options;
    this.#follower = follower;
    this.#stopFollowing = stopFollowing;
  }

  /** The last journal entry the standby has folded in. */
  get sequence(): bigint {
    return this.#follower.sequence;
  }

  stateHash(): string {
    return this.#follower.stateHash();
  }

  /** Follows until the lock is free, then takes over. Resolves once the state is ready to serve. */
  async takeOver(): Promise<Takeover<State, Command, Event>> {
    const options = this.#options;
    const leadership = await acquireLeadership(options.pool, {
      url: options.url,
      nodeId: options.nodeId,
      signal: this.#abort.signal,
      ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
      ...(options.renewEveryMs === undefined ? {} : { renewEveryMs: options.renewEveryMs }),
      ...(options.lockWaitSliceMs === undefined ? {} : { lockWaitSliceMs: options.lockWaitSliceMs }),
    });
    try {
      await this.#stopFollowing();
      const store = await PostgresEngineStore.open<Command, Event>(options.pool, leadership);
      // After the bump nobody else can append, so this end is the end.
      const before = this.#follower.sequence;
      this.#follower.useStore(store);
      const end = await this.#follower.catchUp();
      const state = this.#follower.position;
      options.assertState?.(state.state);
      return { leadership, store, state, entriesBehind: end - before };
    } catch (error) {
      await leadership.release();
      throw error;
    }
  }

  /** Stops following (and waiting for the lock, if takeOver is waiting). */
  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#stopFollowing();
  }
}
