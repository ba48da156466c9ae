// `predex serve --role engine` (and the engine half of an all-in-one node on PostgreSQL): every engine
// node starts as a warm standby that follows the journal; the first to take the leadership lock
// leads. The leader bumps the fencing epoch, reads the journal to its end, checks the core's
// invariants, starts the engine from that warm state with the read models' PostgreSQL projectors,
// runs the scheduler, opens its command port on any free port and advertises it in the database
// under its epoch.
//
// The node rides out faults of the database by itself (docs/decisions.md "Engine nodes ride out
// database faults"). Its life is a run of terms: each term has its own pool, projectors and warm
// standby, built from the database's latest snapshot and journal; the standby campaigns for the
// lock and the term may lead. A leader that loses its lock, whose commit fails or does not answer
// in time, or that cannot start leading, steps down in-process: it stops taking commands, answers
// what it cannot confirm as an unknown outcome (EngineFatalError: API nodes settle it from the
// journal once a leader leads again), lets go of the lock, ends its term's sessions on the server,
// and starts a new term from the database, never keeping a state the database may not have. A
// standby keeps its warm state across a blip (its reads are retried). The database being away at
// start, at a rebuild or in a campaign is waited out with a backoff, and logged. Every statement is
// bounded (connect and statement timeouts), so a database that stops answering, or a commit
// waiting for a synchronous standby that is gone, ends in a step-down rather than a hang. The
// process ends (onFatal) only on a broken invariant: the core threw, or the database's own journal
// yields a state that breaks the core's invariants or contradicts itself on every rebuild.

import { setTimeout as delay } from "node:timers/promises";
import type { Logger } from "pino";
import { deriveCommandKey } from "../cluster/command-auth.js";
import { type CommandServer, startCommandServer } from "../cluster/command-server.js";
import { answerOf, groupAnswerOf, type LocalCommandPort } from "../cluster/local-command-port.js";
import type { TopologyConfig } from "../config/topology-config.js";
import {
  assertInvariants,
  dueScheduledCommands,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
} from "../core/exchange.js";
import { Engine, type EngineLimits, type EngineObserver, type SubmitResult } from "../engine/engine.js";
import { type EngineFatalError, JournalCorruptionError } from "../engine/errors.js";
import { type Scheduler, startScheduler } from "../engine/scheduler.js";
import type { JournalEntry } from "../engine/store.js";
import { exchangeSnapshotWorker, schedulerIntervalMs } from "../exchange/exchange-host.js";
import { type JournalArchiver, startJournalArchiver } from "../exchange/journal-archiver.js";
import type { PostgresClient, PostgresConnectionOptions, PostgresPool } from "../store/postgres/database.js";
import { openPostgresPool } from "../store/postgres/database.js";
import { advertiseLeader } from "../store/postgres/engine-cluster.js";
import type { PostgresProjector } from "../store/postgres/engine-store.js";
import { createForwardedCommandsProjector } from "../store/postgres/forwarded-commands.js";
import { PostgresJournalArchive } from "../store/postgres/journal-archive.js";
import {
  defaultNodeId,
  endSessionsOf,
  engineApplicationName,
  LeadershipAbortedError,
} from "../store/postgres/leadership.js";
import {
  type PostgresProjectionLimits,
  PostgresReadModelProjection,
} from "../store/postgres/read-model-projection.js";
import { StandbyStateBrokenError, type Takeover, WarmStandby } from "../store/postgres/warm-standby.js";
import type { PostgresEngineProjectors } from "./postgres-projectors.js";

export type PostgresExchangeEngine = Engine<ExchangeState, ExchangeCommand, ExchangeEvent, PostgresClient>;

