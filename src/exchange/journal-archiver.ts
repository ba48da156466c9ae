// Keeps the journal in the database short: on a schedule (and when the operator asks, through
// POST /admin/journal/archive or `predex journal archive`), entries through the engine's latest
// snapshot move to the journal archive (src/engine/journal-archive.ts), one bounded segment per
// step with the event loop free between steps. Only one run at a time: a request that arrives
// during a scheduled run waits for it and then runs its own.

import type { Logger } from "pino";
import type { ExchangeCommand, ExchangeEvent } from "../core/exchange.js";
import type { ArchiveManifest, JournalArchive } from "../engine/journal-archive.js";
import type { EngineStore } from "../engine/store.js";
import type { ExchangeLeaderEngine } from "./exchange-engine.js";

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
  readonly engine: ExchangeLeaderEngine;
  readonly store: EngineStore<ExchangeCommand, ExchangeEvent, unknown>;
  readonly archive: JournalArchive<ExchangeCommand, ExchangeEvent>;
  readonly logger: Logger;
  readonly intervalMs?: number;
}): JournalArchiver {
  const { engine, store, logger, archive } = options;
  let running: Promise<JournalArchiveRun> | undefined;
  let stopped = false;

  const runOnce = async (): Promise<JournalArchiveRun> => {
    let archivedEntries = 0;
    let segmentsWritten = 0;
    const through = engine.snapshotSequence;
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
      directory: archive.directory,
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
  const timer = setInterval(() => {
    if (running !== undefined || engine.phase !== "running") return;
    runNow().then(
      (run) => {
        if (run.archivedEntries > 0) logger.info(run, "journal archived");
      },
      (error: unknown) => logger.error({ err: error }, "journal archive step failed"),
    );
  }, options.intervalMs ?? journalArchiveIntervalMs);
  timer.unref();
  return {
    archive,
    runNow,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
