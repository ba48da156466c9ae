// The exchange as the platform runs it: the core's decider on the durable engine over the SQLite
// file, the read models projected behind the journal (src/engine/deferred-projection.ts: a command
// is acknowledged once its journal entry is durable, and every read of a read model first catches
// them up), and the scheduler that submits what time makes due. server.ts opens it once; routes
// reach it through deps.engine and deps.exchangeReadModels.

import type { Logger } from "pino";
import {
  assertInvariants,
  dueScheduledCommands,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
} from "../core/exchange.js";
import {
  DeferredProjection,
  type DeferredProjectionLimits,
  type ProjectionStoppedError,
} from "../engine/deferred-projection.js";
import { Engine, type EngineLimits, type EngineObserver } from "../engine/engine.js";
import type { EngineFatalError } from "../engine/errors.js";
import { DirectoryJournalArchive } from "../engine/journal-archive.js";
import { type Scheduler, startScheduler } from "../engine/scheduler.js";
import type { JournalEntry } from "../engine/store.js";
import { withCaughtUpReads } from "../store/caught-up-reads.js";
import type { ExchangeReadModels } from "../store/exchange-read-models.js";
import type { SqliteDatabase } from "../store/sqlite/database.js";
import { SqliteEngineStore, type SqliteProjector } from "../store/sqlite/engine-store.js";
import {
  createSqliteExchangeProjector,
  createSqliteExchangeReadModels,
} from "../store/sqlite/exchange-read-models.js";
import { createSqliteLegacyNotificationProjector } from "../store/sqlite/legacy-notifications.js";
import {
  createSqliteCommissionProjector,
  createSqliteMerchantCommissions,
  type MerchantCommissionReadModel,
} from "../store/sqlite/merchant-commissions.js";
import { SqliteReadModelProjection } from "../store/sqlite/read-model-projection.js";
import type { ExchangeEngine } from "./exchange-engine.js";
import { type JournalArchiver, startJournalArchiver } from "./journal-archiver.js";

export type { ExchangeEngine };

/** How often the scheduler looks for expired GTD orders and markets past their endTime. */
export const schedulerIntervalMs = 500;

export interface ExchangeHostOptions {
  readonly db: SqliteDatabase;
  /** The engine's commit clock: the platform's clock, so tests that move time move trading time too. */
  readonly clock: () => number;
  readonly logger: Logger;
  /**
   * The engine stopped for good (a failed commit or a broken invariant), or the read models' projection
   * did (a failed step): the host must exit.
   */
  readonly onFatal: (error: EngineFatalError | ProjectionStoppedError) => void;
  readonly limits?: Partial<EngineLimits>;
  /** How the read models follow the journal (tests make steps small or rare). */
  readonly projectionLimits?: Partial<DeferredProjectionLimits>;
  /** More read models projected in the same steps, after the exchange's own (e.g. the catalogue's). */
  readonly projectors?: readonly SqliteProjector<ExchangeCommand, ExchangeEvent>[];
  /** See PlatformOptions.userHistoryIndexLag. */
  readonly userHistoryIndexLag?: number | undefined;
  /** Batch and snapshot timings for the metrics (src/metrics); undefined when metrics are off. */
  readonly observer?: EngineObserver | undefined;
  /** Where journal entries older than the latest snapshot are archived (PREDEX_JOURNAL_ARCHIVE_DIR). */
  readonly journalArchiveDir?: string | undefined;
}

/** The engine the host opens on the SQLite file (tests reach its replay check and snapshot position). */
export type SqliteExchangeEngine = Engine<ExchangeState, ExchangeCommand, ExchangeEvent, SqliteDatabase>;

export interface ExchangeHost {
  readonly engine: SqliteExchangeEngine;
  /** Each call first brings the read models up to the last committed command (read-your-writes). */
  readonly readModels: ExchangeReadModels;
  /** The read models behind the journal: call catchUp() before reading any projected table directly. */
  readonly projection: DeferredProjection<ExchangeCommand, ExchangeEvent>;
  /** Each merchant's fees and commission per month (for the legacy monthly bills). */
  readonly commissions: MerchantCommissionReadModel;
  /** Moves journal entries older than the latest snapshot to the archive, on a schedule and on request. */
  readonly journalArchiver: JournalArchiver | undefined;
  /** Stops the scheduler, then commits what is queued, writes a snapshot and projects the rest. */
  close(): Promise<void>;
}

/**
 * The read models every projection step writes, in order (each step is one transaction of its own,
 * behind the journal: read-model-projection.ts). Shared with the crash simulation, which runs the
 * same projectors over a database that loses power (test/sim).
 */
export function createExchangeProjectors(
  db: SqliteDatabase,
  options: Pick<ExchangeHostOptions, "projectors" | "userHistoryIndexLag"> = {},
): SqliteProjector<ExchangeCommand, ExchangeEvent>[] {
  // Commission reads the identity tables (user → merchant, rate): the platform opens them first.
  // The legacy settlement notifications read positions, so they come after the exchange's projector.
  const projectors = [
    createSqliteExchangeProjector(db, { userHistoryIndexLag: options.userHistoryIndexLag }),
    createSqliteCommissionProjector(db),
    createSqliteLegacyNotificationProjector(db),
  ];
  return [projectUpToEachSettlement(projectors), ...(options.projectors ?? [])];
}