export interface EngineNodeOptions {
  readonly databaseUrl: string;
  readonly topology: TopologyConfig;
  readonly masterKey: Buffer;
  readonly logger: Logger;
  /** The read models every commit projects (built by the PostgreSQL platform stores). */
  readonly openProjectors: (pool: PostgresPool) => Promise<PostgresEngineProjectors>;
  readonly clock?: () => number;
  readonly limits?: Partial<EngineLimits>;
  /** How the read models follow the journal (tests make steps small or rare). */
  readonly projectionLimits?: Partial<PostgresProjectionLimits>;
  readonly observer?: EngineObserver;
  /** The process must end: an invariant broke. Default: log and exit. */
  readonly onFatal?: (reason: Error, exitCode: number) => void;
  readonly nodeId?: string;
  /** How often the standby reads the journal without a notification. */
  readonly pollEveryMs?: number;
  /** The first pause when the database is away (start, rebuild); it doubles up to retryMaxMs. */
  readonly retryFirstMs?: number;
  readonly retryMaxMs?: number;
}

export interface LeaderState {
  readonly epoch: bigint;
  /** The advertised command port. */
  readonly commandUrl: string;
  readonly engine: PostgresExchangeEngine;
  /** The journal's end when this node took over. */
  readonly tookOverAt: bigint;
  /** The leader's journal archiver: every minute, into the database's own archive table. */
  readonly journalArchiver: JournalArchiver;
}

/**
 * Where a node is in its life: starting or rebuilding a term from the database ("starting"),
 * following and campaigning ("standby"), leading, letting go of a lead ("stepping-down"), or
 * stopped for good.
 */
export type EngineNodeRole = "starting" | "standby" | "leading" | "stepping-down" | "stopped";

export interface EngineNode {
  readonly nodeId: string;
  /** The journal sequence the first standby had followed to when it started. */
  readonly followingFrom: bigint;
  /** Resolves the first time this node leads (never, while another node does); rejects if it stops first. */
  readonly leading: Promise<LeaderState>;
  readonly role: EngineNodeRole;
  /** This node's lead while it leads (and takes commands), else undefined. */
  readonly leader: LeaderState | undefined;
  /** Tells `listener` every time this node starts leading. Returns an unsubscribe. */
  onLeading(listener: (leader: LeaderState) => void): () => void;
  /** Tells `listener` each position the read models reach while this node leads (its own steps). */
  onReadModelsProjected(listener: (sequence: bigint) => void): () => void;
  /**
   * Tells `listener` every time this node has stepped down and follows again as a standby rebuilt
   * from the database (at `sequence`), with why it stepped down. Returns an unsubscribe.
   */
  onSteppedDown(listener: (reason: Error, sequence: bigint) => void): () => void;
  /** This node's command port in-process, for the API half of an all-in-one node (local-command-port.ts). */
  readonly localCommands: LocalCommandPort<ExchangeCommand, ExchangeEvent>;
  /** Forks the standby's copy met, over every term (it held another history than the journal and was rebuilt). */
  readonly journalForks: number;
  /** The last journal entry the current standby's copy holds (it stops moving while this node leads). */
  readonly standbySequence: bigint;
  /** Gives up leadership (or stops waiting for it), commits what is queued, closes the pool. */
  close(): Promise<void>;
}

/**
 * The exit code, for a broken invariant only (a supervisor restarting the node would meet the same
 * state). A lost leadership no longer ends the process (it used to exit with 75).
 */
export const exitCodes = { engineFailed: 70 } as const;

/** Opening a connection to the database is given up after this long (then retried). */
export const engineConnectTimeoutMs = 5_000;
/** The shortest statement timeout of an engine node's connections; the lease when that is longer. */
export const engineStatementTimeoutMsMin = 5_000;
export const defaultEngineRetryFirstMs = 100;
export const defaultEngineRetryMaxMs = 1_000;
/** Rebuilds in a row that find the journal contradicting the state before the node gives up. */
export const rebuildCorruptAttemptsMax = 5;

/**
 * The connections of a term's pool. A paused leader must not hold row locks a takeover waits for
 * longer than its lease. Planned in PostgreSQL's default mode: the commits carry the journal alone,
 * whose statement and guard trigger are planned once per connection (engine-store.ts), and the
 * read-model steps set their own planning (step-planning.ts).
 */
export function engineTermConnections(term: {
  readonly url: string;
  readonly termId: string;
  readonly leaseMs: number;
}): PostgresConnectionOptions {
  return {
    url: term.url,
    applicationName: engineApplicationName(term.termId),
    idleInTransactionTimeoutMs: term.leaseMs,
    connectTimeoutMs: engineConnectTimeoutMs,
    statementTimeoutMs: Math.max(term.leaseMs, engineStatementTimeoutMsMin),
  };
}

