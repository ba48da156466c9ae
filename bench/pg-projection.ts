// How fast the exchange's read models are projected on PostgreSQL (value) against SQLite (baseline),
// for the same journal cut into the same batches. The engine projects inside every commit, so this
// bounds what bench:orders can reach on PostgreSQL (#16's target there is ≥ 0.6× SQLite).
//
// 1. A journal is made by a real Engine (in-memory SQLite, no read models): funded users trade limit
//    and market orders on a few markets, cancel some, with BENCH_IN_FLIGHT commands in flight, so the
//    batches are the sizes the engine makes under that load. Each batch's entries are recorded.
// 2. Each store projects that journal batch by batch, each batch one transaction, with the projectors
//    the platform composes: createExchangeProjectors (SQLite file, WAL, synchronous=FULL) and
//    createPostgresExchangeProjectors (a throwaway cluster of its own, fsync on unless
//    BENCH_PG_DURABLE=0). The journal append itself is not timed (the same on both: bench:pg-driver).
//    The two stores alternate rounds on fresh databases so machine drift hits both alike.
//
// Bounded by the journal's size (BENCH_COMMANDS, default 12,000) and BENCH_ROUNDS (default 2).
// Loopback only. The last line of stdout is the JSON result.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ExchangeCommand, limitOrderCommand, marketOrderCommand } from "../src/core/exchange.js";
import { createExchangeProjectors } from "../src/exchange/exchange-host.js";
import { inTransaction, openPostgresPool } from "../src/store/postgres/database.js";
import {
  applyPostgresExchangeMigrations,
  createPostgresExchangeProjectors,
} from "../src/store/postgres/exchange-projectors.js";
import { openDatabase } from "../src/store/sqlite/database.js";
import { startPostgresCluster } from "../test/support/postgres-cluster.js";
import {
  createOpenMarket,
  type Entry,
  type OpenBinaryMarket,
  openJournalRecorder,
  submitBounded,
} from "../test/support/recorded-journal.js";
import { percentileOfSorted, round } from "./lib/summary.js";

const commandsCount = Number(process.env.BENCH_COMMANDS ?? 12_000);
const inFlight = Number(process.env.BENCH_IN_FLIGHT ?? 64);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const durable = process.env.BENCH_PG_DURABLE !== "0";
const usersCount = 400;
const marketsCount = 4;
const unit = 100_000_000n;
const cent = 1_000_000n;

/** Mulberry32, so the journal is the same every run. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Runs the workload through a real engine and returns its journal as the engine batched it. */
async function makeJournal(): Promise<Entry[][]> {
  const recorder = await openJournalRecorder();
  const { engine } = recorder;
  const markets: OpenBinaryMarket[] = [];
  for (let index = 0; index < marketsCount; index += 1)
    markets.push(await createOpenMarket(engine, `Bench ${index}`));
  const funding: Promise<unknown>[] = [];
  for (let userId = 1; userId <= usersCount; userId += 1) {
    funding.push(
      engine.submit({ type: "Deposit", userId, amount: 100_000n * unit, txHash: `0xbench${userId}` }),
    );
  }
  await Promise.all(funding);

  const next = seededRandom(16);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const placed: { userId: number; orderId: number }[] = [];
  const commandAt = (): ExchangeCommand => {
    const userId = 1 + Math.floor(next() * usersCount);
    const market = pick(markets);
    const roll = next();
    if (roll < 0.08 && placed.length > 0) {
      const order = placed[Math.floor(next() * placed.length)]!;
      return { type: "CancelOrder", userId: order.userId, orderId: order.orderId };
    }
    const where = {
      userId,
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: pick(market.options),
    };
    if (roll < 0.18)
      return marketOrderCommand({
        ...where,
        side: "BUY",
        amount: BigInt(1 + Math.floor(next() * 20)) * unit,
      });
    return limitOrderCommand({
      ...where,
      side: next() < 0.6 ? "BUY" : "SELL",
      limitPrice: BigInt(40 + Math.floor(next() * 20)) * cent,
      shares: BigInt(1 + Math.floor(next() * 50)) * unit,
    });
  };
  await submitBounded(commandsCount, inFlight, async () => {
    const command = commandAt();
    const result = await engine.submit(command);
    if (result.ok && command.type === "PlaceOrder") {
      const event = result.events.find((one) => one.type === "OrderPlaced");
      if (event?.type === "OrderPlaced" && event.status === "OPEN") {
        placed.push({ userId: event.userId, orderId: event.orderId });
      }
    }
  });
  await recorder.close();
  return recorder.batches;
}

interface Measured {
  readonly entriesPerSecond: number;
  readonly batchLatenciesMs: number[];
}

