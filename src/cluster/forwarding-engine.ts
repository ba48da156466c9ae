// The engine as an API node has it (the ExchangeEngine port, without running one): commands go to
// the leader over its command port (command-server.ts), and reads run on a local replica that
// follows the committed journal (JournalFollower: snapshot + journal at start, then every append,
// woken by NOTIFY and a timer). The replica's batches are what onCommitted gives, so the realtime
// hub on every API node sees the same entries, in the same order, with the same sequence numbers.
//
// Read-your-writes: an accepted command is answered only once the replica has folded in its journal
// sequence, so whatever the caller reads next on this node already holds it.
//
// A replica that falls behind the journal archive (the node was paused or cut off while the leader
// snapshotted and its archiver deleted the journal through the snapshot) meets a gap: the entries
// it needs next are no longer in the database. It does not stop: it reloads a new copy from the
// latest snapshot plus the journal after it (JournalFollower.start, the path a start takes), swaps
// it in and follows on. While the new copy loads, reads keep serving the old one (a consistent state
// as of an earlier sequence, as a lagging replica's is); a command answered meanwhile waits for the
// new copy (read-your-writes holds). A load that fails (the database is away) is tried again with a
// backoff; only a reloaded state that breaks the core's invariants (assertState), or a journal
// that contradicts itself on every reload, marks the node failed. Batches between the two copies
// never reach onCommitted: onReloaded tells listeners (the realtime hub closes its sockets with
// 1012 so clients reconnect and re-seed; docs/decisions.md "An API node's copy that falls behind
// the archive").
//
// A replica that holds another history than the database (a fork: the database was promoted from
// an asynchronous replica that had not received entries this node folded, or is the other side of
// a split brain; JournalFollower detects it by the journal's hash chain) takes the same reload, but
// serves nothing meanwhile: reads are refused as try-again-later (EngineStoppedError), `unavailable`
// says why (/readyz answers 503), the fork is logged at error and counted (stats.forks, the metric
// predex_journal_forks_total), and the swap closes the realtime sockets with 1012 as above.
//
// Across a takeover a command is never applied twice and an acknowledged one is never lost:
// - the leader refused it without taking it (connection refused, "not-leader", "stopped"): look up
//   the leader again and send it again;
// - its answer was lost (a reset connection, a leader that stopped answering, "fatal"): it may be in
//   the journal. The same leader (same epoch) is asked again with the same command id and answers
//   with the first answer (command-server.ts). Once another leader leads (a higher epoch), every
//   append of the older epochs is final (the epoch bump waits for appends in flight and fences the
//   rest), and the leader records each forwarded command's id with its journal entry in the same
//   transaction (src/store/postgres/forwarded-commands.ts): found, that entry is the answer; not
//   found, it was never committed and is sent to the new leader;
// - after failoverDeadlineMs without an answer, what the API node says is what it knows: a command
//   no leader may hold (never taken, or proven missing from the journal once a later epoch leads)
//   is EngineStoppedError, the surfaces' "nothing was done, try again later" (502/2002); one a
//   leader took is looked up in the journal once more, and answered from it if it is there; else,
//   while its leader's epoch may still commit it (a leader stuck waiting on its database, paused),
//   it is EngineOutcomeUnknownError, the surfaces' 504/2001 (reconcile before sending it again).
//   Answering "nothing was done" there would be a lie whenever the stuck commit lands later.

import { randomUUID } from "node:crypto";
import { Agent, request as httpRequest } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "pino";
import type { Decider, StateCodec } from "../core/decider.js";
import type { CommittedListener, EnginePhase, StatePosition, SubmitResult } from "../engine/engine.js";
import {
  EngineOutcomeUnknownError,
  EngineOverloadedError,
  EngineStoppedError,
  JournalCorruptionError,
} from "../engine/errors.js";
import { JournalForkError } from "../engine/journal-chain.js";
import { decodePlainData, encodePlainData } from "../engine/journal-codec.js";
import { JournalFollower } from "../engine/journal-follower.js";
import type { JournalEntry } from "../engine/store.js";
import type {
  AdvertisedLeader,
  EngineClusterStore,
  JournalWakeupSubscription,
} from "../store/engine-cluster.js";
import { commandSignatureHeader, commandTimeHeader, signCommand } from "./command-auth.js";
import {
  type CommandAnswer,
  type CommandGroupAnswer,
  commandGroupPath,
  commandPath,
  type ForwardedCommand,
  type ForwardedGroup,
  groupItemForwardId,
} from "./command-wire.js";
import { handOverCopies } from "./hand-over-copies.js";
import type { LocalCommandPort } from "./local-command-port.js";

