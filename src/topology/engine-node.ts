// `predex serve --role engine` (and the engine half of an all-in-one node on PostgreSQL): every engine
// node starts as a warm standby that follows the journal; the first to take the leadership lock
// leads. The leader bumps the fencing epoch, reads the journal to its end, checks the core's
// invariants, starts the engine from that warm state with the read models' PostgreSQL projectors,
// runs the scheduler, opens its command port on any free port and advertises it in the database
// under its epoch. Losing leadership or a failed commit ends the process: its memory may be ahead
// of the database, and a supervisor restarts it as a standby.

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
import type { EngineFatalError } from "../engine/errors.js";

import { type Scheduler, startScheduler } from "../engine/scheduler.js";
import type { JournalEntry } from "../engine/store.js";
import { exchangeSnapshotWorker, schedulerIntervalMs } from "../exchange/exchange-host.js";
import { type JournalArchiver, startJournalArchiver } from "../exchange/journal-archiver.js";
import type { PostgresClient, PostgresPool } from "../store/postgres/database.js";
import { openPostgresPool } from "../store/postgres/database.js";
import { advertiseLeader } from "../store/postgres/engine-cluster.js";
import type { PostgresProjector } from "../store/postgres/engine-store.js";
import { createForwardedCommandsProjector } from "../store/postgres/forwarded-commands.js";
import { PostgresJournalArchive } from "../store/postgres/journal-archive.js";
import { defaultNodeId, engineApplicationName } from "../store/postgres/leadership.js";
import { WarmStandby } from "../store/postgres/warm-standby.js";
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
  readonly observer?: EngineObserver;
  /** The process must end: leadership lost or the engine failed. Default: log and exit. */
  readonly onFatal?: (reason: Error, exitCode: number) => void;
  readonly nodeId?: string;
  /** How often the standby reads the journal without a notification. */
  readonly pollEveryMs?: number;
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

export interface EngineNode {
  readonly nodeId: string;
  /** The journal sequence the standby had followed to when it started. */
  readonly followingFrom: bigint;
  /** Resolves when this node leads (never, while another node does). */
  readonly leading: Promise<LeaderState>;
  /** This node's command port in-process, for the API half of an all-in-one node (local-command-port.ts). */
  readonly localCommands: LocalCommandPort<ExchangeCommand, ExchangeEvent>;
  /** Forks the standby's copy met (it held another history than the journal and was rebuilt). */
  readonly journalForks: number;
  /** The last journal entry the standby's copy holds (it stops moving once this node leads). */
  readonly standbySequence: bigint;
  /** Gives up leadership (or stops waiting for it), commits what is queued, closes the pool. */
  close(): Promise<void>;
}

/** Exit codes: a supervisor restarts the node either way (as a standby). */
export const exitCodes = { engineFailed: 70, leadershipLost: 75 } as const;