/**
 * Runs the projectors over a batch cut right after each entry that settles or voids a market, so
 * the settlement notifications read positions as they were at the settlement. Over the whole batch
 * at once, a claim committed in the same batch had already emptied the positions they read (the
 * crash simulation found it: the notifications differed from a projection one entry at a time).
 */
function projectUpToEachSettlement(
  projectors: readonly SqliteProjector<ExchangeCommand, ExchangeEvent>[],
): SqliteProjector<ExchangeCommand, ExchangeEvent> {
  const run = (db: SqliteDatabase, entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]) => {
    for (const projector of projectors) projector(db, entries);
  };
  return (db, entries) => {
    let start = 0;
    entries.forEach((entry, index) => {
      if (entry.events.some((event) => event.type === "MarketSettled" || event.type === "MarketVoided")) {
        run(db, entries.slice(start, index + 1));
        start = index + 1;
      }
    });
    if (start === 0) run(db, entries);
    else if (start < entries.length) run(db, entries.slice(start));
  };
}

/** Where the snapshot worker finds the exchange core (src/engine/snapshot-worker.ts). */
export const exchangeSnapshotWorker = {
  moduleUrl: new URL("../core/exchange.js", import.meta.url).href,
  deciderExport: "exchangeDecider",
  codecExport: "exchangeStateCodec",
} as const;

export async function openExchangeHost(options: ExchangeHostOptions): Promise<ExchangeHost> {
  const { db, logger } = options;
  const store = new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db);
  const archive =
    options.journalArchiveDir === undefined
      ? undefined
      : new DirectoryJournalArchive<ExchangeCommand, ExchangeEvent>(options.journalArchiveDir);
  const engine: SqliteExchangeEngine = await Engine.open({
    decider: exchangeDecider,
    codec: exchangeStateCodec,
    store,
    // verifyReplay's full replay from sequence 1 reads the archived entries first.
    ...(archive === undefined ? {} : { journalHistory: archive.history(store) }),
    // Snapshots are encoded on a worker thread: at a million orders that takes seconds (bench:snapshot).
    snapshotWorker: exchangeSnapshotWorker,
    // The read models are not written in the journal's commits: they follow it (below).
    projectors: [],
    clock: options.clock,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    assertState: assertInvariants,
    onFatal: options.onFatal,
    ...(options.observer === undefined ? {} : { observer: options.observer }),
    onError: (error, context) => logger.error({ err: error, context }, "exchange engine problem"),
  });
  const history = archive === undefined ? store : archive.history(store);
  let projection: DeferredProjection<ExchangeCommand, ExchangeEvent>;
  try {
    projection = await DeferredProjection.open({
      target: new SqliteReadModelProjection(db, createExchangeProjectors(db, options)),
      // What a crash left unprojected; archived entries are read from the archive.
      journal: history,
      committedSequence: engine.committedSequence,
      ...(options.projectionLimits === undefined ? {} : { limits: options.projectionLimits }),
      onFatal: options.onFatal,
    });
  } catch (error) {
    await engine.close({ snapshot: false });
    throw error;
  }
  // Before anything else can submit: every committed batch reaches the projection before its
  // submitters are answered, so a read after an acknowledgement finds it there to project.
  engine.onCommitted((entries) => projection.committed(entries));
  const catchUp = () => projection.catchUp();
  const scheduler: Scheduler = startScheduler({
    engine,
    due: dueScheduledCommands,
    intervalMs: schedulerIntervalMs,
    clock: options.clock,
    // A refusal means another command got there first (an operator closed the market): nothing to do.
    onRejected: (command, rejection) => logger.debug({ command, rejection }, "scheduled command refused"),
    onError: (error) => logger.warn({ err: error }, "scheduler tick failed"),
  });
  const journalArchiver =
    archive === undefined
      ? undefined
      : startJournalArchiver({
          engine,
          // Entries the read models have not projected stay in the journal, for the next start.
          snapshotSequence: () => {
            const { projectedSequence } = projection;
            if (projectedSequence < engine.snapshotSequence) return projectedSequence;
            return engine.snapshotSequence;
          },
          store,
          archive,
          logger,
        });
  return {
    engine,
    readModels: withCaughtUpReads(createSqliteExchangeReadModels(db), catchUp),
    projection,
    commissions: withCaughtUpReads(createSqliteMerchantCommissions(db), catchUp),
    journalArchiver,
    async close() {
      await journalArchiver?.stop();
      await scheduler.stop();
      await engine.close();
      // After the engine's last commit (and its WAL sync): the descriptor the syncs used.
      await store.close();
      // After the engine's last commit: the read models hold the whole journal when the file closes.
      projection.close();
    },
  };
}
