// What the SQLite read models' projection costs the server's CPU an order (issue #31), in process,
// and where it goes: bench:orders' mix recorded by a real engine (bench/lib/orders-journal.ts),
// committed batch by batch to a fresh database file (WAL) and projected behind it in steps as the
// platform schedules them (src/engine/deferred-projection.ts: a step once 128 entries wait, at
// most 256), with the platform's projectors in the platform's order (exchange read models,
// merchant commissions, settlement notifications, market catalogue), the commission projector
// finding every user's partner as bench:orders' users have one.
//
// value: CPU time (process.cpuUsage) of the projection steps alone, µs an order, past a warm-up of
// 3,000 orders; baseline: the journal's own commits of the same orders, same run (not a target,
// a yardstick: what durability alone costs). p50/p99: a step's wall time (the event loop held).
//
// BENCH_PROFILE=1 (the default) then replays once more with every SQLite statement wrapped
// (run/get/all/iterate, BEGIN and COMMIT included, db.pragma and db.exec) within the steps, and
// each projector timed: CPU µs an order by table and statement, and each projector's JavaScript
// outside its statements. CPU, not wall time: on the shared machine a wall clock around a call
// counts the time other processes had the core (4–7× the CPU at a load of 7). process.cpuUsage()
// counts every thread of the process and costs ~1 µs of its own a call, part of which lands inside
// the interval it measures: the mean cost of an empty interval is measured and taken off each call.
//
// Bounded by BENCH_ORDERS (default 30,000) and BENCH_ROUNDS (default 3). The data lives under the
// repository's .bench-tmp. The last line is the JSON result.

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ExchangeCommand, ExchangeEvent } from "../src/core/exchange.js";
import { defaultDeferredProjectionLimits } from "../src/engine/deferred-projection.js";
import { openDatabase, type SqliteDatabase } from "../src/store/sqlite/database.js";
import { SqliteEngineStore, type SqliteProjector } from "../src/store/sqlite/engine-store.js";
import { createSqliteExchangeProjector } from "../src/store/sqlite/exchange-read-models.js";
import { createSqliteIdentityStore } from "../src/store/sqlite/identity.js";
import { createSqliteLegacyNotificationProjector } from "../src/store/sqlite/legacy-notifications.js";
import { createSqliteMarketCatalog } from "../src/store/sqlite/market-catalog.js";
import { createSqliteCommissionProjector } from "../src/store/sqlite/merchant-commissions.js";
import { SqliteReadModelProjection } from "../src/store/sqlite/read-model-projection.js";
import type { Entry } from "../test/support/recorded-journal.js";
import { ordersJournalForReplay, ordersJournalUsers } from "./lib/orders-journal.js";
import { percentileOfSorted, round } from "./lib/summary.js";