/** Without a setting, commands wait as long as an API node's do (src/config/topology-config.ts). */
export const defaultFailoverDeadlineMs = 20_000;

export interface ForwardingEngineOptions<State, Command, Event> {
  readonly decider: Decider<State, Command, Event>;
  readonly codec: StateCodec<State>;
  readonly cluster: EngineClusterStore<Command, Event>;
  /** deriveCommandKey(master key): the same on every node. */
  readonly key: Buffer;
  readonly logger: Logger;
  /** How long a command waits for a leader across a takeover before the try-again-later answer. */
  readonly failoverDeadlineMs?: number;
  /** One attempt waits this long for the leader's answer, then asks again (same id: no double run). */
  readonly attemptTimeoutMs?: number;
  /** Connections kept open to the leader. */
  readonly connectionsMax?: number;
  /**
   * An all-in-one node's own engine node: while it is the advertised leader, commands go to it
   * in-process (local-command-port.ts) instead of over loopback HTTP.
   */
  readonly local?: LocalCommandPort<Command, Event>;
  /**
   * Checks a reloaded copy before it is served (the core's invariants); throwing marks the node
   * failed, since loading the same snapshot and journal again would give the same state.
   */
  readonly assertState?: (state: State) => void;
  /** A failed reload is tried again after this long, doubling up to reloadRetryMaxMs. */
  readonly reloadRetryFirstMs?: number;
  readonly reloadRetryMaxMs?: number;
}

/** Told that the replica was replaced by one reloaded from the store, at this position. */
export type ReloadedListener = (position: StatePosition) => void;

/** How long a NOTIFY waits for the same commit to arrive from this node's own engine before reading it. */
const localHandOverGraceMs = 200;
export const defaultAttemptTimeoutMs = 2_000;
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

type Attempt<Answer> =
  | { readonly kind: "answered"; readonly result: Answer }
  | { readonly kind: "overloaded"; readonly message: string }
  /** The leader did not take the command: sending it again cannot run it twice. */
  | { readonly kind: "not-taken" }
  /** The leader may have taken it: only the same id, or the journal, can say. */
  | { readonly kind: "unknown" };

/** How one command, or one group, is sent and looked up in the journal (#untilAnswered). */
interface Forwarding<Command, Event, Answer> {
  attempt(
    leader: AdvertisedLeader,
    local: LocalCommandPort<Command, Event> | undefined,
  ): Promise<Attempt<Answer>>;
  /** The answer from the journal, undefined when not committed, or "lookup failed". */
  settleFromJournal(epoch: bigint): Promise<Answer | undefined | "lookup failed">;
  /** Part of a group is already answered from the journal: "nothing was done" can no longer be said. */
  partlySettled(): boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Counts of what forwarding went through, for the operator and the failover test. */
export interface ForwardingStats {
  /** Commands answered (by a leader or from the journal). */
  answered: number;
  /** Attempts that had to be made again (refused, lost, timed out). */
  retries: number;
  /** Commands whose answer was lost with a leader and that were found committed in the journal. */
  settledFromJournal: number;
  /** Commands given up after failoverDeadlineMs, surely not committed (the surfaces' try-again-later). */
  gaveUp: number;
  /** Commands given up after failoverDeadlineMs that a leader took and may still commit (504/2001). */
  outcomeUnknown: number;
  /** Times the replica met a gap (or another contradiction) and was replaced by a reloaded copy. */
  reloads: number;
  /** Reload attempts that failed and were tried again. */
  reloadFailures: number;
  /** Times the replica was found to hold another history than the journal (a fork) and was reloaded. */
  forks: number;
}

export class ForwardingEngine<State, Command, Event> {
  readonly stats: ForwardingStats = {
    answered: 0,
    retries: 0,
    settledFromJournal: 0,
    gaveUp: 0,
    outcomeUnknown: 0,
    reloads: 0,
    reloadFailures: 0,
    forks: 0,
  };
  readonly #options: ForwardingEngineOptions<State, Command, Event>;
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
  readonly #agent: Agent;
  readonly #failoverDeadlineMs: number;
  readonly #attemptTimeoutMs: number;
  #wakeups: JournalWakeupSubscription | undefined;
  #stopFollowingLocal: (() => void) | undefined;
  #leader: AdvertisedLeader | undefined;
  #phase: EnginePhase = "running";
  #inFlight = 0;
  /** When a late notification last made the replica look for a fork (#checkForkSoon). */
  #lastForkCheckMs = 0;

