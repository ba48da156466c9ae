// Crash simulation of the real exchange: the core's decider on the durable engine, over a real
// SQLite file with the platform's own projectors (exchange read models, commissions, legacy
// notifications, market catalogue) following the journal as the platform runs them (projected
// behind it, in steps of their own: src/engine/deferred-projection.ts), fed a seeded stream of
// mixed commands (command-stream.ts).
// The database loses power at a write boundary chosen by the seed (power-cut-database.ts); the
// process "restarts" (the handle is dropped, the file reopened, the engine recovers from snapshot
// + journal), and the run goes on until the next power cut. After every recovery:
//
//   - no acknowledged command is lost, and each is in the journal with the events it was answered;
//   - the recovered state is byte-identical (so its state hash equal) to an uncrashed reference
//     that decided the journal's commands afresh, one by one, and those decisions gave exactly the
//     journaled events;
//   - the core's invariants hold (money conserved, every frozen atom backed, books sound);
//   - the read models agree with the core (balances) and with the journal (nothing half-written),
//     once projected up to it: power cuts fall between a journal commit and the step projecting
//     it, inside and between steps, and in the steps a restart takes to catch the read models up.
//
// At the end of a seed the read models are rebuilt from the journal into a fresh database and
// compared table by table with the crashed-and-recovered ones.
//
// A seed is replayable: the commands, the clock, the batch sizes and the power-cut points all come
// from it, and the engine is single-threaded over a synchronous store.