const ordersCount = Number(process.env.BENCH_ORDERS ?? 30_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const profile = (process.env.BENCH_PROFILE ?? "1") === "1";
const batchCommandsMax = Number(process.env.BENCH_BATCH_COMMANDS_MAX ?? 34);
const warmupOrders = 3_000;
/** About a second of bench:orders' batches at 4,000 orders/s (the platform's checkpointer: 1 s). */
const checkpointEveryBatches = 120;

type Projector = SqliteProjector<ExchangeCommand, ExchangeEvent>;
const stepOutsideProjectors = "the step (outside the projectors)";

/** CPU time and calls, by a label, within the steps past the warm-up (profiled replay only). */
class Tally {
  readonly #rows = new Map<string, { us: number; calls: number }>();
  counting = false;

  add(label: string, us: number): void {
    if (!this.counting) return;
    const row = this.#rows.get(label);
    if (row === undefined) this.#rows.set(label, { us, calls: 1 });
    else {
      row.us += us;
      row.calls += 1;
    }
  }

  rows(): [string, { us: number; calls: number }][] {
    return [...this.#rows].sort((a, b) => b[1].us - a[1].us);
  }

  get(label: string): number {
    return this.#rows.get(label)?.us ?? 0;
  }
}

/** CPU µs since `since`, less what reading the clock costs inside an interval. */
let clockCostUs = 0;
const cpuSinceUs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return used.user + used.system - clockCostUs;
};
function measureClockCost(): void {
  const calls = 200_000;
  let total = 0;
  for (let index = 0; index < calls; index += 1) {
    const used = process.cpuUsage(process.cpuUsage());
    total += used.user + used.system;
  }
  clockCostUs = total / calls;
}

const statements = new Tally();
const projectorTimes = new Tally();
/** The projector running now: statements are charged to it too ("" outside a step). */
let runningProjector = "";
const statementsByProjector = new Tally();

/** The table a statement works on, and what it does there. */
function labelOf(sql: string): string {
  const text = sql.replace(/\s+/g, " ").trim();
  const verb = text.split(" ")[0]!.toUpperCase();
  if (verb === "BEGIN" || verb === "COMMIT" || verb === "ROLLBACK") return "(transaction) BEGIN/COMMIT";
  if (verb === "PRAGMA") return `(pragma) ${text}`;
  const table =
    /INSERT (?:OR \w+ )?INTO (\w+)/i.exec(text)?.[1] ??
    /UPDATE (\w+)/i.exec(text)?.[1] ??
    /DELETE FROM (\w+)/i.exec(text)?.[1] ??
    /FROM (\w+)/i.exec(text)?.[1] ??
    "?";
  const kind = verb === "INSERT" && /ON CONFLICT/i.test(text) ? "UPSERT" : verb;
  const rows = verb === "INSERT" ? (text.match(/\), \(/g)?.length ?? 0) + 1 : 1;
  return `${table} ${kind}${rows > 1 ? ` (${rows} rows)` : ""}`;
}

/** Times every statement SQLite runs from now on (the prototypes are shared by all connections). */
function instrumentStatements(): void {
  const probe = openDatabase({ path: ":memory:" });
  const statementPrototype = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  const databasePrototype = Object.getPrototypeOf(probe) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  const labels = new Map<string, string>();
  const timed = (
    original: (...args: unknown[]) => unknown,
    labelFor: (self: never, args: unknown[]) => string,
  ) =>
    function (this: never, ...args: unknown[]) {
      if (runningProjector === "") return original.apply(this, args);
      const started = process.cpuUsage();
      try {
        return original.apply(this, args);
      } finally {
        const us = cpuSinceUs(started);
        statements.add(labelFor(this, args), us);
        statementsByProjector.add(runningProjector, us);
      }
    };
  const statementLabel = (self: { source: string }) => {
    let label = labels.get(self.source);
    if (label === undefined) {
      label = labelOf(self.source);
      labels.set(self.source, label);
    }
    return label;
  };
  for (const method of ["run", "get", "all", "iterate"]) {
    statementPrototype[method] = timed(statementPrototype[method]!, statementLabel as never);
  }
  // db.pragma prepares its statement each call (then runs it through the prototype above): the
  // wrapper charges the whole call, prepare included, to "db.pragma …".
  databasePrototype.pragma = timed(
    databasePrototype.pragma!,
    ((_self: unknown, args: unknown[]) => `(db.pragma) ${String(args[0]).replace(/ = .*/, " = …")}`) as never,
  );
  databasePrototype.exec = timed(
    databasePrototype.exec!,
    ((_self: unknown, args: unknown[]) => `(db.exec) ${String(args[0]).slice(0, 40)}`) as never,
  );
}

/** The platform's projectors in the platform's order (src/exchange/exchange-host.ts), each timed when profiling. */
function platformProjectors(db: SqliteDatabase): Projector[] {
  const catalog = createSqliteMarketCatalog(db);
  const named: [string, Projector][] = [
    ["exchange read models", createSqliteExchangeProjector(db)],
    ["merchant commissions", createSqliteCommissionProjector(db)],
    ["settlement notifications", createSqliteLegacyNotificationProjector(db)],
    ["market catalogue", catalog.projector],
  ];
  if (!profile) return named.map(([, projector]) => projector);
  // Timed only while a profiled step runs (runningProjector set); the rounds before pay a test.
  return named.map(([name, projector]) => (projectorDb, entries) => {
    if (runningProjector === "") return projector(projectorDb, entries);
    runningProjector = name;
    const started = process.cpuUsage();
    try {
      projector(projectorDb, entries);
    } finally {
      projectorTimes.add(name, cpuSinceUs(started));
      runningProjector = stepOutsideProjectors;
    }
  });
}

/** One partner (rate 20%) and bench:orders' users, ids 1 … 128, registered under it. */
async function registerUsers(db: SqliteDatabase): Promise<void> {
  const identity = createSqliteIdentityStore(db);
  const partner = await identity.createPartner({
    name: "bench",
    appKey: "bench-key",
    appSecretSealed: "sealed",
    apiKeySha256: "bench-sha",
    rsaPublicKey: null,
    commissionRateBps: 2_000,
    webhookUrl: null,
    createdAtMs: 0,
  });
  for (let index = 1; index <= ordersJournalUsers; index += 1) {
    const user = await identity.registerUser({
      partnerId: partner.partnerId,
      marchantUserId: `u${index}`,
      email: "",
      avatarUrl: "",
      nowMs: 0,
    });
    if (user.userId !== index) throw new Error(`user ${index} registered as ${user.userId}`);
  }
}

interface Measured {
  readonly projectionUsPerOrder: number;
  readonly journalUsPerOrder: number;
  readonly stepsMs: number[];
  readonly orders: number;
}

const cpuUs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};

