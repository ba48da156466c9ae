// What an API node needs of the database to work with an engine leader it does not run: where the
// leader takes commands (advertised by the leader, fenced by its epoch), what the journal holds
// (which entry a forwarded command became, to settle one whose answer was lost with a dead leader), and a wake-up when the journal
// grows. The PostgreSQL adapter is src/store/postgres/engine-cluster.ts.

import type { EngineStore, JournalEntry } from "../engine/store.js";

/** The leader's command port as it advertised it, with the epoch it leads under. */
export interface AdvertisedLeader {
  readonly epoch: bigint;
  /** e.g. http://127.0.0.1:41234 */
  readonly url: string;
}

export interface LeaderDirectory {
  /** The current leader's address; undefined while none has advertised one (a takeover in progress). */
  currentLeader(): Promise<AdvertisedLeader | undefined>;
}

export interface CommittedCommandLookup {
  /**
   * The journal entry the command forwarded under `forwardId` became, or undefined when it is not
   * in the journal. Final for a command sent to a leader whose epoch has since been superseded.
   */
  findForwarded<Command, Event>(forwardId: string): Promise<JournalEntry<Command, Event> | undefined>;
}

export interface JournalWakeupSubscription {
  close(): Promise<void>;
}

/** Everything an API node reads of the engine's side of the database. */
export interface EngineClusterStore<Command, Event> extends LeaderDirectory, CommittedCommandLookup {
  /** A reader of the journal and snapshots (never a writer). */
  readonly journal: EngineStore<Command, Event, unknown>;
  /**
   * Calls onWake whenever the journal may have grown (a notification, a timer, a reconnect); a
   * notification names the last sequence committed, so a follower already there need not look.
   */
  listenForAppends(onWake: (lastSequence?: bigint) => void): Promise<JournalWakeupSubscription>;
}
