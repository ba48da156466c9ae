// What storing an order costs the server's CPU on SQLite (issue #31), in process: the journal and
// the read models as the platform writes them now (value: the journal committed per engine batch,
// synchronous=FULL, the read models projected behind it in steps of the default size,
// src/engine/deferred-projection.ts) against the same code writing the read models inside each
// journal commit, as the engine did before (baseline).
//
// 1. A journal is made by a real Engine (bench/lib/orders-journal.ts) from bench:orders' own
//    mix: 128 funded users, 64 in flight, each alternating signed-size BUY orders of Yes and No at
//    0.49 / 0.50 / 0.51, so every other order trades. Each engine batch is recorded as it was cut
//    (BENCH_BATCH_COMMANDS_MAX, default 34: the mean batch bench:orders' server commits at 64
//    clients).
// 2. Each way replays that journal into a fresh database file (WAL) with the platform's projectors,
//    batch by batch, and is timed by process.cpuUsage() from the first batch after 3,000 orders
//    (warm statements and caches) to the end, the last step included. Rounds alternate the two
//    ways so machine drift hits both alike. Step latencies are the steps' wall time (the event
//    loop is held that long on the platform).
//
// BENCH_COUNT_STATEMENTS=1 also counts the SQLite statements each way runs per order past the
// warm-up, by statement (every run/get/all/iterate, BEGIN and COMMIT included): exact counts, but
// the counting itself costs CPU, so the µs of such a run are not comparable to others.
//
// Bounded by BENCH_ORDERS (default 30,000) and BENCH_ROUNDS (default 3). The data lives under the
// repository's .bench-tmp (the disk a data dir would be on). The last line is the JSON result.

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ExchangeCommand, ExchangeEvent } from "../src/core/exchange.js";
import { defaultDeferredProjectionLimits } from "../src/engine/deferred-projection.js";
import { createExchangeProjectors } from "../src/exchange/exchange-host.js";
import { openDatabase } from "../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../src/store/sqlite/engine-store.js";
import { createSqliteIdentityStore } from "../src/store/sqlite/identity.js";
import { createSqliteMarketCatalog } from "../src/store/sqlite/market-catalog.js";
import { SqliteReadModelProjection } from "../src/store/sqlite/read-model-projection.js";
import type { Entry } from "../test/support/recorded-journal.js";
import { ordersJournalForReplay } from "./lib/orders-journal.js";
import { percentileOfSorted, round } from "./lib/summary.js";

const ordersCount = Number(process.env.BENCH_ORDERS ?? 30_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const countStatements = process.env.BENCH_COUNT_STATEMENTS === "1";
const batchCommandsMax = Number(process.env.BENCH_BATCH_COMMANDS_MAX ?? 34);
const warmupOrders = 3_000;

/** Statements run since the last reset, by their SQL (only with BENCH_COUNT_STATEMENTS=1). */
const statementsRun = new Map<string, number>();
if (countStatements) {
  const probe = openDatabase({ path: ":memory:" });
  const statementPrototype = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  probe.close();
  for (const method of ["run", "get", "all", "iterate"]) {
    const original = statementPrototype[method]!;
    statementPrototype[method] = function (this: { source: string }, ...args: unknown[]) {
      statementsRun.set(this.source, (statementsRun.get(this.source) ?? 0) + 1);
      return original.apply(this, args);
    };
  }
}

function printStatementCounts(way: string, orders: number): void {
  const rows = [...statementsRun].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, count]) => sum + count, 0);
  console.log(`${way}: ${(total / orders).toFixed(2)} statements an order`);
  for (const [sql, count] of rows) {
    console.log(`  ${(count / orders).toFixed(3).padStart(7)}  ${sql.replace(/\s+/g, " ").slice(0, 110)}`);
  }
}

interface Measured {
  readonly cpuUsPerOrder: number;
  readonly systemUsPerOrder: number;
  readonly stepsMs: number[];
}