/** Commits the journal batch by batch and projects it behind in steps, timing past the warm-up. */
async function replay(
  batches: readonly Entry[][],
  path: string,
  warmBatch: number,
  profiled = false,
): Promise<Measured> {
  const db = openDatabase({ path });
  // As the platform runs it (src/server.ts): a worker thread checkpoints the WAL, never the
  // connection that projects. Here the checkpoint runs between batches, outside every timed part.
  db.pragma("wal_autocheckpoint = 0");
  await registerUsers(db);
  const target = new SqliteReadModelProjection(db, platformProjectors(db));
  const store = new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db);
  const { stepEntriesMin, stepEntriesMax } = defaultDeferredProjectionLimits;
  let pending: Entry[] = [];
  const stepsMs: number[] = [];
  let projectionUs = 0;
  let journalUs = 0;
  let orders = 0;
  const step = (count: number) => {
    const startedMs = performance.now();
    const started = process.cpuUsage();
    if (profiled) runningProjector = stepOutsideProjectors;
    target.project(pending.slice(0, count));
    runningProjector = "";
    projectionUs += cpuUs(started);
    stepsMs.push(performance.now() - startedMs);
    pending = pending.slice(count);
  };
  for (const [index, batch] of batches.entries()) {
    if (index === warmBatch) {
      projectionUs = 0;
      journalUs = 0;
      orders = 0;
      stepsMs.length = 0;
      statements.counting = projectorTimes.counting = statementsByProjector.counting = profiled;
    }
    const started = process.cpuUsage();
    // The stores' commits are synchronous on SQLite; the Promise is only the port's shape.
    await store.commitBatch(batch, []);
    journalUs += cpuUs(started);
    pending.push(...batch);
    if (pending.length >= stepEntriesMin) step(Math.min(pending.length, stepEntriesMax));
    orders += batch.length;
    if (index % checkpointEveryBatches === 0) db.pragma("wal_checkpoint(PASSIVE)");
  }
  while (pending.length > 0) step(Math.min(pending.length, stepEntriesMax));
  statements.counting = projectorTimes.counting = statementsByProjector.counting = false;
  db.close();
  return {
    projectionUsPerOrder: projectionUs / orders,
    journalUsPerOrder: journalUs / orders,
    stepsMs,
    orders,
  };
}

function printProfile(orders: number): void {
  const us = (total: number) => (total / orders).toFixed(2).padStart(6);
  let statementsUs = 0;
  console.log(
    `statements in the steps, by table (CPU µs an order, calls an order; clock ${clockCostUs.toFixed(2)} µs taken off each):`,
  );
  for (const [label, { us: total, calls }] of statements.rows()) {
    statementsUs += total;
    console.log(`  ${us(total)}  ${(calls / orders).toFixed(3).padStart(7)}  ${label}`);
  }
  console.log(`  ${us(statementsUs)}           all statements`);
  console.log("projectors (CPU µs an order: whole, of which statements, of which JavaScript):");
  for (const [name, { us: total }] of projectorTimes.rows()) {
    const inStatements = statementsByProjector.get(name);
    console.log(`  ${us(total)}  ${us(inStatements)}  ${us(total - inStatements)}  ${name}`);
  }
  const outside = statementsByProjector.get(stepOutsideProjectors);
  console.log(`  ${"".padStart(6)}  ${us(outside)}  ${"".padStart(6)}  ${stepOutsideProjectors}`);
}

const { batches, entriesCount, warmBatch } = await ordersJournalForReplay(
  ordersCount,
  batchCommandsMax,
  warmupOrders,
);
if (
  batches.some((batch) => batch.some((entry) => entry.events.some((event) => event.type === "MarketSettled")))
)
  throw new Error(
    "the journal settles a market: the projectors would need the platform's cut at settlements",
  );
mkdirSync(join(process.cwd(), ".bench-tmp"), { recursive: true });
const directory = mkdtempSync(join(process.cwd(), ".bench-tmp", "projection-costs-"));
try {
  const runs: Measured[] = [];
  for (let index = 0; index < rounds; index += 1) {
    const measured = await replay(batches, join(directory, `round-${index}.sqlite`), warmBatch);
    runs.push(measured);
    console.log(
      `round ${index + 1}: projection ${measured.projectionUsPerOrder.toFixed(1)} µs CPU an order, journal ${measured.journalUsPerOrder.toFixed(1)}`,
    );
  }
  if (profile) {
    measureClockCost();
    instrumentStatements();
    const measured = await replay(batches, join(directory, "profiled.sqlite"), warmBatch, true);
    console.log(
      `profiled round (timers on): projection ${measured.projectionUsPerOrder.toFixed(1)} µs CPU an order`,
    );
    printProfile(measured.orders);
  }
  const mean = (pick: (run: Measured) => number) =>
    runs.reduce((sum, run) => sum + pick(run), 0) / runs.length;
  const value = mean((run) => run.projectionUsPerOrder);
  const baseline = mean((run) => run.journalUsPerOrder);
  const steps = runs.flatMap((run) => run.stepsMs).sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      bench: "projection-costs",
      unit: "µs of CPU an order (the read models' projection steps, SQLite, in process)",
      value: round(value, 1),
      baseline: { name: "the journal's own commits of the same orders, same run", value: round(baseline, 1) },
      ratio: round(value / baseline, 3),
      p50_ms: round(percentileOfSorted(steps, 50), 3),
      p99_ms: round(percentileOfSorted(steps, 99), 3),
      latency_is: "a projection step's wall time (the event loop held)",
      orders: entriesCount,
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
