// Keeps the journal in the database short: on a schedule (and when the operator asks, through
// POST /admin/journal/archive or `predex journal archive`), entries through the engine's latest
// snapshot move to the journal archive (src/engine/journal-archive.ts), one bounded segment per
// step with the event loop free between steps. Only one run at a time in a process: a request that
// arrives during a scheduled run waits for it and then runs its own (on PostgreSQL the archive's
// own lock makes runs on several nodes take turns too). The embedded node and the engine leader run
// it on a schedule; on PostgreSQL any node also runs it on request, since the archive there bounds
// every step by the database's latest snapshot itself.

import type { Logger } from "pino";
import type { ExchangeCommand, ExchangeEvent } from "../core/exchange.js";
import type { ArchiveManifest, JournalArchive } from "../engine/journal-archive.js";
import type { EngineStore } from "../engine/store.js";
import type { ExchangeEngine } from "./exchange-engine.js";

/** How often the platform archives what the snapshots have made unnecessary. */
export const journalArchiveIntervalMs = 60_000;
/** Segments one run writes at most, so a long backlog is worked off over several runs. */
export const journalArchiveRunSegmentsMax = 20;

export interface JournalArchiveRun {
  readonly archivedEntries: number;
  readonly segmentsWritten: number;
  readonly archivedThrough: string;
  readonly snapshotSequence: string;
  readonly committedSequence: string;
  readonly segments: number;
  readonly archiveBytes: number;
  readonly directory: string;
}

export interface JournalArchiver {
  readonly archive: JournalArchive<ExchangeCommand, ExchangeEvent>;
  /** Archives through the latest snapshot now (bounded: journalArchiveRunSegmentsMax segments). */
  runNow(): Promise<JournalArchiveRun>;
  stop(): Promise<void>;
}

export function startJournalArchiver(options: {
  /** Its committedSequence goes in the report; the scheduled run runs only while it runs. */
  readonly engine: ExchangeEngine;
  /** The latest snapshot's sequence: nothing after it is archived. */
  readonly snapshotSequence: () => bigint | Promise<bigint>;
  readonly store: EngineStore<ExchangeCommand, ExchangeEvent, unknown>;
  readonly archive: JournalArchive<ExchangeCommand, ExchangeEvent>;
  readonly logger: Logger;
  /** false: only on request (runNow). */
  readonly scheduled?: boolean;
  readonly intervalMs?: number;
}): JournalArchiver {
  const { engine, store, logger, archive } = options;
  let running: Promise<JournalArchiveRun> | undefined;
  let stopped = false;

  const runOnce = async (): Promise<JournalArchiveRun> => {
    let archivedEntries = 0;
    let segmentsWritten = 0;
    const through = await options.snapshotSequence();
    while (!stopped && segmentsWritten < journalArchiveRunSegmentsMax) {
      const step = await archive.archiveStep(store, through);
      if (step.archivedEntries === 0) break;
      archivedEntries += step.archivedEntries;
      segmentsWritten += 1;
    }
    const manifest: ArchiveManifest = await archive.readManifest();
    return {
      archivedEntries,
      segmentsWritten,
      archivedThrough: manifest.archivedThrough,
      snapshotSequence: String(through),
      committedSequence: String(engine.committedSequence),
      segments: manifest.segments.length,
      archiveBytes: manifest.segments.reduce((sum, segment) => sum + segment.bytes, 0),
      directory: archive.location,
    };
  };
  const runNow = async (): Promise<JournalArchiveRun> => {
    while (running !== undefined) await running.catch(() => {});
    running = runOnce();
    try {
      return await running;
    } finally {
      running = undefined;
    }
  };
  const timer =
    options.scheduled === false
      ? undefined
      : setInterval(() => {
          if (running !== undefined || engine.phase !== "running") return;
          runNow().then(
            (run) => {
              if (run.archivedEntries > 0) logger.info(run, "journal archived");
            },
            (error: unknown) => logger.error({ err: error }, "journal archive step failed"),
          );
        }, options.intervalMs ?? journalArchiveIntervalMs);
  timer?.unref();
  return {
    archive,
    runNow,
    async stop() {
      stopped = true;
      if (timer !== undefined) clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