function measured(entries: number, elapsedMs: number, latencies: number[]): Measured {
  return { entriesPerSecond: (entries * 1000) / elapsedMs, batchLatenciesMs: latencies };
}

async function projectOnSqlite(
  batches: readonly Entry[][],
  directory: string,
  round: number,
): Promise<Measured> {
  const db = openDatabase({ path: join(directory, `projection-${round}.sqlite`) });
  const projectors = createExchangeProjectors(db);
  const commit = db.transaction((entries: readonly Entry[]) => {
    for (const projector of projectors) projector(db, entries);
  });
  const latencies: number[] = [];
  let entries = 0;
  const started = performance.now();
  for (const batch of batches) {
    const before = performance.now();
    commit(batch);
    latencies.push(performance.now() - before);
    entries += batch.length;
  }
  const elapsed = performance.now() - started;
  db.close();
  return measured(entries, elapsed, latencies);
}

async function projectOnPostgres(
  batches: readonly Entry[][],
  cluster: Awaited<ReturnType<typeof startPostgresCluster>>,
  round: number,
): Promise<Measured> {
  const url = await cluster.createDatabase(`projection_${round}`);
  const pool = openPostgresPool({ url, applicationName: "bench-pg-projection", poolConnectionsMax: 2 });
  await applyPostgresExchangeMigrations(pool);
  const projectors = createPostgresExchangeProjectors();
  const latencies: number[] = [];
  let entries = 0;
  const started = performance.now();
  for (const batch of batches) {
    const before = performance.now();
    await inTransaction(pool, async (client) => {
      for (const projector of projectors) await projector(client, batch);
    });
    latencies.push(performance.now() - before);
    entries += batch.length;
  }
  const elapsed = performance.now() - started;
  await pool.end();
  return measured(entries, elapsed, latencies);
}

function summary(runs: readonly Measured[]) {
  const perSecond = runs.reduce((sum, run) => sum + run.entriesPerSecond, 0) / runs.length;
  const latencies = runs.flatMap((run) => run.batchLatenciesMs).sort((a, b) => a - b);
  return { perSecond, p50Ms: percentileOfSorted(latencies, 50), p99Ms: percentileOfSorted(latencies, 99) };
}

const batches = await makeJournal();
const entriesCount = batches.reduce((sum, batch) => sum + batch.length, 0);
const sizes = batches.map((batch) => batch.length).sort((a, b) => a - b);
const eventsCount = batches.reduce(
  (sum, batch) => sum + batch.reduce((n, entry) => n + entry.events.length, 0),
  0,
);
console.log(
  `journal: ${entriesCount} entries, ${eventsCount} events, ${batches.length} batches (entries per batch p50 ${percentileOfSorted(sizes, 50)}, p99 ${percentileOfSorted(sizes, 99)}, max ${sizes.at(-1)})`,
);

const directory = mkdtempSync(join(tmpdir(), "predex-bench-projection-"));
const cluster = await startPostgresCluster({ durable });
try {
  const onSqlite: Measured[] = [];
  const onPostgres: Measured[] = [];
  for (let index = 0; index < rounds; index += 1) {
    onSqlite.push(await projectOnSqlite(batches, directory, index));
    onPostgres.push(await projectOnPostgres(batches, cluster, index));
    console.log(
      `round ${index + 1}: sqlite ${onSqlite.at(-1)!.entriesPerSecond.toFixed(0)} entries/s, postgres ${onPostgres.at(-1)!.entriesPerSecond.toFixed(0)} entries/s`,
    );
  }
  const sqlite = summary(onSqlite);
  const postgres = summary(onPostgres);
  console.log(
    `cluster durable=${durable}; batch latency p50/p99 ms: sqlite ${sqlite.p50Ms.toFixed(2)}/${sqlite.p99Ms.toFixed(2)}, postgres ${postgres.p50Ms.toFixed(2)}/${postgres.p99Ms.toFixed(2)}`,
  );
  console.log(
    JSON.stringify({
      bench: "pg-projection",
      unit: "journal entries projected/s",
      value: round(postgres.perSecond, 0),
      baseline: { name: "SQLite projection (same journal, same batches)", value: round(sqlite.perSecond, 0) },
      ratio: round(postgres.perSecond / sqlite.perSecond, 3),
      p50_ms: round(postgres.p50Ms, 3),
      p99_ms: round(postgres.p99Ms, 3),
      baseline_p50_ms: round(sqlite.p50Ms, 3),
      baseline_p99_ms: round(sqlite.p99Ms, 3),
      entries: entriesCount,
      batches: batches.length,
      entries_per_batch_p50: percentileOfSorted(sizes, 50),
    }),
  );
} finally {
  await cluster.stop();
  rmSync(directory, { recursive: true, force: true });
}
