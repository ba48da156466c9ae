// bench:snapshot — what a snapshot costs the event loop at a large state: 100,000 funded users and
// 1,000,000 resting orders (BUY Yes bids on 20 order books, 10 per user), built in-process through
// the core's decider. Measures the inline snapshot's parts (encode, sha256, one SQLite write of the
// whole text: the baseline, as snapshots were written before #17), then runs the engine as the
// platform does (snapshot worker, chunked SQLite writes, WAL checkpoints on their own thread) while
// commands keep arriving, and records every synchronous step a snapshot takes on the engine's
// thread (the value: 1000 / the longest), the event loop's delay (monitorEventLoopDelay p50/p99,
// the JSON line's p50_ms/p99_ms), each command's latency and the GC's pauses; then the same load
// for as long with no snapshot at all (the control: the hot path's own stalls on this machine).
// Bounded: one state, a few rounds, at most 200,000 commands a round.
//
//   npm run bench:snapshot [-- --users 100000 --orders-per-user 10]

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { parseArgs } from "node:util";
import {
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
  limitOrderCommand,
} from "../src/core/exchange.js";
import { Engine } from "../src/engine/engine.js";
import { makeSnapshot } from "../src/engine/recovery.js";
import { exchangeSnapshotWorker } from "../src/exchange/exchange-host.js";
import { openDatabase } from "../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../src/store/sqlite/engine-store.js";
import { startWalCheckpointer } from "../src/store/sqlite/wal-checkpointer.js";

const { values } = parseArgs({
  options: {
    users: { type: "string", default: "100000" },
    "orders-per-user": { type: "string", default: "10" },
    books: { type: "string", default: "20" },
    repeat: { type: "string", default: "3" },
  },
});
const usersCount = Number(values.users);
const ordersPerUser = Number(values["orders-per-user"]);
const booksCount = Number(values.books);
const repeat = Number(values.repeat);

const cent = 1_000_000n;
const usdt = 100_000_000n;

function buildState(): ExchangeState {
  let state = exchangeDecider.initialState();
  let sequence = 0n;
  const nowMs = 1_800_000_000_000;
  const run = (command: Parameters<typeof exchangeDecider.decide>[1]) => {
    sequence += 1n;
    const decision = exchangeDecider.decide(state, command, { nowMs, sequence });
    if (!decision.ok) throw new Error(`refused: ${decision.rejection.code}`);
    for (const event of decision.events) state = exchangeDecider.evolve(state, event);
    return decision.events;
  };
  const books: { marketId: number; outcomeId: number; yes: number }[] = [];
  for (let book = 0; book < booksCount; book++) {
    const [created] = run(createMarketCommand({ title: `bench ${book}` }));
    if (created?.type !== "MarketCreated") throw new Error("no market");
    run({ type: "OpenMarket", marketId: created.marketId });
    const outcome = created.outcomes[0]!;
    books.push({
      marketId: created.marketId,
      outcomeId: outcome.outcomeId,
      yes: outcome.options[0]!.optionId,
    });
  }
  for (let userId = 1; userId <= usersCount; userId++) {
    run({ type: "Deposit", userId, amount: 1_000n * usdt, txHash: `0x${userId}` });
    for (let index = 0; index < ordersPerUser; index++) {
      const book = books[(userId * ordersPerUser + index) % books.length]!;
      run(
        limitOrderCommand({
          userId,
          marketId: book.marketId,
          outcomeId: book.outcomeId,
          optionId: book.yes,
          side: "BUY",
          // Bids only, 0.01 … 0.49: nothing crosses, everything rests.
          limitPrice: BigInt(1 + ((userId + index) % 49)) * cent,
          shares: BigInt(1 + (index % 5)) * usdt,
        }),
      );
    }
  }
  return state;
}

function timed<T>(work: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = work();
  return { value, ms: performance.now() - started };
}

