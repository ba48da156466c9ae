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
//   Those rules are forwarding-steps.ts, a pure function of what was seen and the time.
// - the deadline is the command's, from its submit: the read-your-writes wait after an answer ends
//   there too (with one attempt's time at least), so an answer in hand is given before a client's
//   timeout, never held for a second failoverDeadlineMs (docs/decisions.md, i32-forward).
//
// The replica and its reloads are replica-holder.ts; the time is read from an injected clock
// (forwarding-clock.ts), so the deadline rules are tested without real waiting.

import { randomUUID } from "node:crypto";
import { Agent, request as httpRequest } from "node:http";
import type { Logger } from "pino";
import type { Decider, StateCodec } from "../core/decider.js";
import type { CommittedListener, EnginePhase, StatePosition, SubmitResult } from "../engine/engine.js";
import { EngineOutcomeUnknownError, EngineOverloadedError, EngineStoppedError } from "../engine/errors.js";
import { decodePlainData, encodePlainData } from "../engine/journal-codec.js";
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
} from "./command-wire.js";
import { type ForwardingClock, systemClock } from "./forwarding-clock.js";
import {
  type AttemptOutcome,
  type ForwardingProgress,
  type JournalWord,
  nextStep,
  type Seen,
  startOfForwarding,
  verdictAtDeadline,
} from "./forwarding-steps.js";
import type { LocalCommandPort } from "./local-command-port.js";
import { PendingGroup } from "./pending-group.js";
import { type ReloadedListener, ReplicaHolder } from "./replica-holder.js";

export {
  defaultReloadRetryFirstMs,
  defaultReloadRetryMaxMs,
  type ReloadedListener,
  reloadCorruptAttemptsMax,
} from "./replica-holder.js";

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
  /** The time deadlines are read from and waits are made on (the system's by default; tests move it). */
  readonly clock?: ForwardingClock;
}

/** How long a NOTIFY waits for the same commit to arrive from this node's own engine before reading it. */
const localHandOverGraceMs = 200;
export const defaultAttemptTimeoutMs = 2_000;

type Attempt<Answer> =
  | { readonly kind: "answered"; readonly result: Answer }
  | { readonly kind: Exclude<AttemptOutcome, "answered"> };

type Settled<Answer> =
  | { readonly word: "committed"; readonly answer: Answer }
  | { readonly word: Exclude<JournalWord, "committed"> };