import {
  copyFileSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import {
  checkInvariants,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
  stateHash,
} from "../../src/core/exchange.js";
import { DeferredProjection } from "../../src/engine/deferred-projection.js";
import { Engine } from "../../src/engine/engine.js";
import { DirectoryJournalArchive } from "../../src/engine/journal-archive.js";
import { encodePlainData } from "../../src/engine/journal-codec.js";
import type { JournalSource } from "../../src/engine/store.js";
import { createExchangeProjectors } from "../../src/exchange/exchange-host.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import { createSqliteMarketCatalog } from "../../src/store/sqlite/market-catalog.js";
import { SqliteReadModelProjection } from "../../src/store/sqlite/read-model-projection.js";
import type { FdatasyncFunction } from "../../src/store/sqlite/wal-sync.js";
import {
  projectedTables,
  projectJournalAfresh,
  userHistoryIndexMismatches,
} from "../support/sqlite-projected-tables.js";
import { CommandStream, seededRandom } from "./command-stream.js";
import { type PowerCutSwitch, withPowerCut } from "./power-cut-database.js";

export interface SimOptions {
  readonly seed: number;
  /** Commands submitted over the whole run (crashes included). */
  readonly commands: number;
  /**
   * The next power cut comes 1 … crashGapWritesMax write boundaries after a restart (small gaps
   * more often than large ones, so both the first writes after a recovery and long runs of commits
   * are cut). 0: no power cuts but the one at firstCrashAtWrite.
   */
  readonly crashGapWritesMax: number;
  /** Cuts the power at exactly this write boundary of the run (counted from the first open). */
  readonly firstCrashAtWrite?: number;
  readonly snapshotEveryCommands?: number;
  /**
   * Bytes per snapshot chunk row (SqliteEngineStore): small, so a snapshot is written over many
   * write boundaries and the power is cut between its chunks, before and after the row naming them.
   */
  readonly snapshotChunkBytes?: number;
  readonly journalBatchCommandsMax?: number;
  /** Commands submitted together (one group) at most. */
  readonly groupCommandsMax?: number;
  /** Rebuild and compare every read model table at the end (slower). */
  readonly compareReadModels?: boolean;
  /**
   * Archive the journal now and then (after recoveries and between groups), through the latest
   * snapshot: its file writes and its journal deletes are write boundaries like the others.
   */
  readonly archiveJournal?: boolean;
}

export interface SimReport {
  readonly seed: number;
  /** Power cuts taken and recovered from. */
  readonly crashPoints: number;
  readonly commandsSubmitted: number;
  readonly acknowledged: number;
  /** Entries in the journal at the end (acknowledged + durable whose answer was lost). */
  readonly journalSequence: bigint;
  readonly writeBoundaries: number;
  readonly stateHash: string;
  /** Journaled commands by kind (PlaceOrder split by model and order type), to show the mix. */
  readonly journaledCommands: Readonly<Record<string, number>>;
  /** Commands the core refused, by rejection code (refusals are part of the mix). */
  readonly refusals: Readonly<Record<string, number>>;
  /** The last sequence moved to the journal archive by the end. */
  readonly archivedThrough: bigint;
  /** Chunk rows of the snapshots kept at the end: more than one a snapshot means cuts fell between them. */
  readonly snapshotChunkRows: number;
  /** Power cuts that fell while a restart caught the read models up with the journal. */
  readonly projectionCutsAtOpen: number;
  /** Power cuts after which the journal (on disk) was ahead of the read models: the split was cut. */
  readonly cutsWithReadModelsBehind: number;
  /** Power cuts that lost WAL bytes written but not synced (engine batches, steps, snapshot chunks). */
  readonly cutsLosingUnsyncedWrites: number;
}

type SimEngine = Engine<ExchangeState, ExchangeCommand, ExchangeEvent, SqliteDatabase>;
type SimProjection = DeferredProjection<ExchangeCommand, ExchangeEvent>;

export class SimFailure extends Error {
  constructor(seed: number, crashPoint: number, message: string) {
    super(`seed ${seed}, after power cut ${crashPoint}: ${message}`);
    this.name = "SimFailure";
  }
}

/** A sim's snapshot is a few KB: in chunks of 1 KiB it spans several writes. */
export const simSnapshotChunkBytes = 1024;
/** Entries per read-model step: small, so catching up takes several steps (and cuts between them). */
export const projectionStepEntriesMax = 5;

/** A directory in RAM when there is one: the simulation fsyncs on every commit. */
function scratchDirectory(): string {
  const base = process.platform === "linux" ? "/dev/shm" : tmpdir();
  try {
    return mkdtempSync(join(base, "predex-sim-"));
  } catch {
    return mkdtempSync(join(tmpdir(), "predex-sim-"));
  }
}

/**
 * The engine's store, telling when the snapshot saves handed to it are over. The engine writes a
 * snapshot in steps, a turn of the event loop each, without awaiting it; the simulation waits for
 * them before it awaits anything done on libuv's thread pool (the journal archive's file reads and
 * writes), which completes after however many turns the machine's load makes it: otherwise how many
 * snapshot steps (write boundaries) fall before, between or after those would vary from run to run,
 * and with them the write a power cut hits. And a process that lost power does nothing more: a
 * restart waits for the dead instance's save to stop (at its next write, which throws).
 */
class SimEngineStore extends SqliteEngineStore<ExchangeCommand, ExchangeEvent> {
  #saves: Promise<unknown> = Promise.resolve();

  override saveSnapshot(
    snapshot: Parameters<SqliteEngineStore<ExchangeCommand, ExchangeEvent>["saveSnapshot"]>[0],
  ) {
    const saved = super.saveSnapshot(snapshot);
    this.#saves = Promise.allSettled([this.#saves, saved]);
    return saved;
  }

  /** Resolves once every snapshot save handed to the store so far has ended, written or failed. */
  async snapshotSavesEnded(): Promise<void> {
    await this.#saves;
  }
}

interface Opened {
  readonly real: SqliteDatabase;
  readonly store: SimEngineStore;
  readonly db: SqliteDatabase;
  readonly power: PowerCutSwitch;
  readonly engine: SimEngine;
  readonly projection: SimProjection;
}

export async function runSimulation(options: SimOptions): Promise<SimReport> {
  const directory = scratchDirectory();
  try {
    return await simulate(options, directory);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

async function simulate(options: SimOptions, directory: string): Promise<SimReport> {
  const { seed } = options;
  // A power cut keeps the WAL only as far as a completed fdatasync reached, and perhaps some of what
  // was written after it (the kernel writes pages back when it likes): each restart opens a copy of
  // the file whose WAL is cut to a random length between the two (restartAfterPowerCut). SQLite
  // recovers the WAL as its longest valid prefix of commits, as after a real power cut. The engine's
  // batches are written at synchronous=NORMAL and acknowledged after that fdatasync (engine-store.ts),
  // so "written but not synced" is a state the cuts must reach. The WAL is never checkpointed during a
  // run (wal_autocheckpoint = 0) so that its length measures what was written, in order.
  let path = join(directory, "predex.sqlite");
  let copies = 0;
  /** WAL bytes a completed fdatasync covered (or that a restart found on "disk"). */
  let syncedWalBytes = 0;
  let cutsLosingUnsyncedWrites = 0;
  let currentPower: PowerCutSwitch | undefined;
  let stepClockMs = 0;
  const walBytes = () => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
  // What the store's WAL sync runs: the real fdatasync (in RAM: next to free), noting how much of the
  // WAL it covered, completing at the next turn of the event loop rather than from the thread pool,
  // so that a seed stays replayable (which commands share a batch depends on when syncs complete).
  // A sync that would complete after the power went off never completes: its batch is not
  // acknowledged.
  const simFdatasync: FdatasyncFunction = (fd, done) => {
    const power = currentPower;
    const covered = fstatSync(fd).size;
    let error: Error | null = null;
    try {
      fdatasyncSync(fd);
    } catch (caught) {
      error = caught as Error;
    }
    setImmediate(() => {
      if (power?.off === true)
        return done(Object.assign(new Error("power cut during fdatasync"), { code: "EIO" }));
      if (error === null && covered > syncedWalBytes) syncedWalBytes = covered;
      done(error);
    });
  };
  /** The process died with the power: the disk keeps the synced WAL and perhaps more of it. */
  const restartAfterPowerCut = async (opened: { real: SqliteDatabase; store?: SimEngineStore }) => {
    await opened.store?.snapshotSavesEnded();
    await opened.store?.close();
    const to = join(directory, `predex-${++copies}.sqlite`);
    copyFileSync(path, to);
    const wal = existsSync(`${path}-wal`) ? readFileSync(`${path}-wal`) : Buffer.alloc(0);
    const synced = Math.min(syncedWalBytes, wal.length);
    const kept = synced + Math.floor(random() * (wal.length - synced + 1));
    if (kept < wal.length) cutsLosingUnsyncedWrites += 1;
    writeFileSync(`${to}-wal`, wal.subarray(0, kept));
    opened.real.close();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    path = to;
    // The restart's recovery: SQLite keeps the WAL's longest valid prefix of commits. Folding that
    // prefix into the file now (what the first checkpoint after a real restart does) leaves what
    // the restarted process sees unchanged, and keeps the WAL to what was written since the last
    // restart: copying and recovering an ever longer WAL made a seed's restarts quadratic.
    const recovered = openDatabase({ path });
    recovered.pragma("wal_checkpoint(TRUNCATE)");
    recovered.close();
    syncedWalBytes = 0;
  };
  const random = seededRandom(seed);
  const stream = new CommandStream(seed);
  let nowMs = 1_800_000_000_000;
  const clock = () => {
    nowMs += Math.floor(random() * 1_500);
    return nowMs;
  };
  const groupCommandsMax = options.groupCommandsMax ?? 6;

  const reference = { state: exchangeDecider.initialState(), sequence: 0n };
  const journaledCommands: Record<string, number> = {};
  const refusals: Record<string, number> = {};
  const kindOf = (command: ExchangeCommand): string => {
    if (command.type !== "PlaceOrder") return command.type;
    const model = reference.state.markets.get(command.marketId)?.modelType ?? "?";
    return `PlaceOrder ${model} ${command.orderType} ${command.side} ${command.timeInForce}`;
  };
  const acknowledged = new Map<bigint, string>();
  let crashPoints = 0;
  let submitted = 0;
  let writeBoundaries = 0;
  const fail = (message: string): never => {
    throw new SimFailure(seed, crashPoints, message);
  };

  const archiveDirectory = join(directory, "journal-archive");
  const archiveFor = (power: PowerCutSwitch) =>
    new DirectoryJournalArchive<ExchangeCommand, ExchangeEvent>(archiveDirectory, {
      segmentEntriesMax: 25,
      beforeFileWrite: () => power.write(),
    });
  let archivedThrough = 0n;
  let projectionCutsAtOpen = 0;
  let cutsWithReadModelsBehind = 0;
  const archive = async (opened: Opened): Promise<void> => {
    if (options.archiveJournal !== true || opened.power.off) return;
    await opened.store.snapshotSavesEnded();
    if (opened.power.off) return;
    const store = new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(opened.db);
    // As the platform's archiver: through the latest snapshot, and never past the read models.
    const { snapshotSequence } = opened.engine;
    const { projectedSequence } = opened.projection;
    let through = snapshotSequence;
    if (projectedSequence < through) through = projectedSequence;
    try {
      for (;;) {
        const step = await archiveFor(opened.power).archiveStep(store, through);
        archivedThrough = step.archivedThrough;
        if (step.archivedEntries === 0) return;
        // The step ended with the journal's deletion, a commit at FULL: SQLite synced the WAL itself.
        syncedWalBytes = Math.max(syncedWalBytes, walBytes());
      }
    } catch (error) {
      if (!opened.power.off) throw error;
    }
  };

  /**
   * Opens the file as a restarted process does: the engine recovers, then the read models catch up
   * with the journal. Now and then (by the seed) the power is cut again during that catch-up, between
   * or inside its steps; the process then "restarts" once more.
   */
  const open = async (): Promise<Opened> => {
    for (;;) {
      const real = openDatabase({ path });
      real.pragma("wal_autocheckpoint = 0");
      const { db, power } = withPowerCut(real);
      currentPower = power;
      const catalog = createSqliteMarketCatalog(db);
      const store = new SimEngineStore(db, {
        snapshotChunkBytes: options.snapshotChunkBytes ?? simSnapshotChunkBytes,
        fdatasync: simFdatasync,
        // A snapshot step's time slice on a counter (1 ms a look), not the wall clock: a step is
        // a couple of chunks in every run, so a seed passes the same write boundaries however
        // loaded the machine is.
        stepClock: () => stepClockMs++,
      });
      const target = new SqliteReadModelProjection(
        db,
        createExchangeProjectors(db, { projectors: [catalog.projector] }),
      );
      const history = archiveFor(power).history(new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db));
      const engine: SimEngine = await Engine.open<
        ExchangeState,
        ExchangeCommand,
        ExchangeEvent,
        SqliteDatabase
      >({
        decider: exchangeDecider,
        codec: exchangeStateCodec,
        store,
        projectors: [],
        journalHistory: history,
        clock,
        limits: {
          snapshotEveryCommands: options.snapshotEveryCommands ?? 40,
          journalBatchCommandsMax: options.journalBatchCommandsMax ?? 4,
        },
        assertState: (state) => {
          const problems = checkInvariants(state);
          if (problems.length > 0) fail(`recovered state breaks invariants: ${problems.join("; ")}`);
        },
        // A power cut is expected; the engine stops and we restart it, as the platform's host would.
        onFatal: () => {},
        onError: () => {},
      });
      // Engine.open may have started a snapshot: written before the read models' catch-up reads the
      // archive (on the thread pool), so that the catch-up's steps come after all of its steps.
      await store.snapshotSavesEnded();
      const behind = engine.committedSequence - target.projectedSequence();
      const cutDuringCatchUp = behind > 0n && options.crashGapWritesMax > 0 && random() < 0.3;
      if (cutDuringCatchUp) power.cutAt(power.writes + 1 + Math.floor(random() * Number(behind)));
      try {
        const projection = await DeferredProjection.open({
          target,
          journal: history,
          committedSequence: engine.committedSequence,
          // Small steps, so a catch-up spans several transactions and a cut can fall between them.
          limits: { stepEntriesMax: projectionStepEntriesMax },
          steps: "on-demand",
          onFatal: () => {},
        });
        engine.onCommitted((entries) => projection.committed(entries));
        power.cutAt(undefined);
        return { real, store, db, power, engine, projection };
      } catch (error) {
        if (!power.off) throw error;
        // The power went while the read models caught up: the process dies and starts again.
        projectionCutsAtOpen += 1;
        await engine.close().catch(() => {});
        await restartAfterPowerCut({ real, store });
      }
    }
  };

  /** Brings the reference up to the journal's end, checking each entry, then compares everything. */
  const verify = async (opened: Opened): Promise<void> => {
    // The archive is read below, on the thread pool: no snapshot step may run meanwhile.
    await opened.store.snapshotSavesEnded();
    // Read models are read after the commands they follow, as the platform's reads are.
    opened.projection.catchUp();
    if (opened.projection.projectedSequence !== opened.engine.committedSequence)
      fail("the read models do not reach the journal's end after catching up");
    // Entries since the last check may have been archived meanwhile: read the archive, then the journal.
    const history = archiveFor(opened.power).history(
      new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(opened.real),
    );
    for await (const batch of history.readJournal(reference.sequence)) {
      for (const entry of batch) {
        if (entry.sequence !== reference.sequence + 1n) fail(`journal gap at ${entry.sequence}`);
        const decision = exchangeDecider.decide(reference.state, entry.command, {
          nowMs: entry.nowMs,
          sequence: entry.sequence,
        });
        if (!decision.ok) return fail(`journaled command ${entry.sequence} is refused on replay`);
        const journaled = encodePlainData(entry.events);
        if (encodePlainData(decision.events) !== journaled)
          fail(`journaled events of ${entry.sequence} differ from deciding its command again`);
        const answered = acknowledged.get(entry.sequence);
        if (answered !== undefined && answered !== journaled)
          fail(`acknowledged command ${entry.sequence} was answered other events than journaled`);
        const kind = kindOf(entry.command);
        journaledCommands[kind] = (journaledCommands[kind] ?? 0) + 1;
        for (const event of decision.events) reference.state = exchangeDecider.evolve(reference.state, event);
        reference.sequence = entry.sequence;
      }
    }
    if (reference.sequence !== opened.engine.committedSequence) fail("engine and journal end apart");
    for (const sequence of acknowledged.keys()) {
      if (sequence > reference.sequence) fail(`acknowledged command ${sequence} was lost`);
    }
    const recovered = await opened.engine.read((state) => ({
      encoded: exchangeStateCodec.encode(state),
      problems: checkInvariants(state),
      balances: [...state.accounts.values()].map((account) => [
        account.userId,
        account.available,
        account.frozen,
      ]),
    }));
    if (recovered.encoded !== exchangeStateCodec.encode(reference.state))
      fail(`recovered state ${stateHash(exchangeStateCodec.decode(recovered.encoded))} ≠ uncrashed run's`);
    if (recovered.problems.length > 0) fail(`invariants: ${recovered.problems.join("; ")}`);
    const rows = opened.real
      .prepare("SELECT user_id, available, frozen FROM exchange_balances ORDER BY user_id")
      .safeIntegers(true)
      .raw()
      .all() as [bigint, bigint, bigint][];
    const byUser = new Map(rows.map(([userId, available, frozen]) => [Number(userId), [available, frozen]]));
    for (const [userId, available, frozen] of recovered.balances as [number, bigint, bigint][]) {
      const row = byUser.get(userId);
      if (row === undefined || row[0] !== available || row[1] !== frozen)
        fail(`balance row of user ${userId} differs from the core`);
    }
  };

  let opened = await open();
  // Writes of opening (migrations) are not the run's: the run's write boundaries count from here.
  let writesAtOpen = opened.power.writes;
  await verify(opened);
  const cutNext = () => {
    if (options.crashGapWritesMax === 0) return opened.power.cutAt(undefined);
    const skew = random();
    opened.power.cutAt(opened.power.writes + 1 + Math.floor(skew * skew * options.crashGapWritesMax));
  };
  if (options.firstCrashAtWrite === undefined) cutNext();
  else opened.power.cutAt(writesAtOpen + options.firstCrashAtWrite);
  // A power cut in the last group (a periodic snapshot's write, whose failure the engine only
  // reports) is recovered from before the clean close, like any other.
  while (submitted < options.commands || opened.power.off || opened.engine.phase !== "running") {
    const { engine, power } = opened;
    if (!power.off && engine.phase === "running") {
      const size = 1 + Math.floor(random() * groupCommandsMax);
      const commands = await engine.read((state) => stream.next(state, nowMs, size));
      submitted += commands.length;
      const results = await Promise.allSettled(commands.map((command) => engine.submit(command)));
      for (const result of results) {
        if (result.status === "fulfilled" && result.value.ok)
          acknowledged.set(result.value.sequence, encodePlainData(result.value.events));
        else if (result.status === "fulfilled" && !result.value.ok) {
          const code = result.value.rejection.code;
          refusals[code] = (refusals[code] ?? 0) + 1;
        }
      }
      // The read models follow the journal in steps of their own: now and then a step (or a read
      // that catches them up) falls here, so power cuts land between journal commits and the
      // steps that project them, and inside steps.
      if (random() < 0.35) {
        try {
          opened.projection.catchUp();
        } catch (error) {
          if (!power.off) throw error;
        }
      }
      if (random() < 0.1) await archive(opened);
      if (!power.off && engine.phase === "running") continue;
    }
    // The power is off (or the engine stopped because of it): the process dies, and restarts.
    if (!power.off) fail(`the engine stopped without a power cut: ${String(engine.failure?.cause)}`);
    if (readModelsBehindJournal(opened.real)) cutsWithReadModelsBehind += 1;
    await engine.close().catch(() => {});
    writeBoundaries += power.writes - writesAtOpen;
    await restartAfterPowerCut(opened);
    crashPoints += 1;
    opened = await open();
    writesAtOpen = opened.power.writes;
    await verify(opened);
    cutNext();
    await archive(opened);
  }
  opened.power.cutAt(undefined);
  writeBoundaries += opened.power.writes - writesAtOpen;
  // A clean stop, as the host's: the engine commits what is queued, the read models catch up.
  await opened.engine.close();
  await opened.store.close();
  opened.projection.close();
  opened.real.close();
  // The clean close checkpointed the WAL into the file (and removed it): all of it is on disk.
  syncedWalBytes = 0;
  opened = await open();
  await verify(opened);
  // The whole history, archive and live journal, replays from sequence 1 to the live state.
  const replay = await opened.engine.verifyReplay();
  if (!replay.identical) fail("archive + journal do not replay to the live state");
  if (options.compareReadModels === true) {
    const history = archiveFor(opened.power).history(
      new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(opened.real),
    );
    await compareReadModels(opened.real, history, seed);
  }
  const report: SimReport = {
    seed,
    crashPoints,
    commandsSubmitted: submitted,
    acknowledged: acknowledged.size,
    journalSequence: reference.sequence,
    writeBoundaries,
    stateHash: stateHash(reference.state),
    journaledCommands,
    refusals,
    archivedThrough,
    snapshotChunkRows: opened.real.prepare("SELECT count(*) FROM snapshot_chunks").pluck().get() as number,
    projectionCutsAtOpen,
    cutsWithReadModelsBehind,
    cutsLosingUnsyncedWrites,
  };
  await opened.engine.close();
  await opened.store.close();
  opened.real.close();
  return report;
}

/** Whether the journal on disk holds entries the read models have not projected (what a cut left). */
function readModelsBehindJournal(db: SqliteDatabase): boolean {
  const journalEnd = db.prepare("SELECT coalesce(max(sequence), 0) FROM journal").pluck().get() as number;
  const projected = db
    .prepare("SELECT projected_through FROM read_model_position WHERE id = 1")
    .pluck()
    .get() as number;
  return journalEnd > projected;
}

/**
 * Projects the whole journal, one entry per batch, into a fresh in-memory database with the same
 * projectors, and compares every read-model table with the crashed one. A write that half landed
 * (a read model updated without its journal entry, or the other way round) shows up here.
 */
async function compareReadModels(
  crashed: SqliteDatabase,
  history: JournalSource<ExchangeCommand, ExchangeEvent>,
  seed: number,
): Promise<void> {
  const fresh = await projectJournalAfresh(history);
  const expected = projectedTables(fresh.db, fresh.readModelTables);
  fresh.db.close();
  const found = projectedTables(crashed, fresh.readModelTables);
  for (const [table, rows] of expected) {
    if (!isDeepStrictEqual(found.get(table), rows)) {
      throw new SimFailure(seed, -1, `read model ${table} differs from a fresh projection of the journal`);
    }
  }
  const [mismatch] = userHistoryIndexMismatches(crashed);
  if (mismatch !== undefined) throw new SimFailure(seed, -1, mismatch);
}