  static async start<State, Command, Event>(
    options: ForwardingEngineOptions<State, Command, Event>,
  ): Promise<ForwardingEngine<State, Command, Event>> {
    const engine = new ForwardingEngine(options);
    engine.#follower = await engine.#startFollower();
    // This node's own leading engine hands over what it commits (the replica's state must share
    // nothing mutable with the engine's: hand-over-copies.ts), so answers need no read of the
    // journal; anything that does not follow on (a batch committed before this replica caught up)
    // is read as always. During a reload nothing is folded: the new copy reads these entries from
    // the store once swapped in.
    engine.#stopFollowingLocal = options.local?.onCommitted((entries) => {
      if (engine.#phase === "failed" || engine.#reloading !== undefined) return;
      try {
        if (!engine.#follower.foldCommitted(handOverCopies(entries))) engine.#catchUpQuietly();
      } catch (error) {
        if (error instanceof JournalCorruptionError) engine.#reload(error);
        else throw error;
      }
    });
    engine.#wakeups = await options.cluster.listenForAppends((lastSequence) => {
      // A commit this replica has already folded in (the answer to a command caught it up): no read.
      // One further behind than the replica is a late notification, or the replica is ahead of a
      // journal that lost what it holds (a fork): that is checked, a few times a second at most.
      if (lastSequence !== undefined && engine.#follower.sequence > lastSequence) {
        engine.#checkForkSoon();
        return;
      }
      if (lastSequence !== undefined && engine.#follower.sequence >= lastSequence) return;
      // This node's own engine leads: its commits arrive in-process, and the NOTIFY (on another
      // connection) often comes first. Read only if the hand-over has not come a moment later.
      if (lastSequence !== undefined && engine.#localLeads()) {
        setTimeout(() => {
          if (engine.#follower.sequence < lastSequence) engine.#catchUpQuietly();
        }, localHandOverGraceMs).unref();
        return;
      }
      engine.#catchUpQuietly();
    });
    return engine;
  }

  /** Whether the leader last seen is this process's own engine (an all-in-one node that leads). */
  #localLeads(): boolean {
    const leader = this.#leader;
    return leader !== undefined && this.#options.local?.serves(leader) === true;
  }

  private constructor(options: ForwardingEngineOptions<State, Command, Event>) {
    this.#options = options;
    this.#failoverDeadlineMs = options.failoverDeadlineMs ?? defaultFailoverDeadlineMs;
    this.#attemptTimeoutMs = options.attemptTimeoutMs ?? defaultAttemptTimeoutMs;
    this.#agent = new Agent({ keepAlive: true, maxSockets: options.connectionsMax ?? 256 });
  }

  /** A replica from the latest snapshot plus the journal after it, whose batches reach the listeners while it is the current one. */
  #startFollower(): Promise<JournalFollower<State, Command, Event>> {
    const generation = this.#generation;
    return JournalFollower.start({
      decider: this.#options.decider,
      codec: this.#options.codec,
      store: this.#options.cluster.journal,
      onFolded: (entries) => {
        if (generation === this.#generation) notify(this.#listeners, entries, this.#options.logger);
      },
    });
  }

  get phase(): EnginePhase {
    return this.#phase;
  }

  /** The last journal entry the local replica has folded in. */
  get committedSequence(): bigint {
    return this.#follower.sequence;
  }

  /** sha256 of the replica's state encoding (compare with the leader's). */
  stateHash(): string {
    return this.#follower.stateHash();
  }

  /** True while a new replica is being loaded after a gap (reads serve the old one meanwhile). */
  get reloading(): boolean {
    return this.#reloading !== undefined;
  }

  /** Why nothing is served right now (a fork being resolved); undefined while the replica serves. */
  get unavailable(): string | undefined {
    return this.#forked === undefined
      ? undefined
      : "the replica held a forked journal and is reloading from the database";
  }

  /** Commands sent to the leader and not answered yet. */
  get queuedCommands(): number {
    return this.#inFlight;
  }