export async function startEngineNode(options: EngineNodeOptions): Promise<EngineNode> {
  const { logger, topology } = options;
  const nodeId = options.nodeId ?? defaultNodeId();
  const clock = options.clock ?? Date.now;
  const onFatal =
    options.onFatal ??
    ((reason: Error, exitCode: number) => {
      logger.fatal({ err: reason }, "engine node stopping: a supervisor restarts it as a standby");
      process.exit(exitCode);
    });
  // A paused leader must not hold row locks a takeover waits for longer than its lease.
  const pool = openPostgresPool({
    url: options.databaseUrl,
    applicationName: engineApplicationName(nodeId),
    idleInTransactionTimeoutMs: topology.leaseMs,
    customPlansOnly: true,
  });
  let closing = false;
  let server: CommandServer | undefined;
  let scheduler: Scheduler | undefined;
  let journalArchiver: JournalArchiver | undefined;
  let engine: PostgresExchangeEngine | undefined;
  let release: (() => Promise<void>) | undefined;
  let standby: WarmStandby<ExchangeState, ExchangeCommand, ExchangeEvent>;
  let projectors: PostgresProjector<ExchangeCommand, ExchangeEvent>[];
  let readModels: PostgresEngineProjectors | undefined;
  let localLeader:
    | {
        readonly epoch: bigint;
        readonly url: string;
        readonly submit: (
          command: ExchangeCommand,
          forwardId: string,
        ) => Promise<SubmitResult<ExchangeEvent>>;
        readonly submitMany: (
          commands: readonly ExchangeCommand[],
          forwardIds: readonly string[],
        ) => Promise<SubmitResult<ExchangeEvent>[]>;
        readonly accepting: () => boolean;
      }
    | undefined;
  // Who hears of this node's commits while it leads (localCommands.onCommitted).
  const committedListeners = new Set<
    (entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]) => void
  >();
  // The id each forwarded command arrived with, by the command object the engine journals.
  const forwardIds = new WeakMap<ExchangeCommand, string>();
  try {
    const opened = await options.openProjectors(pool);
    readModels = opened;
    projectors = [
      ...opened.projectors,
      await createForwardedCommandsProjector<ExchangeCommand, ExchangeEvent>(pool, (command) =>
        forwardIds.get(command),
      ),
    ];
    standby = await WarmStandby.start({
      url: options.databaseUrl,
      pool,
      nodeId,
      decider: exchangeDecider,
      codec: exchangeStateCodec,
      assertState: assertInvariants,
      leaseMs: topology.leaseMs,
      renewEveryMs: Math.max(200, Math.floor(topology.leaseMs / 5)),
      lockWaitSliceMs: 250,
      ...(options.pollEveryMs === undefined ? {} : { pollEveryMs: options.pollEveryMs }),
      onFollowError: (error) => logger.warn({ err: error }, "standby: reading the journal failed; retrying"),
      onFork: (error) =>
        logger.error(
          { err: error, forkAt: String(error.sequence) },
          "journal fork: this standby's copy holds another history than the database (an asynchronous failover lost acknowledged entries, or a split brain); rebuilding it from the database's snapshot and journal",
        ),
    });
  } catch (error) {
    await readModels?.close();
    await pool.end();
    throw error;
  }
  const followingFrom = standby.sequence;
  logger.info({ nodeId, sequence: followingFrom }, "engine node: warm standby, following the journal");

  const fail = (reason: Error, exitCode: number) => {
    if (closing) return;
    closing = true;
    onFatal(reason, exitCode);
  };

  const leading = (async (): Promise<LeaderState> => {
    const takeover = await standby.takeOver();
    release = () => takeover.leadership.release();
    const { epoch } = takeover.leadership;
    void takeover.leadership.lost.then((reason) => {
      if (!closing) fail(reason, exitCodes.leadershipLost);
    });
    // The archive lives in the database (engine_journal_archive): every node reaches it.
    const archive = new PostgresJournalArchive<ExchangeCommand, ExchangeEvent>(pool);
    engine = await Engine.open({
      decider: exchangeDecider,
      codec: exchangeStateCodec,
      store: takeover.store,
      journalHistory: archive.history(takeover.store),
      startFrom: takeover.state,
      projectors,
      snapshotWorker: exchangeSnapshotWorker,
      assertState: assertInvariants,
      clock,
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      ...(options.observer === undefined ? {} : { observer: options.observer }),
      onFatal: (error: EngineFatalError) => fail(error, exitCodes.engineFailed),
      onError: (error, context) => logger.error({ err: error, context }, "exchange engine problem"),
    });
    const running = engine;
    running.onCommitted((entries) => {
      for (const listener of committedListeners) listener(entries);
    });
    scheduler = startScheduler({
      engine: running,
      due: dueScheduledCommands,
      intervalMs: schedulerIntervalMs,
      clock,
      onRejected: (command, rejection) => logger.debug({ command, rejection }, "scheduled command refused"),
      onError: (error) => logger.warn({ err: error }, "scheduler tick failed"),
    });
    const archiver = startJournalArchiver({
      engine: running,
      snapshotSequence: () => running.snapshotSequence,
      store: takeover.store,
      archive,
      logger,
    });
    journalArchiver = archiver;
    const submit = (command: ExchangeCommand, forwardId: string) => {
      forwardIds.set(command, forwardId);
      return running.submit(command);
    };
    const submitMany = (commands: readonly ExchangeCommand[], ids: readonly string[]) => {
      commands.forEach((command, index) => {
        forwardIds.set(command, ids[index]!);
      });
      return running.submitMany(commands);
    };
    const accepting = () => !closing && takeover.leadership.isHeld() && running.phase === "running";
    server = await startCommandServer<ExchangeCommand, ExchangeEvent>({
      submit,
      submitMany,
      accepting,
      key: deriveCommandKey(options.masterKey),
      host: topology.engineHost,
      port: topology.enginePort,
      logger: logger.child({ component: "engine-command-port" }),
    });
    const host = topology.engineAdvertiseHost.includes(":")
      ? `[${topology.engineAdvertiseHost}]`
      : topology.engineAdvertiseHost;
    const commandUrl = `http://${host}:${server.port}`;
    await advertiseLeader(pool, epoch, commandUrl);
    localLeader = { epoch, url: commandUrl, submit, submitMany, accepting };
    logger.info(
      { nodeId, epoch: String(epoch), sequence: String(takeover.state.sequence), commandUrl },
      "engine node: leading",
    );
    return {
      epoch,
      commandUrl,
      engine: running,
      tookOverAt: takeover.state.sequence,
      journalArchiver: archiver,
    };
  })();
  // A failed takeover (the database gone, broken invariants) ends the node like a lost leadership.
  leading.catch((error: unknown) => {
    if (!closing) fail(error instanceof Error ? error : new Error(String(error)), exitCodes.engineFailed);
  });

  const localCommands: LocalCommandPort<ExchangeCommand, ExchangeEvent> = {
    serves: (leader) =>
      localLeader !== undefined &&
      leader.epoch === localLeader.epoch &&
      leader.url === localLeader.url &&
      localLeader.accepting(),
    submit: (command, forwardId) => {
      // serves() was true a moment ago; a leadership lost since is refused as over HTTP.
      if (localLeader === undefined || !localLeader.accepting()) {
        return Promise.resolve({
          ok: false,
          refused: "not-leader",
          message: "This engine node does not lead",
        });
      }
      return answerOf(localLeader.submit, command, forwardId);
    },
    submitMany: (commands, forwardIds) => {
      if (localLeader === undefined || !localLeader.accepting()) {
        return Promise.resolve({
          ok: false,
          refused: "not-leader",
          message: "This engine node does not lead",
        });
      }
      return groupAnswerOf(localLeader.submitMany, commands, forwardIds);
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
    localCommands,
    get journalForks() {
      return standby.forks;
    },
    get standbySequence() {
      return standby.sequence;
    },
    async close() {
      // New commands are refused from here ("not-leader": API nodes look for the next leader); those
      // already queued are committed and answered before the port closes.
      closing = true;
      await standby.stop();
      await journalArchiver?.stop();
      await scheduler?.stop();
      await engine?.close();
      await server?.close();
      await release?.();
      await readModels?.close();
      await pool.end();
    },
  };
}
