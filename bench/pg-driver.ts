// Which PostgreSQL driver the engine store should use: `pg` (node-postgres, the baseline, already a
// dependency) or `postgres` (porsager's postgres.js). Both do what the engine store does, against one
// throwaway cluster of this bench's own, in alternating phases so machine drift hits both alike:
//
// - append: one writer commits batches of journal entries, each batch one transaction: the fenced
//   INSERT … SELECT FROM unnest(…) into engine_journal (the real schema and triggers: epoch check
//   under a row lock, continuity check, NOTIFY) plus one read-model upsert, as a projector does;
// - read:   16 concurrent clients read one journal row by its primary key (an indexed point read,
//   as API nodes read their read models).
//
// The cluster is durable (fsync on) unless BENCH_PG_DURABLE=0. Loopback only, bounded by phase
// time; BENCH_PHASE_MS shortens the phases. The last line of stdout is the JSON result: value is
// postgres.js's append rate, baseline pg's, so ratio > 1 means postgres.js is faster.

import postgres from "postgres";
import { encodePlainData } from "../src/engine/journal-codec.js";
import type { JournalEntry } from "../src/engine/store.js";
import { openPostgresPool, type PostgresClient } from "../src/store/postgres/database.js";
import { PostgresEngineStore } from "../src/store/postgres/engine-store.js";
import { acquireLeadership, engineApplicationName } from "../src/store/postgres/leadership.js";
import { startPostgresCluster } from "../test/support/postgres-cluster.js";
import { round, summarizeTimedPhases } from "./lib/summary.js";

const phaseMs = Number(process.env.BENCH_PHASE_MS ?? 3_000);
const phasesPerDriver = 3;
const batchEntries = Number(process.env.BENCH_BATCH_ENTRIES ?? 64);
const readClients = 16;
const batchesPerPhaseMax = 200_000;
const readsPerPhaseMax = 2_000_000;
const durable = process.env.BENCH_PG_DURABLE !== "0";

type Command = Record<string, unknown>;
type Event = Record<string, unknown>;

interface Phase {
  readonly operations: number;
  readonly elapsedMs: number;
  readonly latenciesMs: number[];
}

/** An order placement as the exchange journals it: the command and the events it caused. */
function orderEntry(sequence: bigint, nowMs: number): JournalEntry<Command, Event> {
  const userId = BigInt(1 + Number(sequence % 500n));
  return {
    sequence,
    nowMs,
    command: {
      type: "placeOrder",
      userId,
      marketId: 7n,
      outcomeId: 70n,
      optionId: 701n,
      side: "BUY",
      orderType: "LIMIT",
      limitPriceTicks: 45n,
      shares: 1_000_000_000n,
      timeInForce: "GTC",
      clientOrderId: `bench-${sequence}`,
    },
    events: [
      { type: "orderAccepted", orderId: sequence, userId, frozen: 450_000_000n, atMs: nowMs },
      { type: "balanceChanged", userId, available: -450_000_000n, frozen: 450_000_000n },
    ],
  };
}

const upsertBalance = `INSERT INTO bench_balances (user_id, frozen) VALUES ($1, $2)
  ON CONFLICT (user_id) DO UPDATE SET frozen = bench_balances.frozen + excluded.frozen`;
const appendSql = `INSERT INTO engine_journal (sequence, now_ms, command, events, epoch)
  SELECT sequence, now_ms, command, events, $5
  FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[]) AS batch(sequence, now_ms, command, events)`;