  read<T>(reader: (state: Readonly<State>, position: StatePosition) => T): Promise<T> {
    if (this.#phase === "failed") return Promise.reject(new EngineStoppedError("The replica stopped"));
    // A forked copy's state is another history than the database's: never served.
    if (this.#forked !== undefined) {
      return Promise.reject(
        new EngineStoppedError("The replica is reloading after a journal fork; try again in a moment"),
      );
    }
    const { state, sequence, nowMs } = this.#follower.position;
    try {
      return Promise.resolve(reader(state, { sequence, nowMs }));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  onCommitted(listener: CommittedListener<Command, Event>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Called right after a reloaded replica replaced the old one, before any of its batches reach
   * onCommitted: the batches in between were never given, so whatever was built from them is
   * stale (the realtime hub re-seeds from the new state and closes its sockets).
   */
  onReloaded(listener: ReloadedListener): () => void {
    this.#reloadedListeners.add(listener);
    return () => this.#reloadedListeners.delete(listener);
  }

  async submit(command: Command): Promise<SubmitResult<Event>> {
    if (this.#phase !== "running") throw new EngineStoppedError("The engine connection is closed");
    this.#inFlight += 1;
    try {
      return await this.#forward(command);
    } finally {
      this.#inFlight -= 1;
    }
  }

  /**
   * A group of commands queued together at the leader (Engine.submitMany: all or none, decided in
   * one batch when they fit), answered with each one's result in order, after the durable commit.
   */
  async submitMany(commands: readonly Command[]): Promise<SubmitResult<Event>[]> {
    if (this.#phase !== "running") throw new EngineStoppedError("The engine connection is closed");
    if (commands.length === 0) return [];
    this.#inFlight += commands.length;
    try {
      return await this.#forwardGroup(commands);
    } finally {
      this.#inFlight -= commands.length;
    }
  }

  async close(): Promise<void> {
    if (this.#phase === "closed") return;
    if (this.#phase === "running") this.#phase = "closed";
    this.#stopReloadRetries.abort();
    this.#stopFollowingLocal?.();
    await this.#wakeups?.close();
    this.#agent.destroy();
  }

  async #forward(command: Command): Promise<SubmitResult<Event>> {
    const id = randomUUID();
    let body: string | undefined;
    const result = await this.#untilAnswered<SubmitResult<Event>>({
      attempt: async (leader, local) => {
        if (local !== undefined) return attemptOfAnswer(await local.submit(command, id));
        body ??= encodePlainData({ id, command } satisfies ForwardedCommand<Command>);
        return this.#send(leader, commandPath, body, (answer: CommandAnswer<Event>) =>
          attemptOfAnswer(answer),
        );
      },
      settleFromJournal: async (epoch) => {
        const entry = await this.#findForwarded(id);
        if (entry === undefined || entry === "lookup failed") return entry;
        this.#settledFromJournal(epoch, { sequence: entry.sequence });
        return { ok: true, sequence: entry.sequence, nowMs: entry.nowMs, events: entry.events };
      },
      partlySettled: () => false,
    });
    return this.#answered(result);
  }

  /**
   * A group's commands are journaled each under its own forward id (groupItemForwardId). After a
   * lost answer and a takeover, those found in the journal are answered from it; the rest were not
   * committed (refused, or never decided) and go to the new leader again, as a new group.
   */
  async #forwardGroup(commands: readonly Command[]): Promise<SubmitResult<Event>[]> {
    const results: (SubmitResult<Event> | undefined)[] = commands.map(() => undefined);
    /** Indexes of the commands not answered yet, in order. */
    let pending = commands.map((_, index) => index);
    let id = randomUUID();
    let body: string | undefined;
    const fill = (answered: readonly SubmitResult<Event>[]): SubmitResult<Event>[] => {
      if (answered.length !== pending.length)
        throw new Error("the leader answered a group with a wrong count");
      pending.forEach((index, position) => {
        results[index] = answered[position];
      });
      return results as SubmitResult<Event>[];
    };
    const answered = await this.#untilAnswered<SubmitResult<Event>[]>({
      attempt: async (leader, local) => {
        const group = pending.map((index) => commands[index]!);
        const toAttempt = (answer: CommandGroupAnswer<Event>): Attempt<SubmitResult<Event>[]> => {
          const attempt = attemptOfAnswer(answer);
          return attempt.kind === "answered"
            ? { kind: "answered", result: fill(answer.ok ? answer.results : []) }
            : attempt;
        };
        if (local !== undefined) {
          const forwardIds = group.map((_, index) => groupItemForwardId(id, index));
          return toAttempt(await local.submitMany(group, forwardIds));
        }
        body ??= encodePlainData({ id, commands: group } satisfies ForwardedGroup<Command>);
        return this.#send(leader, commandGroupPath, body, toAttempt);
      },
      settleFromJournal: async (epoch) => {
        const entries = await Promise.all(
          pending.map((_, position) => this.#findForwarded(groupItemForwardId(id, position))),
        );
        // Nothing is concluded from a partial answer: the whole lookup is made again.
        if (entries.includes("lookup failed")) return "lookup failed";
        const left: number[] = [];
        pending.forEach((index, position) => {
          const entry = entries[position];
          if (entry === undefined || entry === "lookup failed") left.push(index);
          else
            results[index] = { ok: true, sequence: entry.sequence, nowMs: entry.nowMs, events: entry.events };
        });
        if (left.length < pending.length) {
          this.#settledFromJournal(epoch, { found: pending.length - left.length, left: left.length });
        }
        if (left.length === 0) return results as SubmitResult<Event>[];
        // What is left was never committed: a new group, under a new id.
        pending = left;
        id = randomUUID();
        body = undefined;
        return undefined;
      },
      partlySettled: () => results.some((result) => result !== undefined),
    });
    // Answered once the replica holds the last of them, so a read right after sees every one.
    let last: SubmitResult<Event> | undefined;
    for (const result of answered) {
      if (result.ok && (last === undefined || (last.ok && result.sequence > last.sequence))) last = result;
    }
    if (last !== undefined) await this.#answered(last);
    else this.stats.answered += 1;
    return answered;
  }

  /**
   * Sends to the leader until one answers or the failover deadline passes. Across a takeover nothing
   * runs twice: a refusal that did nothing is sent again; an answer that may have been lost is asked
   * of the same leader again (same id), or, once a later epoch leads (every older append final), of
   * the journal (settleFromJournal: the answer, or undefined when it was not committed, or "lookup
   * failed" when the database did not say: then nothing is sent and the journal is asked again).
   */
  async #untilAnswered<Answer>(forwarding: Forwarding<Command, Event, Answer>): Promise<Answer> {
    const deadline = Date.now() + this.#failoverDeadlineMs;
    /** The highest epoch that may hold the command without having answered. */
    let unsettledEpoch: bigint | undefined;
    for (let attempt = 0; ; attempt++) {
      const leader = await this.#currentLeader(attempt > 0);
      if (leader !== undefined) {
        if (unsettledEpoch !== undefined && leader.epoch > unsettledEpoch) {
          // Every append of the older epochs is final now: the journal says whether it was committed.
          const settled = await forwarding.settleFromJournal(leader.epoch);
          if (settled === "lookup failed") {
            // Not known yet: look again on the next pass (the command is not sent meanwhile).
          } else if (settled !== undefined) return settled;
          else unsettledEpoch = undefined;
        }
        if (unsettledEpoch === undefined || leader.epoch === unsettledEpoch) {
          const local = this.#options.local;
          const outcome = await forwarding.attempt(leader, local?.serves(leader) ? local : undefined);
          if (outcome.kind === "answered") return outcome.result;
          // A full queue took nothing; unless an earlier attempt may still commit (or part of a group
          // already did), nothing was done.
          if (outcome.kind === "overloaded" && unsettledEpoch === undefined && !forwarding.partlySettled()) {
            throw new EngineOverloadedError("leader queueCommandsMax", 0);
          }
          if (outcome.kind === "unknown") unsettledEpoch = leader.epoch;
        }
      }
      if (Date.now() >= deadline || this.#phase !== "running") {
        return await this.#giveUp(forwarding, unsettledEpoch);
      }
      this.stats.retries += 1;
      await sleep(Math.min(20 * 2 ** Math.min(attempt, 4), 250));
    }
  }

  /**
   * The deadline passed. A command no leader may hold was never applied: try again later. One that a
   * leader took without answering is looked up in the journal: committed, that entry is the answer;
   * missing while a later epoch leads, it never will be (nothing was done); missing while its epoch
   * may still commit (a leader stuck on its database, paused), or when the lookup fails, nobody can
   * say yet: an unknown outcome (the surfaces' 504/2001, reconcile before sending it again). A group
   * part of which was committed (found in the journal on an earlier pass) and the rest not is an
   * unknown outcome too: "nothing was done" would be a lie.
   */
  async #giveUp<Answer>(
    forwarding: Forwarding<Command, Event, Answer>,
    unsettledEpoch: bigint | undefined,
  ): Promise<Answer> {
    const waited = `No engine leader answered within ${this.#failoverDeadlineMs} ms`;
    if (unsettledEpoch !== undefined) {
      // The epoch is read before the journal: a miss proves "never" only if the later epoch led first.
      const leader = await this.#currentLeader(true);
      const settled = await forwarding.settleFromJournal(leader?.epoch ?? unsettledEpoch);
      if (settled !== undefined && settled !== "lookup failed") return settled;
      if (settled === "lookup failed" || leader === undefined || leader.epoch <= unsettledEpoch) {
        this.stats.outcomeUnknown += 1;
        throw new EngineOutcomeUnknownError(
          `${waited}; the leader of epoch ${unsettledEpoch} took the command and may still commit it`,
        );
      }
    }
    if (forwarding.partlySettled()) {
      this.stats.outcomeUnknown += 1;
      throw new EngineOutcomeUnknownError(
        `${waited}; part of the group was committed (found in the journal), the rest was not`,
      );
    }
    this.stats.gaveUp += 1;
    throw new EngineStoppedError(`${waited}; the command was not committed`);
  }