/** How one command, or one group, is sent and looked up in the journal (#untilAnswered). */
interface Forwarding<Command, Event, Answer> {
  attempt(
    leader: AdvertisedLeader,
    local: LocalCommandPort<Command, Event> | undefined,
  ): Promise<Attempt<Answer>>;
  /** The journal's word on the command: committed (with the answer), missing, or "lookup failed". */
  settleFromJournal(epoch: bigint): Promise<Settled<Answer>>;
  /** Part of a group is already answered from the journal: "nothing was done" can no longer be said. */
  partlySettled(): boolean;
}

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
  readonly #clock: ForwardingClock;
  /** The replica reads are served from, and its reloads. */
  #replica!: ReplicaHolder<State, Command, Event>;
  readonly #agent: Agent;
  readonly #failoverDeadlineMs: number;
  readonly #attemptTimeoutMs: number;
  #wakeups: JournalWakeupSubscription | undefined;
  #stopFollowingLocal: (() => void) | undefined;
  #leader: AdvertisedLeader | undefined;
  #inFlight = 0;

  static async start<State, Command, Event>(
    options: ForwardingEngineOptions<State, Command, Event>,
  ): Promise<ForwardingEngine<State, Command, Event>> {
    const engine = new ForwardingEngine(options);
    const replica = await ReplicaHolder.start(
      { ...options, journal: options.cluster.journal, clock: engine.#clock },
      engine.stats,
    );
    engine.#replica = replica;
    // This node's own leading engine hands over what it commits, so answers need no read of the journal.
    engine.#stopFollowingLocal = options.local?.onCommitted((entries) => replica.foldHandedOver(entries));
    engine.#wakeups = await options.cluster.listenForAppends((lastSequence) => {
      // A commit this replica has already folded in (the answer to a command caught it up): no read.
      // One further behind than the replica is a late notification, or the replica is ahead of a
      // journal that lost what it holds (a fork): that is checked, a few times a second at most.
      if (lastSequence !== undefined && replica.sequence > lastSequence) {
        replica.checkForkSoon();
        return;
      }
      if (lastSequence !== undefined && replica.sequence >= lastSequence) return;
      // This node's own engine leads: its commits arrive in-process, and the NOTIFY (on another
      // connection) often comes first. Read only if the hand-over has not come a moment later.
      if (lastSequence !== undefined && engine.#localLeads()) {
        setTimeout(() => {
          if (replica.sequence < lastSequence) replica.catchUpQuietly();
        }, localHandOverGraceMs).unref();
        return;
      }
      replica.catchUpQuietly();
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
    this.#clock = options.clock ?? systemClock;
    this.#failoverDeadlineMs = options.failoverDeadlineMs ?? defaultFailoverDeadlineMs;
    this.#attemptTimeoutMs = options.attemptTimeoutMs ?? defaultAttemptTimeoutMs;
    this.#agent = new Agent({ keepAlive: true, maxSockets: options.connectionsMax ?? 256 });
  }

  get phase(): EnginePhase {
    return this.#replica.phase;
  }

  /** The last journal entry the local replica has folded in. */
  get committedSequence(): bigint {
    return this.#replica.sequence;
  }

  /** sha256 of the replica's state encoding (compare with the leader's). */
  stateHash(): string {
    return this.#replica.stateHash();
  }

  /** True while a new replica is being loaded after a gap (reads serve the old one meanwhile). */
  get reloading(): boolean {
    return this.#replica.reloading;
  }

  /** Why nothing is served right now (a fork being resolved); undefined while the replica serves. */
  get unavailable(): string | undefined {
    return this.#replica.forked === undefined
      ? undefined
      : "the replica held a forked journal and is reloading from the database";
  }

  /** Commands sent to the leader and not answered yet. */
  get queuedCommands(): number {
    return this.#inFlight;
  }

  read<T>(reader: (state: Readonly<State>, position: StatePosition) => T): Promise<T> {
    if (this.phase === "failed") return Promise.reject(new EngineStoppedError("The replica stopped"));
    // A forked copy's state is another history than the database's: never served.
    if (this.#replica.forked !== undefined) {
      return Promise.reject(
        new EngineStoppedError("The replica is reloading after a journal fork; try again in a moment"),
      );
    }
    const { state, sequence, nowMs } = this.#replica.position;
    try {
      return Promise.resolve(reader(state, { sequence, nowMs }));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  onCommitted(listener: CommittedListener<Command, Event>): () => void {
    return this.#replica.onCommitted(listener);
  }

  /**
   * Called right after a reloaded replica replaced the old one, before any of its batches reach
   * onCommitted: the batches in between were never given, so whatever was built from them is
   * stale (the realtime hub re-seeds from the new state and closes its sockets).
   */
  onReloaded(listener: ReloadedListener): () => void {
    return this.#replica.onReloaded(listener);
  }

  async submit(command: Command): Promise<SubmitResult<Event>> {
    if (this.phase !== "running") throw new EngineStoppedError("The engine connection is closed");
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
    if (this.phase !== "running") throw new EngineStoppedError("The engine connection is closed");
    if (commands.length === 0) return [];
    this.#inFlight += commands.length;
    try {
      return await this.#forwardGroup(commands);
    } finally {
      this.#inFlight -= commands.length;
    }
  }

  async close(): Promise<void> {
    if (this.phase === "closed") return;
    this.#replica.close();
    this.#stopFollowingLocal?.();
    await this.#wakeups?.close();
    this.#agent.destroy();
  }

  async #forward(command: Command): Promise<SubmitResult<Event>> {
    const deadlineMs = this.#clock.now() + this.#failoverDeadlineMs;
    const id = randomUUID();
    let body: string | undefined;
    const result = await this.#untilAnswered<SubmitResult<Event>>(deadlineMs, {
      attempt: async (leader, local) => {
        if (local !== undefined) return attemptOfAnswer(await local.submit(command, id));
        body ??= encodePlainData({ id, command } satisfies ForwardedCommand<Command>);
        return this.#send(leader, commandPath, body, (answer: CommandAnswer<Event>) =>
          attemptOfAnswer(answer),
        );
      },
      settleFromJournal: async (epoch) => {
        const entry = await this.#findForwarded(id);
        if (entry === undefined) return { word: "missing" };
        if (entry === "lookup failed") return { word: entry };
        this.#settledFromJournal(epoch, { sequence: entry.sequence });
        const answer = {
          ok: true,
          sequence: entry.sequence,
          nowMs: entry.nowMs,
          events: entry.events,
        } as const;
        return { word: "committed", answer };
      },
      partlySettled: () => false,
    });
    return this.#answered(result, deadlineMs);
  }

  /** A group (PendingGroup): the commands found in the journal after a lost answer are not sent again. */
  async #forwardGroup(commands: readonly Command[]): Promise<SubmitResult<Event>[]> {
    const deadlineMs = this.#clock.now() + this.#failoverDeadlineMs;
    const group = new PendingGroup<Command, Event>(commands);
    const answered = await this.#untilAnswered<SubmitResult<Event>[]>(deadlineMs, {
      attempt: (leader, local) => this.#attemptGroup(group, leader, local),
      settleFromJournal: (epoch) => this.#settleGroup(group, epoch),
      partlySettled: () => group.partlySettled(),
    });
    // Answered once the replica holds the last of them, so a read right after sees every one.
    const last = lastAccepted(answered);
    if (last !== undefined) await this.#answered(last, deadlineMs);
    else this.stats.answered += 1;
    return answered;
  }

  async #attemptGroup(
    group: PendingGroup<Command, Event>,
    leader: AdvertisedLeader,
    local: LocalCommandPort<Command, Event> | undefined,
  ): Promise<Attempt<SubmitResult<Event>[]>> {
    const toAttempt = (answer: CommandGroupAnswer<Event>): Attempt<SubmitResult<Event>[]> => {
      const attempt = attemptOfAnswer(answer);
      return attempt.kind === "answered"
        ? { kind: "answered", result: group.fill(answer.ok ? answer.results : []) }
        : attempt;
    };
    if (local !== undefined) return toAttempt(await local.submitMany(group.commandsLeft, group.forwardIds()));
    const body = group.body((id, commands) =>
      encodePlainData({ id, commands } satisfies ForwardedGroup<Command>),
    );
    return this.#send(leader, commandGroupPath, body, toAttempt);
  }

  async #settleGroup(
    group: PendingGroup<Command, Event>,
    epoch: bigint,
  ): Promise<Settled<SubmitResult<Event>[]>> {
    const entries = await Promise.all(group.forwardIds().map((id) => this.#findForwarded(id)));
    // Nothing is concluded from a partial answer: the whole lookup is made again.
    if (entries.some((entry) => entry === "lookup failed")) return { word: "lookup failed" };
    const found = group.settle(entries as (JournalEntry<Command, Event> | undefined)[]);
    if (found > 0) this.#settledFromJournal(epoch, { found, left: group.left });
    return group.left === 0 ? { word: "committed", answer: group.results } : { word: "missing" };
  }

  /**
   * Sends to the leader until one answers or the deadline passes, doing what forwarding-steps.ts
   * decides from each thing seen: read the leader, send (a refusal that did nothing, or a lost answer
   * to the same epoch: same id), ask the journal once a later epoch leads ("lookup failed": nothing
   * is sent, the journal is asked again on the next pass), wait, or give up with the verdict.
   */
  async #untilAnswered<Answer>(
    deadlineMs: number,
    forwarding: Forwarding<Command, Event, Answer>,
  ): Promise<Answer> {
    let progress: ForwardingProgress = startOfForwarding;
    // The leader this pass read: every step of the pass is about it (another command may refresh the cache).
    let leader = await this.#currentLeader(false);
    let seen: Seen = { kind: "leader", epoch: leader?.epoch };
    for (;;) {
      const decision = nextStep(progress, seen, {
        nowMs: this.#clock.now(),
        deadlineMs,
        running: this.phase === "running",
        partlySettled: forwarding.partlySettled(),
      });
      progress = decision.progress;
      const step = decision.step;
      if (step.kind === "send" && leader !== undefined) {
        const local = this.#options.local;
        const outcome = await forwarding.attempt(leader, local?.serves(leader) ? local : undefined);
        if (outcome.kind === "answered") return outcome.result;
        seen = { kind: "attempt", epoch: leader.epoch, outcome: outcome.kind };
      } else if (step.kind === "ask journal" && leader !== undefined) {
        const settled = await forwarding.settleFromJournal(leader.epoch);
        if (settled.word === "committed") return settled.answer;
        seen = { kind: "journal", epoch: leader.epoch, word: settled.word };
      } else if (step.kind === "overloaded") {
        throw new EngineOverloadedError("leader queueCommandsMax", 0);
      } else if (step.kind === "retry") {
        this.stats.retries += 1;
        await this.#clock.sleep(step.waitMs);
        leader = await this.#currentLeader(true);
        seen = { kind: "leader", epoch: leader?.epoch };
      } else {
        // "give up" ("done" was returned above; "send" and "ask journal" follow a leader read).
        return await this.#giveUp(forwarding, progress.unsettledEpoch);
      }
    }
  }

  /**
   * The deadline passed. A command a leader took without answering is looked up in the journal
   * once more (the epoch read first: a miss proves "never" only if a later epoch led first), and
   * answered from it if it is there; otherwise verdictAtDeadline says what is known.
   */
  async #giveUp<Answer>(
    forwarding: Forwarding<Command, Event, Answer>,
    unsettledEpoch: bigint | undefined,
  ): Promise<Answer> {
    let leaderEpoch: bigint | undefined;
    let journal: Exclude<JournalWord, "committed"> | undefined;
    if (unsettledEpoch !== undefined) {
      leaderEpoch = (await this.#currentLeader(true))?.epoch;
      const settled = await forwarding.settleFromJournal(leaderEpoch ?? unsettledEpoch);
      if (settled.word === "committed") return settled.answer;
      journal = settled.word;
    }
    const verdict = verdictAtDeadline({
      unsettledEpoch,
      leaderEpoch,
      journal,
      partlySettled: forwarding.partlySettled(),
    });
    const waited = `No engine leader answered within ${this.#failoverDeadlineMs} ms`;
    if (verdict.kind === "nothing done") {
      this.stats.gaveUp += 1;
      throw new EngineStoppedError(`${waited}; the command was not committed`);
    }
    this.stats.outcomeUnknown += 1;
    throw new EngineOutcomeUnknownError(
      verdict.why === "may still commit"
        ? `${waited}; the leader of epoch ${unsettledEpoch} took the command and may still commit it`
        : `${waited}; part of the group was committed (found in the journal), the rest was not`,
    );
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
   * Answers once the replica holds the command, so a read right after sees it, waiting no later
   * than the command's deadline, or one attempt's time when the answer came at the deadline (the
   * journal's, looked up then): an answer in hand is given, not held past a client's timeout. It
   * is the truth either way; past the wait it goes out without read-your-writes (logged).
   */
  async #answered(result: SubmitResult<Event>, deadlineMs: number): Promise<SubmitResult<Event>> {
    this.stats.answered += 1;
    if (!result.ok) return result;
    const untilMs = Math.max(deadlineMs, this.#clock.now() + this.#attemptTimeoutMs);
    if ((await this.#replica.holdBy(result.sequence, untilMs)) === "timed out") {
      this.#options.logger.error(
        { sequence: result.sequence },
        "the replica could not read a committed command in time; answering without read-your-writes",
      );
    }
    return result;
  }

  #send<Answer, Decoded>(
    leader: AdvertisedLeader,
    path: string,
    body: string,
    toAttempt: (answer: Decoded) => Attempt<Answer>,
  ): Promise<Attempt<Answer>> {
    const timeMs = this.#clock.now();
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
}

/** The accepted result with the highest sequence, if any was accepted. */
function lastAccepted<Event>(results: readonly SubmitResult<Event>[]): SubmitResult<Event> | undefined {
  let last: SubmitResult<Event> | undefined;
  for (const result of results) {
    if (result.ok && (last === undefined || (last.ok && result.sequence > last.sequence))) last = result;
  }
  return last;
}

/** What a leader's answer (over HTTP or in-process) means for the command or group. */
function attemptOfAnswer<Answer extends CommandAnswer<unknown> | CommandGroupAnswer<unknown>>(
  answer: Answer,
): Attempt<Exclude<Answer, { readonly refused: unknown }>> {
  if (!("refused" in answer))
    return { kind: "answered", result: answer as Exclude<Answer, { readonly refused: unknown }> };
  if (answer.refused === "overloaded") return { kind: "overloaded" };
  if (answer.refused === "fatal") return { kind: "unknown" };
  return { kind: "not-taken" };
}