/** Replays the journal one way, timing from the first batch past the warm-up. */
function replay(
  batches: readonly Entry[][],
  path: string,
  way: "in-commit" | "behind",
  warmBatch: number,
): Measured {
  const db = openDatabase({ path });
  // The commission projector reads the identity tables.
  createSqliteIdentityStore(db);
  const catalog = createSqliteMarketCatalog(db);
  const projectors = createExchangeProjectors(db, { projectors: [catalog.projector] });
  const store = new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db);
  const target = way === "behind" ? new SqliteReadModelProjection(db, projectors) : undefined;
  const { stepEntriesMin, stepEntriesMax } = defaultDeferredProjectionLimits;
  let pending: Entry[] = [];
  const stepsMs: number[] = [];
  const step = (count: number) => {
    const startedMs = performance.now();
    target!.project(pending.slice(0, count));
    stepsMs.push(performance.now() - startedMs);
    pending = pending.slice(count);
  };
  let started = process.cpuUsage();
  let orders = 0;
  batches.forEach((batch, index) => {
    if (index === warmBatch) {
      started = process.cpuUsage();
      orders = 0;
      stepsMs.length = 0;
      statementsRun.clear();
    }
    // The stores' commits are synchronous on SQLite; the Promise is only the port's shape.
    if (target === undefined) void store.commitBatch(batch, projectors);
    else {
      void store.commitBatch(batch, []);
      pending.push(...batch);
      // As the platform schedules them: a step once stepEntriesMin entries wait.
      if (pending.length >= stepEntriesMin) step(Math.min(pending.length, stepEntriesMax));
    }
    orders += batch.length;
  });
  while (pending.length > 0) step(Math.min(pending.length, stepEntriesMax));
  const used = process.cpuUsage(started);
  if (countStatements) printStatementCounts(way, orders);
  db.close();
  return {
    cpuUsPerOrder: (used.user + used.system) / orders,
    systemUsPerOrder: used.system / orders,
    stepsMs,
  };
}

const { batches, entriesCount, warmBatch } = await ordersJournalForReplay(
  ordersCount,
  batchCommandsMax,
  warmupOrders,
);
mkdirSync(join(process.cwd(), ".bench-tmp"), { recursive: true });
const directory = mkdtempSync(join(process.cwd(), ".bench-tmp", "order-storage-"));
try {
  const results: Record<"in-commit" | "behind", Measured[]> = { "in-commit": [], behind: [] };
  for (let index = 0; index < rounds; index += 1) {
    for (const way of ["in-commit", "behind"] as const) {
      const measured = replay(batches, join(directory, `${way}-${index}.sqlite`), way, warmBatch);
      results[way].push(measured);
      console.log(
        `round ${index + 1} ${way.padEnd(9)}: ${measured.cpuUsPerOrder.toFixed(1)} µs CPU an order (system ${measured.systemUsPerOrder.toFixed(1)})`,
      );
    }
  }
  const mean = (runs: readonly Measured[]) =>
    runs.reduce((sum, run) => sum + run.cpuUsPerOrder, 0) / runs.length;
  const steps = results.behind.flatMap((run) => run.stepsMs).sort((a, b) => a - b);
  const value = mean(results.behind);
  const baseline = mean(results["in-commit"]);
  console.log(
    JSON.stringify({
      bench: "order-storage",
      unit: "µs of CPU an order (journal + read models, SQLite, in process)",
      value: round(value, 1),
      baseline: {
        name: "the read models projected inside each journal commit, same code, same run",
        value: round(baseline, 1),
      },
      ratio: round(value / baseline, 3),
      p50_ms: round(percentileOfSorted(steps, 50), 3),
      p99_ms: round(percentileOfSorted(steps, 99), 3),
      latency_is: "a projection step's wall time (the event loop held)",
      orders: entriesCount,
      entries_per_batch: round(entriesCount / batches.length, 1),
      step_entries: [
        defaultDeferredProjectionLimits.stepEntriesMin,
        defaultDeferredProjectionLimits.stepEntriesMax,
      ],
      rounds,
    }),
  );
} finally {
  rmSync(directory, { recursive: true, force: true });
}