  /** The journal entry a forwarded command became; "lookup failed" when the database did not say. */
  async #findForwarded(id: string): Promise<JournalEntry<Command, Event> | undefined | "lookup failed"> {
    try {
      return await this.#options.cluster.findForwarded<Command, Event>(id);
    } catch (error) {
      this.#options.logger.warn({ err: error }, "could not look a forwarded command up in the journal");
      return "lookup failed";
    }
  }

  #settledFromJournal(epoch: bigint, found: Record<string, unknown>): void {
    this.stats.settledFromJournal += 1;
    this.#options.logger.info(
      { ...found, epoch },
      "a command whose answer was lost with its leader is in the journal: answered from it",
    );
  }

  /** The cached leader, or the database's answer when `refresh` (after a failed attempt) or unknown. */
  async #currentLeader(refresh: boolean): Promise<AdvertisedLeader | undefined> {
    if (this.#leader !== undefined && !refresh) return this.#leader;
    try {
      this.#leader = await this.#options.cluster.currentLeader();
    } catch (error) {
      this.#options.logger.warn({ err: error }, "could not read the engine leader's address");
      this.#leader = undefined;
    }
    return this.#leader;
  }

  /**
   * Answers once the replica holds the command, so a read right after sees it. The replica is read
   * afresh on every pass: a reload swaps in a new one, and the wait goes on with it.
   */
  async #answered(result: SubmitResult<Event>): Promise<SubmitResult<Event>> {
    this.stats.answered += 1;
    if (!result.ok) return result;
    const deadline = Date.now() + this.#failoverDeadlineMs;
    while (this.#follower.sequence < result.sequence && this.#phase !== "failed") {
      const reloading = this.#reloading;
      const follower = this.#follower;
      try {
        if (reloading !== undefined) {
          // The old replica cannot get there; the new one will hold it once swapped in.
          const timer = new AbortController();
          const timeout = delay(Math.max(0, deadline - Date.now()), undefined, { signal: timer.signal });
          await Promise.race([reloading, timeout.catch(() => {})]).finally(() => timer.abort());
          if (this.#reloading === reloading && Date.now() >= deadline)
            throw new Error("reload not done in time");
          continue;
        }
        await follower.catchUpTo(result.sequence);
      } catch (error) {
        if (error instanceof JournalCorruptionError) {
          // A closing node does not reload: its answer goes out as it is.
          if (this.#phase !== "running") return result;
          // A replica already replaced says nothing about the current one.
          if (follower === this.#follower) this.#reload(error);
          continue;
        }
        if (Date.now() >= deadline) {
          this.#options.logger.error(
            { err: error, sequence: result.sequence },
            "the replica could not read a committed command; answering without read-your-writes",
          );
          return result;
        }
        await sleep(50);
      }
    }
    return result;
  }

  #send<Answer, Decoded>(
    leader: AdvertisedLeader,
    path: string,
    body: string,
    toAttempt: (answer: Decoded) => Attempt<Answer>,
  ): Promise<Attempt<Answer>> {
    const timeMs = Date.now();
    const url = new URL(path, leader.url);
    return new Promise((resolve) => {
      let settled = false;
      const settle = (attempt: Attempt<Answer>) => {
        if (settled) return;
        settled = true;
        resolve(attempt);
      };
      const request = httpRequest(
        url,
        {
          method: "POST",
          agent: this.#agent,
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
            [commandTimeHeader]: String(timeMs),
            [commandSignatureHeader]: signCommand(this.#options.key, timeMs, body),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("error", () => settle({ kind: "unknown" }));
          response.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            settle(this.#attemptOf(response.statusCode ?? 0, text, toAttempt));
          });
        },
      );
      request.setTimeout(this.#attemptTimeoutMs, () => request.destroy(new Error("no answer in time")));
      request.on("error", (error: NodeJS.ErrnoException) => {
        // Refused: nothing listens there, so nothing was taken. Anything else may have reached it.
        settle(error.code === "ECONNREFUSED" ? { kind: "not-taken" } : { kind: "unknown" });
      });
      request.end(body);
    });
  }

  #attemptOf<Answer, Decoded>(
    status: number,
    text: string,
    toAttempt: (answer: Decoded) => Attempt<Answer>,
  ): Attempt<Answer> {
    let answer: Decoded;
    try {
      answer = decodePlainData<Decoded>(text);
    } catch {
      return { kind: "unknown" };
    }
    const refused = typeof answer === "object" && answer !== null && "refused" in answer;
    if ((status === 200 && !refused) || (status === 503 && refused)) return toAttempt(answer);
    // 401 (another master key), 400, 500: a deployment error, not a takeover. Say it loudly.
    this.#options.logger.error({ status, body: text.slice(0, 200) }, "the engine leader refused a command");
    return { kind: "not-taken" };
  }

  /** A catch-up (which checks the entry the replica holds last) unless one ran in the last 250 ms. */
  #checkForkSoon(): void {
    const nowMs = Date.now();
    if (nowMs - this.#lastForkCheckMs < forkCheckIntervalMs) return;
    this.#lastForkCheckMs = nowMs;
    this.#catchUpQuietly();
  }

  #catchUpQuietly(): void {
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

  /** Starts replacing the replica with one loaded from the latest snapshot (once: a second call joins). */
  #reload(cause: JournalCorruptionError): void {
    if (this.#reloading !== undefined || this.#phase !== "running") return;
    // From here the old replica's batches reach no listener; reads still use it until the swap,
    // unless it holds a fork: then nothing is read from it again.
    this.#generation += 1;
    if (cause instanceof JournalForkError) {
      this.#forked = cause;
      this.stats.forks += 1;
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
      this.#catchUpQuietly();
    };
    this.#reloading = run();
  }

  async #reloadUntilDone(): Promise<void> {
    const firstMs = this.#options.reloadRetryFirstMs ?? defaultReloadRetryFirstMs;
    const maxMs = this.#options.reloadRetryMaxMs ?? defaultReloadRetryMaxMs;
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
        this.stats.reloadFailures += 1;
        const waitMs = Math.min(firstMs * 2 ** Math.min(attempt, 16), maxMs);
        this.#options.logger.error(
          { err: error, attempt, waitMs },
          "reloading the replica failed; trying again",
        );
        try {
          await delay(waitMs, undefined, { signal: this.#stopReloadRetries.signal });
        } catch {
          return; // closed
        }
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
      const previous = this.#follower.sequence;
      this.#follower = follower;
      this.#forked = undefined;
      this.stats.reloads += 1;
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
      return;
    }
  }

  #fail(error: unknown, message: string): void {
    // It cannot serve reads that are right any more; /readyz and the sockets say so.
    this.#phase = "failed";
    this.#options.logger.fatal({ err: error }, message);
  }
}

/** What a leader's answer (over HTTP or in-process) means for the command or group. */
function attemptOfAnswer<Answer extends CommandAnswer<unknown> | CommandGroupAnswer<unknown>>(
  answer: Answer,
): Attempt<Exclude<Answer, { readonly refused: unknown }>> {
  if (!("refused" in answer))
    return { kind: "answered", result: answer as Exclude<Answer, { readonly refused: unknown }> };
  if (answer.refused === "overloaded") return { kind: "overloaded", message: answer.message };
  if (answer.refused === "fatal") return { kind: "unknown" };
  return { kind: "not-taken" };
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