const buildStartedMs = performance.now();
let state: ExchangeState | undefined = buildState();
const buildMs = performance.now() - buildStartedMs;
const restingOrders = state.orders.values().length;
const directory = mkdtempSync(join(tmpdir(), "predex-bench-snapshot-"));
try {
  const db = openDatabase({ path: join(directory, "predex.db") });
  // As the platform runs (src/server.ts): WAL checkpoints on a worker thread of their own.
  const checkpointer = startWalCheckpointer(db, join(directory, "predex.db"));
  // Each synchronous step of a snapshot save on the engine's thread (chunks, pointer row, sweep),
  // recorded while the engine runs with its worker: the snapshot's own hold on the event loop.
  let stepsMs: { step: string; ms: number }[] | undefined;
  const store = new SqliteEngineStore(db, { onSnapshotStep: (step, ms) => stepsMs?.push({ step, ms }) });
  // The baseline's write: the whole text in one row in one transaction, as the store wrote
  // snapshots before they were chunked.
  db.exec("CREATE TABLE bench_whole_snapshot (sequence INTEGER PRIMARY KEY, state TEXT NOT NULL) STRICT");
  const writeWhole = db.prepare("INSERT INTO bench_whole_snapshot (sequence, state) VALUES (?, ?)");
  const encodeMs: number[] = [];
  const hashMs: number[] = [];
  const writeMs: number[] = [];
  const inlineMs: number[] = [];
  let bytes = 0;
  let decodeMs = 0;
  {
    const built = state;
    for (let round = 0; round < repeat; round++) {
      const encoded = timed(() => exchangeStateCodec.encode(built));
      encodeMs.push(encoded.ms);
      bytes = Buffer.byteLength(encoded.value);
      const snapshot = timed(() =>
        makeSnapshot(exchangeStateCodec, {
          state: built,
          sequence: BigInt(round + 1),
          nowMs: 0,
          chainHash: null,
        }),
      );
      // makeSnapshot encodes again, then hashes: its time less a second encode is the hash.
      const hashed = timed(
        () =>
          makeSnapshot(exchangeStateCodec, { state: built, sequence: 0n, nowMs: 0, chainHash: null }).hash,
      );
      hashMs.push(Math.max(0, hashed.ms - encoded.ms));
      inlineMs.push(snapshot.ms);
      writeMs.push(timed(() => writeWhole.run(round + 1, snapshot.value.state)).ms);
      if (round === repeat - 1) await store.saveSnapshot(snapshot.value);
    }
    decodeMs = timed(() => exchangeStateCodec.decode(exchangeStateCodec.encode(built))).ms;
  }
  db.exec("DROP TABLE bench_whole_snapshot");
  // The baseline's writes (hundreds of MB of log) are checkpointed and the log emptied now, so the
  // measured phases start from a live platform's steady state, not from that backlog.
  db.pragma("wal_checkpoint(TRUNCATE)");
  // A live process holds one copy of the state (the engine's): the built one goes.
  state = undefined;
  // The engine as the platform runs it: recovery from that snapshot, then snapshots encoded on the
  // worker thread. The event loop's longest stall is measured from the first command until the
  // next snapshot is written (its SQLite write is still on the event loop).
  let nowMs = 1_900_000_000_000;
  // The state was built without a journal: one entry at the last snapshot's sequence lets recovery
  // start from that snapshot (it replays nothing) and the engine number on from there.
  db.prepare("INSERT INTO journal (sequence, now_ms, command, events) VALUES (?, 0, ?, '[]')").run(
    repeat,
    '{"type":"ExpireOrders"}',
  );
  const openEngine = (withSnapshots: boolean) =>
    Engine.open<ExchangeState, ExchangeCommand, ExchangeEvent, unknown>({
      decider: exchangeDecider,
      codec: exchangeStateCodec,
      store: store as SqliteEngineStore<ExchangeCommand, ExchangeEvent>,
      clock: () => (nowMs += 1),
      limits: { snapshotEveryCommands: withSnapshots ? 10 : 1_000_000_000 },
      ...(withSnapshots ? { snapshotWorker: exchangeSnapshotWorker } : {}),
      onFatal: (error) => {
        throw error;
      },
    });
  let deposits = 0;
  /**
   * Commands arriving one after another (each waits a millisecond after its answer), as on a live
   * exchange, until `done`; measures the event loop's stalls, each command's latency and the
   * garbage collector's pauses on the engine's thread (a heap holding a million orders has long
   * major collections, which are not the snapshot's doing). Bounded: 200,000 commands a round.
   */
  const measureRounds = async (
    engine: Engine<ExchangeState, ExchangeCommand, ExchangeEvent, unknown>,
    done: (round: number, startedMs: number, before: bigint) => boolean,
  ) => {
    const measured = {
      maxStallMs: [] as number[],
      loopP50Ms: [] as number[],
      loopP99Ms: [] as number[],
      submitMs: [] as number[],
    };
    const gcPausesMs: number[] = [];
    const roundMs: number[] = [];
    const gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) gcPausesMs.push(entry.duration);
    });
    gcObserver.observe({ entryTypes: ["gc"] });
    for (let round = 0; round < repeat; round++) {
      const before = engine.snapshotSequence;
      const startedMs = performance.now();
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      for (let index = 0; index < 200_000; index++) {
        if (index >= 12 && done(round, startedMs, before)) break;
        const submitted = performance.now();
        deposits += 1;
        await engine.submit({ type: "Deposit", userId: 1, amount: usdt, txHash: `0xbench${deposits}` });
        measured.submitMs.push(performance.now() - submitted);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      delay.disable();
      roundMs.push(performance.now() - startedMs);
      measured.maxStallMs.push(delay.max / 1e6);
      measured.loopP50Ms.push(delay.percentile(50) / 1e6);
      measured.loopP99Ms.push(delay.percentile(99) / 1e6);
    }
    gcObserver.disconnect();
    return { ...measured, gcPausesMs, roundMs };
  };
  // With snapshots (the worker): each round runs from the first command until the next snapshot
  // is written (made on the worker, written in steps between the commits).
  const engine = await openEngine(true);
  stepsMs = [];
  const withSnapshots = await measureRounds(
    engine,
    (_round, _startedMs, before) => engine.snapshotSequence !== before,
  );
  const snapshotSteps = stepsMs;
  stepsMs = undefined;
  await engine.close();
  // The control: the same commands for as long, on the same state, with no snapshot being made.
  // What it shows (commits' fsyncs, checkpoints, GC, a shared machine's scheduling) is the hot
  // path's own; what the first shows beyond it is the snapshot's.
  const recoveryStartedMs = performance.now();
  const control = await openEngine(false);
  const recoveryMs = performance.now() - recoveryStartedMs;
  const roundMsMedian = [...withSnapshots.roundMs].sort((a, b) => a - b)[Math.floor(repeat / 2)]!;
  const withoutSnapshots = await measureRounds(
    control,
    (_round, startedMs) => performance.now() - startedMs >= roundMsMedian,
  );
  await control.close();
  await checkpointer.stop();
  db.close();
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const quantile = (values: number[], q: number) =>
    [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]!;
  const pauseMs = median(inlineMs) + median(writeMs);
  const stepMs = snapshotSteps.map((step) => step.ms);
  const holdMs = Math.max(...stepMs);
  const stepMaxMs = (kind: string) =>
    round1(Math.max(0, ...snapshotSteps.filter((step) => step.step === kind).map((step) => step.ms)));
  const round1 = (value: number) => Math.round(value * 10) / 10;
  console.log(
    JSON.stringify({
      bench: "snapshot",
      unit: "1000 / the snapshot's longest hold of the event loop (ms)",
      value: Math.round((1000 / holdMs) * 1000) / 1000,
      baseline: {
        name: "inline encode + sha256 + one-row SQLite write",
        value: Math.round((1000 / pauseMs) * 1000) / 1000,
      },
      ratio: Math.round(pauseMs / holdMs),
      p50_ms: round1(median(withSnapshots.loopP50Ms)),
      p99_ms: round1(median(withSnapshots.loopP99Ms)),
      snapshotHoldMaxMs: round1(holdMs),
      snapshotSteps: {
        count: snapshotSteps.length,
        p50Ms: round1(quantile(stepMs, 0.5)),
        p90Ms: round1(quantile(stepMs, 0.9)),
        p99Ms: round1(quantile(stepMs, 0.99)),
        over5Ms: stepMs.filter((ms) => ms > 5).length,
        chunksMaxMs: stepMaxMs("chunks"),
        pointerMaxMs: stepMaxMs("pointer"),
        sweepMaxMs: stepMaxMs("sweep"),
      },
      duringSnapshots: {
        maxStallMs: withSnapshots.maxStallMs.map(Math.round),
        loopDelayP50Ms: round1(median(withSnapshots.loopP50Ms)),
        loopDelayP99Ms: round1(median(withSnapshots.loopP99Ms)),
        commandP99Ms: round1(quantile(withSnapshots.submitMs, 0.99)),
        commands: withSnapshots.submitMs.length,
        gcPauseMaxMs: Math.round(Math.max(0, ...withSnapshots.gcPausesMs)),
        roundMs: withSnapshots.roundMs.map(Math.round),
      },
      withoutSnapshots: {
        maxStallMs: withoutSnapshots.maxStallMs.map(Math.round),
        loopDelayP50Ms: round1(median(withoutSnapshots.loopP50Ms)),
        loopDelayP99Ms: round1(median(withoutSnapshots.loopP99Ms)),
        commandP99Ms: round1(quantile(withoutSnapshots.submitMs, 0.99)),
        commands: withoutSnapshots.submitMs.length,
        gcPauseMaxMs: Math.round(Math.max(0, ...withoutSnapshots.gcPausesMs)),
      },
      recoveryMs: Math.round(recoveryMs),
      inlinePauseMs: Math.round(pauseMs),
      users: usersCount,
      restingOrders,
      snapshotBytes: bytes,
      encodeMs: Math.round(median(encodeMs)),
      sha256Ms: Math.round(median(hashMs)),
      sqliteWriteMs: Math.round(median(writeMs)),
      decodeMs: Math.round(decodeMs),
      buildSeconds: Math.round(buildMs / 100) / 10,
    }),
  );
} finally {
  rmSync(directory, { recursive: true, force: true });
}