/** One term of the node: its pool, projectors and standby, built from the database. */
interface Term {
  readonly id: string;
  readonly pool: PostgresPool;
  readonly readModels: PostgresEngineProjectors;
  /** Written in each journal commit: the forwarded commands' ids only (they ride in the append). */
  readonly projectors: PostgresProjector<ExchangeCommand, ExchangeEvent>[];
  readonly standby: WarmStandby<ExchangeState, ExchangeCommand, ExchangeEvent>;
}

/** Why a lead ended: `exitCode` when the process must end. */
interface LeadEnd {
  readonly reason: Error;
  readonly exitCode?: number;
}

interface Lead {
  readonly state: LeaderState;
  readonly takeover: Takeover<ExchangeState, ExchangeCommand, ExchangeEvent>;
  readonly engine: PostgresExchangeEngine;
  readonly scheduler: Scheduler;
  readonly journalArchiver: JournalArchiver;
  /** The read models behind the journal (src/store/postgres/read-model-projection.ts). */
  readonly projection: PostgresReadModelProjection<ExchangeCommand, ExchangeEvent>;
  readonly server: CommandServer;
  readonly submit: (command: ExchangeCommand, forwardId: string) => Promise<SubmitResult<ExchangeEvent>>;
  readonly submitMany: (
    commands: readonly ExchangeCommand[],
    forwardIds: readonly string[],
  ) => Promise<SubmitResult<ExchangeEvent>[]>;
  readonly accepting: () => boolean;
}

/** Log the 1st, 2nd, 4th, 8th… failure of a retried step, and every 60th: a long outage stays readable. */
function worthLogging(attempt: number): boolean {
  return (attempt & (attempt - 1)) === 0 || attempt % 60 === 0;
}