async function timed(
  operationsMax: number,
  concurrency: number,
  operation: () => Promise<void>,
): Promise<Phase> {
  const latenciesMs: number[] = [];
  const started = performance.now();
  const deadline = started + phaseMs;
  let operations = 0;
  const worker = async () => {
    while (performance.now() < deadline && operations < operationsMax) {
      operations += 1;
      const before = performance.now();
      await operation();
      latenciesMs.push(performance.now() - before);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { operations, elapsedMs: performance.now() - started, latenciesMs };
}

function summarize(phases: readonly Phase[], perOperation: number) {
  const summary = summarizeTimedPhases(phases);
  return { ...summary, perSecond: summary.perSecond * perOperation };
}

const cluster = await startPostgresCluster({ durable, maxConnections: 80 });
try {
  const url = await cluster.createDatabase("bench");
  const pool = openPostgresPool({
    url,
    applicationName: engineApplicationName("bench"),
    poolConnectionsMax: readClients,
  });
  await pool.query("CREATE TABLE bench_balances (user_id bigint PRIMARY KEY, frozen bigint NOT NULL)");
  const leadership = await acquireLeadership(pool, { url, nodeId: "bench" });
  const store = await PostgresEngineStore.open<Command, Event>(pool, leadership);
  const sql = postgres(url, {
    max: readClients,
    onnotice: () => {},
    connection: { synchronous_commit: "on" },
  });

  let next = 1n;
  const nextBatch = () => {
    const nowMs = Date.now();
    const batch = Array.from({ length: batchEntries }, (_, index) => orderEntry(next + BigInt(index), nowMs));
    next += BigInt(batchEntries);
    return batch;
  };
  const projector = async (client: PostgresClient, entries: readonly JournalEntry<Command, Event>[]) => {
    await client.query({
      name: "bench-upsert",
      text: upsertBalance,
      values: [entries[0]!.command.userId, 1],
    });
  };

  const appendWithPg = () => store.commitBatch(nextBatch(), [projector]);
  const appendWithPostgresJs = async () => {
    const batch = nextBatch();
    const sequences = batch.map((entry) => entry.sequence.toString());
    const nowMs = batch.map((entry) => entry.nowMs);
    const commands = batch.map((entry) => encodePlainData(entry.command));
    const events = batch.map((entry) => encodePlainData(entry.events));
    await sql.begin(async (transaction) => {
      await transaction.unsafe(appendSql, [
        sequences,
        nowMs,
        commands,
        events,
        leadership.epoch.toString(),
      ] as never[]);
      await transaction.unsafe(upsertBalance, [String(batch[0]!.command.userId), 1]);
    });
  };

  const appendPhases = { pg: [] as Phase[], postgres: [] as Phase[] };
  const readPhases = { pg: [] as Phase[], postgres: [] as Phase[] };
  // Warm-up: connections open, statements prepared, caches filled.
  await timed(200, 1, appendWithPg);
  await timed(200, 1, appendWithPostgresJs);
  for (let round = 0; round < phasesPerDriver; round++) {
    appendPhases.pg.push(await timed(batchesPerPhaseMax, 1, appendWithPg));
    appendPhases.postgres.push(await timed(batchesPerPhaseMax, 1, appendWithPostgresJs));
  }

  const written = Number(next - 1n);
  const randomSequence = () => 1 + Math.floor(Math.random() * written);
  const readWithPg = async () => {
    await pool.query({
      name: "bench-read",
      text: "SELECT sequence, now_ms, command, events FROM engine_journal WHERE sequence = $1",
      values: [randomSequence()],
    });
  };
  const readWithPostgresJs = async () => {
    await sql`SELECT sequence, now_ms, command, events FROM engine_journal WHERE sequence = ${randomSequence()}`;
  };
  await timed(2_000, readClients, readWithPg);
  await timed(2_000, readClients, readWithPostgresJs);
  for (let round = 0; round < phasesPerDriver; round++) {
    readPhases.pg.push(await timed(readsPerPhaseMax, readClients, readWithPg));
    readPhases.postgres.push(await timed(readsPerPhaseMax, readClients, readWithPostgresJs));
  }

  const appendPg = summarize(appendPhases.pg, batchEntries);
  const appendPostgres = summarize(appendPhases.postgres, batchEntries);
  const readPg = summarize(readPhases.pg, 1);
  const readPostgres = summarize(readPhases.postgres, 1);
  console.log(
    `cluster durable=${durable}, ${batchEntries} entries per batch, ${phasesPerDriver} × ${phaseMs} ms phases each`,
  );
  console.log(
    "driver     append entries/s  batch p50 ms  batch p99 ms  |  reads/s  read p50 ms  read p99 ms",
  );
  for (const [name, append, read] of [
    ["pg", appendPg, readPg],
    ["postgres", appendPostgres, readPostgres],
  ] as const) {
    console.log(
      `${name.padEnd(10)} ${append.perSecond.toFixed(0).padStart(17)} ${append.p50Ms.toFixed(2).padStart(13)} ${append.p99Ms.toFixed(2).padStart(13)}  | ${read.perSecond.toFixed(0).padStart(8)} ${read.p50Ms.toFixed(3).padStart(12)} ${read.p99Ms.toFixed(3).padStart(12)}`,
    );
  }

  await sql.end();
  await leadership.release();
  await pool.end();
  console.log(
    JSON.stringify({
      bench: "pg-driver",
      unit: "journal entries/s",
      value: round(appendPostgres.perSecond, 0),
      baseline: { name: "pg (node-postgres)", value: round(appendPg.perSecond, 0) },
      ratio: round(appendPostgres.perSecond / appendPg.perSecond, 3),
      p50_ms: round(appendPostgres.p50Ms, 3),
      p99_ms: round(appendPostgres.p99Ms, 3),
      baseline_p50_ms: round(appendPg.p50Ms, 3),
      baseline_p99_ms: round(appendPg.p99Ms, 3),
      reads_per_s: round(readPostgres.perSecond, 0),
      baseline_reads_per_s: round(readPg.perSecond, 0),
      reads_ratio: round(readPostgres.perSecond / readPg.perSecond, 3),
      read_p99_ms: round(readPostgres.p99Ms, 3),
      baseline_read_p99_ms: round(readPg.p99Ms, 3),
      batch_entries: batchEntries,
      durable,
    }),
  );
} finally {
  await cluster.stop();
}