export async function startEngineNode(options: EngineNodeOptions): Promise<EngineNode> {
  const { logger, topology } = options;
  const nodeId = options.nodeId ?? defaultNodeId();
  const clock = options.clock ?? Date.now;
  const retryFirstMs = options.retryFirstMs ?? defaultEngineRetryFirstMs;
  const retryMaxMs = options.retryMaxMs ?? defaultEngineRetryMaxMs;
  const statementTimeoutMs = Math.max(topology.leaseMs, engineStatementTimeoutMsMin);
  const onFatal =
    options.onFatal ??
    ((reason: Error, exitCode: number) => {
      logger.fatal({ err: reason }, "engine node stopping: an invariant is broken");
      process.exit(exitCode);
    });
  const stopping = new AbortController();
  let role: EngineNodeRole = "starting";
  let termNumber = 0;
  let currentTerm: Term | undefined;
  // Forks met by every term's standby, and where the last closed term's copy stood.
  let journalForks = 0;
  let lastStandbySequence = 0n;
  let currentLead: Lead | undefined;
  /** Ends the current lead (leadership lost, the engine failed, the node closing). */
  let endLead: ((end: LeadEnd) => void) | undefined;
  const leadingListeners = new Set<(leader: LeaderState) => void>();
  const steppedDownListeners = new Set<(reason: Error, sequence: bigint) => void>();
  // Who hears of this node's commits while it leads (localCommands.onCommitted).
  // Who hears of the read models' position while this node leads (onReadModelsProjected).
  const projectedListeners = new Set<(sequence: bigint) => void>();
  const committedListeners = new Set<
    (entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]) => void
  >();
  // The id each forwarded command arrived with, by the command object the engine journals.
  const forwardIds = new WeakMap<ExchangeCommand, string>();
  let resolveFirstLead!: (leader: LeaderState) => void;
  let rejectFirstLead!: (error: Error) => void;
  const leading = new Promise<LeaderState>((resolve, reject) => {
    resolveFirstLead = resolve;
    rejectFirstLead = reject;
  });
  // Nobody may be waiting for it (an API node that never leads).
  leading.catch(() => {});

  const backoff = (attempt: number) =>
    delay(Math.min(retryFirstMs * 2 ** Math.min(attempt - 1, 16), retryMaxMs));

  /** Ends a pool without waiting past its statements' bound (a pool ends once its clients return). */
  const endPool = async (pool: PostgresPool) => {
    const timer = new AbortController();
    await Promise.race([
      pool.end().catch(() => {}),
      delay(2 * statementTimeoutMs, undefined, { signal: timer.signal }).catch(() => {}),
    ]);
    timer.abort();
  };

  /**
   * A new term from the database: pool, projectors, warm standby (latest snapshot + journal). The
   * database being away is waited out; resolves undefined when the node stops meanwhile.
   */
  const openTerm = async (previousTermId: string | undefined): Promise<Term | undefined> => {
    termNumber += 1;
    const id = `${nodeId}/${termNumber}`;
    let corruptInARow = 0;
    for (let attempt = 1; !stopping.signal.aborted; attempt++) {
      const pool = openPostgresPool(
        engineTermConnections({ url: options.databaseUrl, termId: id, leaseMs: topology.leaseMs }),
      );
      let readModels: PostgresEngineProjectors | undefined;
      try {
        // Whatever the last term left running on the server (a commit given up on while it waited
        // for a synchronous standby) ends now, with its locks.
        if (previousTermId !== undefined) await endSessionsOf(pool, previousTermId);
        readModels = await options.openProjectors(pool);
        // The read models follow the journal (openLeaderEngine); the commit writes only the journal
        // and the forwarded commands' ids.
        const projectors = [
          await createForwardedCommandsProjector<ExchangeCommand, ExchangeEvent>(pool, (command) =>
            forwardIds.get(command),
          ),
        ];
        const standby = await WarmStandby.start({
          url: options.databaseUrl,
          pool,
          nodeId: id,
          decider: exchangeDecider,
          codec: exchangeStateCodec,
          assertState: assertInvariants,
          leaseMs: topology.leaseMs,
          renewEveryMs: Math.max(200, Math.floor(topology.leaseMs / 5)),
          lockWaitSliceMs: 250,
          connectTimeoutMs: engineConnectTimeoutMs,
          statementTimeoutMs,
          campaignRetryFirstMs: retryFirstMs,
          campaignRetryMaxMs: retryMaxMs,
          ...(options.pollEveryMs === undefined ? {} : { pollEveryMs: options.pollEveryMs }),
          onFork: (error) => {
            journalForks += 1;
            logger.error(
              { err: error, forkAt: String(error.sequence) },
              "journal fork: this standby's copy holds another history than the database (an asynchronous failover lost acknowledged entries, or a split brain); rebuilding it from the database's snapshot and journal",
            );
          },
          onFollowError: (error) =>
            logger.warn({ err: error }, "standby: reading the journal failed; retrying"),
          onCampaignError: (error, campaignAttempt, waitMs) => {
            if (worthLogging(campaignAttempt)) {
              logger.warn(
                { err: error, attempt: campaignAttempt, waitMs },
                "standby: taking over failed (is the database reachable?); trying again",
              );
            }
          },
        });
        return { id, pool, readModels, projectors, standby };
      } catch (error) {
        await readModels?.close().catch(() => {});
        await endPool(pool);
        if (stopping.signal.aborted) return undefined;
        corruptInARow = error instanceof JournalCorruptionError ? corruptInARow + 1 : 0;
        if (corruptInARow >= rebuildCorruptAttemptsMax) {
          stop(
            new Error("The journal contradicts its snapshot on every rebuild", { cause: error }),
            exitCodes.engineFailed,
          );
          return undefined;
        }
        if (worthLogging(attempt)) {
          logger.warn(
            { err: error, attempt },
            "engine node: could not load the state from the database (is it reachable?); retrying",
          );
        }
        await backoff(attempt);
      }
    }
    return undefined;
  };

  const closeTerm = async (term: Term) => {
    lastStandbySequence = term.standby.sequence;
    await term.standby.stop().catch(() => {});
    await term.readModels.close().catch(() => {});
    await endPool(term.pool);
  };

  let stopped = false;
  /** The node stops for good: a broken invariant (exitCode) or close(). */
  const stop = (reason: Error, exitCode: number | undefined) => {
    if (stopped) return;
    stopped = true;
    stopping.abort();
    role = "stopped";
    rejectFirstLead(reason);
    endLead?.({ reason, ...(exitCode === undefined ? {} : { exitCode }) });
    void currentTerm?.standby.stop();
    if (exitCode !== undefined) onFatal(reason, exitCode);
  };

  /** The leader's engine from the takeover's warm state, with its scheduler and journal archiver. */
  const openLeaderEngine = async (
    term: Term,
    takeover: Takeover<ExchangeState, ExchangeCommand, ExchangeEvent>,
    ended: (end: LeadEnd) => void,
  ) => {
    // The archive lives in the database (engine_journal_archive): every node reaches it.
    const archive = new PostgresJournalArchive<ExchangeCommand, ExchangeEvent>(term.pool);
    const engine: PostgresExchangeEngine = await Engine.open({
      decider: exchangeDecider,
      codec: exchangeStateCodec,
      store: takeover.store,
      journalHistory: archive.history(takeover.store),
      startFrom: takeover.state,
      projectors: term.projectors,
      snapshotWorker: exchangeSnapshotWorker,
      assertState: assertInvariants,
      clock,
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      ...(options.observer === undefined ? {} : { observer: options.observer }),
      // A commit that failed (or whose outcome is unknown) leaves the journal the truth: step down
      // and rebuild from it. The core throwing is a broken invariant: the process ends.
      onFatal: (error: EngineFatalError) =>
        ended(
          error.origin === "store" ? { reason: error } : { reason: error, exitCode: exitCodes.engineFailed },
        ),
      onError: (error, context) => logger.error({ err: error, context }, "exchange engine problem"),
    });
    // The read models the last leaders left behind the journal are projected before anything is
    // submitted or advertised; then every committed batch follows, before its submitters are answered.
    let projection: PostgresReadModelProjection<ExchangeCommand, ExchangeEvent>;
    try {
      projection = await PostgresReadModelProjection.open({
        pool: term.pool,
        projectors: term.readModels.projectors,
        journal: archive.history(takeover.store),
        committedSequence: engine.committedSequence,
        ...(options.projectionLimits === undefined ? {} : { limits: options.projectionLimits }),
        // A failed step: step down; the next leader projects from the recorded position.
        onFatal: (error) => ended({ reason: error }),
        onProjected: (sequence) => {
          for (const listener of projectedListeners) listener(sequence);
        },
      });
    } catch (error) {
      await engine.close({ snapshot: false }).catch(() => {});
      throw error;
    }
    engine.onCommitted((entries) => {
      projection.committed(entries);
      for (const listener of committedListeners) listener(entries);
    });
    const scheduler = startScheduler({
      engine,
      due: dueScheduledCommands,
      intervalMs: schedulerIntervalMs,
      clock,
      onRejected: (command, rejection) => logger.debug({ command, rejection }, "scheduled command refused"),
      onError: (error) => logger.warn({ err: error }, "scheduler tick failed"),
    });
    const journalArchiver = startJournalArchiver({
      engine,
      // Entries the read models have not projected stay in the journal, for the next leader.
      snapshotSequence: () => {
        const { projectedSequence } = projection;
        if (projectedSequence < engine.snapshotSequence) return projectedSequence;
        return engine.snapshotSequence;
      },
      store: takeover.store,
      archive,
      logger,
    });
    return { engine, scheduler, journalArchiver, projection };
  };

  /** Leads from a takeover: engine, scheduler, archiver, command port, advertised address. */
  const startLeading = async (
    term: Term,
    takeover: Takeover<ExchangeState, ExchangeCommand, ExchangeEvent>,
    ended: (end: LeadEnd) => void,
  ): Promise<Lead> => {
    const { epoch } = takeover.leadership;
    void takeover.leadership.lost.then((reason) => ended({ reason }));
    const { engine, scheduler, journalArchiver, projection } = await openLeaderEngine(term, takeover, ended);
    const submit = (command: ExchangeCommand, forwardId: string) => {
      forwardIds.set(command, forwardId);
      return engine.submit(command);
    };
    const submitMany = (commands: readonly ExchangeCommand[], ids: readonly string[]) => {
      commands.forEach((command, index) => {
        forwardIds.set(command, ids[index]!);
      });
      return engine.submitMany(commands);
    };
    let taking = true;
    const accepting = () => taking && takeover.leadership.isHeld() && engine.phase === "running";
    let server: CommandServer;
    try {
      server = await startCommandServer<ExchangeCommand, ExchangeEvent>({
        submit,
        submitMany,
        accepting,
        key: deriveCommandKey(options.masterKey),
        host: topology.engineHost,
        port: topology.enginePort,
        logger: logger.child({ component: "engine-command-port" }),
      });
    } catch (error) {
      taking = false;
      await scheduler.stop();
      await journalArchiver.stop();
      await engine.close({ snapshot: false }).catch(() => {});
      await projection.abandon(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
    const host = topology.engineAdvertiseHost.includes(":")
      ? `[${topology.engineAdvertiseHost}]`
      : topology.engineAdvertiseHost;
    const commandUrl = `http://${host}:${server.port}`;
    const state: LeaderState = {
      epoch,
      commandUrl,
      engine,
      tookOverAt: takeover.state.sequence,
      journalArchiver,
    };
    const lead: Lead = {
      state,
      takeover,
      engine,
      scheduler,
      journalArchiver,
      projection,
      server,
      submit,
      submitMany,
      accepting: () => accepting() && currentLead === lead,
    };
    try {
      await advertiseLeader(term.pool, epoch, commandUrl);
    } catch (error) {
      taking = false;
      await stepDown(term, lead, false);
      throw error;
    }
    return lead;
  };

  /**
   * Lets go of a lead: no new command is taken; what is queued is committed if the database still
   * takes this epoch's writes, or answered as an unknown outcome (EngineFatalError) if not; the
   * command port closes, the lock goes, the term's pool ends. Bounded by the statement timeouts.
   */
  const stepDown = async (term: Term, lead: Lead, closing: boolean) => {
    if (currentLead === lead) currentLead = undefined;
    await lead.scheduler.stop().catch(() => {});
    await lead.journalArchiver.stop().catch(() => {});
    // A clean close snapshots (the next start replays less); a step-down may not be able to write.
    await lead.engine.close({ snapshot: closing }).catch((error: unknown) => {
      logger.warn({ err: error }, "engine node: closing the engine while stepping down failed");
    });
    // A clean close projects what is committed; a step-down leaves it to the next leader (which
    // projects from the recorded position), writing nothing more under a lost lead.
    if (closing) await lead.projection.close();
    else await lead.projection.abandon(new Error("The engine node stepped down"));
    await lead.server.close();
    await lead.takeover.leadership.release().catch(() => {});
    await closeTerm(term);
  };

  /** One term: campaigns, leads if it gets the lock, and returns the next term (undefined: stopped). */
  const runTerm = async (term: Term): Promise<Term | undefined> => {
    role = "standby";
    let takeover: Takeover<ExchangeState, ExchangeCommand, ExchangeEvent>;
    try {
      takeover = await term.standby.takeOver();
    } catch (error) {
      await closeTerm(term);
      if (error instanceof LeadershipAbortedError || stopping.signal.aborted) return undefined;
      if (error instanceof StandbyStateBrokenError) {
        stop(error, exitCodes.engineFailed);
        return undefined;
      }
      // The journal does not continue the standby's state (it fell behind an archived stretch):
      // a new standby from the latest snapshot.
      logger.warn(
        { err: error },
        "standby: cannot take over from its state; rebuilding it from the database",
      );
      role = "starting";
      return openTerm(term.id);
    }
    const ended = new Promise<LeadEnd>((resolve) => {
      let done = false;
      endLead = (end) => {
        if (done) return;
        done = true;
        resolve(end);
      };
    });
    // Closed while the lock was being taken: nothing was led yet.
    if (stopping.signal.aborted) endLead?.({ reason: new Error("The engine node was closed") });
    let lead: Lead;
    try {
      lead = await startLeading(term, takeover, (end) => endLead?.(end));
    } catch (error) {
      endLead = undefined;
      await takeover.leadership.release().catch(() => {});
      await closeTerm(term);
      if (stopping.signal.aborted) return undefined;
      logger.warn({ err: error }, "engine node: could not start leading; rebuilding from the database");
      role = "starting";
      return openTerm(term.id);
    }
    currentLead = lead;
    role = "leading";
    logger.info(
      {
        nodeId,
        term: term.id,
        epoch: String(lead.state.epoch),
        sequence: String(lead.state.tookOverAt),
        commandUrl: lead.state.commandUrl,
      },
      "engine node: leading",
    );
    resolveFirstLead(lead.state);
    for (const listener of leadingListeners) listener(lead.state);
    const end = await ended;
    endLead = undefined;
    const closing = stopping.signal.aborted;
    role = closing ? "stopped" : "stepping-down";
    if (end.exitCode === undefined && !closing) {
      logger.warn(
        { err: end.reason, epoch: String(lead.state.epoch) },
        "engine node: stepping down; its state is rebuilt from the database before it campaigns again",
      );
    }
    await stepDown(term, lead, closing);
    if (end.exitCode !== undefined) {
      stop(end.reason, end.exitCode);
      return undefined;
    }
    if (closing) return undefined;
    role = "starting";
    const next = await openTerm(term.id);
    if (next !== undefined) {
      for (const listener of steppedDownListeners) listener(end.reason, next.standby.sequence);
    }
    return next;
  };

  /** Terms one after another until the node stops; each closes its own resources. */
  const run = async (first: Term) => {
    let term: Term | undefined = first;
    while (term !== undefined) {
      currentTerm = term;
      term = await runTerm(term);
    }
    currentTerm = undefined;
    role = "stopped";
  };

  const first = await openTerm(undefined);
  if (first === undefined) throw new Error("The engine node stopped before it could start");
  const followingFrom = first.standby.sequence;
  logger.info({ nodeId, sequence: followingFrom }, "engine node: warm standby, following the journal");
  const running = run(first).catch((error: unknown) => {
    // Nothing above throws by design; if something does, it is a programmer error.
    stop(error instanceof Error ? error : new Error(String(error)), exitCodes.engineFailed);
  });

  const acceptingLead = (): Lead | undefined => (currentLead?.accepting() ? currentLead : undefined);
  const notLeading = () =>
    Promise.resolve({ ok: false, refused: "not-leader", message: "This engine node does not lead" } as const);
  const localCommands: LocalCommandPort<ExchangeCommand, ExchangeEvent> = {
    serves: (leader) => {
      const lead = currentLead;
      return (
        lead !== undefined &&
        leader.epoch === lead.state.epoch &&
        leader.url === lead.state.commandUrl &&
        lead.accepting()
      );
    },
    // serves() was true a moment ago; a lead lost since is refused as over HTTP.
    submit: (command, forwardId) => {
      const lead = acceptingLead();
      return lead === undefined ? notLeading() : answerOf(lead.submit, command, forwardId);
    },
    submitMany: (commands, forwardIds) => {
      const lead = acceptingLead();
      return lead === undefined ? notLeading() : groupAnswerOf(lead.submitMany, commands, forwardIds);
    },
    onCommitted(listener) {
      committedListeners.add(listener);
      return () => committedListeners.delete(listener);
    },
  };

  return {
    nodeId,
    followingFrom,
    leading,
    get role() {
      return role;
    },
    get leader() {
      const lead = currentLead;
      return lead?.accepting() ? lead.state : undefined;
    },
    onLeading(listener) {
      leadingListeners.add(listener);
      return () => leadingListeners.delete(listener);
    },
    onSteppedDown(listener) {
      steppedDownListeners.add(listener);
      return () => steppedDownListeners.delete(listener);
    },
    onReadModelsProjected(listener) {
      projectedListeners.add(listener);
      return () => projectedListeners.delete(listener);
    },
    localCommands,
    get journalForks() {
      return journalForks;
    },
    get standbySequence() {
      return currentTerm?.standby.sequence ?? lastStandbySequence;
    },
    async close() {
      // New commands are refused from here ("not-leader": API nodes look for the next leader); those
      // already queued are committed and answered before the port closes.
      stop(new Error("The engine node was closed"), undefined);
      await running;
    },
  };
}
