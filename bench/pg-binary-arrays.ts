// Why the batch statement encodes its array parameters itself (src/store/postgres/binary-arrays.ts):
// the CPU the API process spends turning one batch's columns into parameters, in PostgreSQL's binary
// array format against node-postgres's own text literals (utils.prepareValue, what node-postgres
// does with a JS array), on a batch shaped like bench:orders' (24 orders: the journal's commands and
// events as JSON, and the bigint and text columns of every row the batch writes). The server's side
// (array_recv against array_in) and the end-to-end effect are measured by bench:orders.
//
// Each encoder runs in alternating phases (BENCH_PHASE_MS, 1 s by default, 3 each), bounded by time
// and a batch cap. The last line of stdout is the JSON result: value is ours, baseline node-postgres's.

import { createRequire } from "node:module";
import { encodePlainData } from "../src/engine/journal-codec.js";
import { arrayParameterTypes, encodeArrayParameters } from "../src/store/postgres/binary-arrays.js";
import { round, summarizeTimedPhases, type TimedPhase } from "./lib/summary.js";

const phaseMs = Number(process.env.BENCH_PHASE_MS ?? 1_000);
const phasesPerEncoder = 3;
const batchesPerPhaseMax = 1_000_000;
const ordersPerBatch = 24;

const require = createRequire(import.meta.url);
const pgUtils = require("pg/lib/utils.js") as { prepareValue(value: unknown): unknown };

/** The columns of one batch and the casts the statement gives them, as the batch statement has them. */
function batchColumns(): { text: string; values: unknown[] } {
  const casts: string[] = [];
  const values: unknown[] = [];
  const column = (type: "bigint" | "text", cells: unknown[]) => {
    values.push(cells);
    casts.push(`$${values.length}::${type}[]`);
  };
  const orders = Array.from({ length: ordersPerBatch }, (_, index) => index);
  const command = (index: number) => ({
    type: "PlaceOrder",
    userId: BigInt(1000 + index),
    marketId: 7n,
    optionId: 21n,
    side: "BUY",
    limitPrice: 50_000_000n,
    shares: BigInt(index + 1) * 100_000_000n,
    clientOrderId: `bench-${index}`,
  });
  const events = (index: number) =>
    Array.from({ length: 4 }, (_, event) => ({
      type: event === 0 ? "OrderPlaced" : "TradeExecuted",
      orderId: BigInt(500_000 + index),
      makerOrderId: BigInt(400_000 + event),
      price: 50_000_000n,
      shares: 100_000_000n,
      fee: 1_000_000n,
      balances: { available: 999_000_000_000n, frozen: 50_000_000n },
    }));
  column(
    "bigint",
    orders.map((index) => BigInt(10_000 + index)),
  );
  column(
    "bigint",
    orders.map((index) => 1_795_000_000_000 + index),
  );
  column(
    "text",
    orders.map((index) => encodePlainData(command(index))),
  );
  column(
    "text",
    orders.map((index) => encodePlainData(events(index))),
  );
  // The read models' columns, as many as the exchange projector binds for a batch like bench:orders'
  // (about 3 trades and 7 ledger entries an order): [bigint columns, text columns, rows].
  const tables: [number, number, number][] = [
    [2, 1, ordersPerBatch], // forward ids
    [15, 4, ordersPerBatch], // new orders
    [5, 1, ordersPerBatch], // order changes
    [10, 3, 3 * ordersPerBatch], // trades
    [6, 2, 7 * ordersPerBatch], // ledger
    [3, 0, 2 * ordersPerBatch], // balances
    [9, 0, 2 * ordersPerBatch], // positions
    [6, 0, 3 * ordersPerBatch], // price points
  ];
  for (const [bigintColumns, textColumns, rows] of tables) {
    for (let bigintColumn = 0; bigintColumn < bigintColumns; bigintColumn += 1)
      column(
        "bigint",
        Array.from({ length: rows }, (_, row) => BigInt(row * 1_000_003 + bigintColumn)),
      );
    for (let textColumn = 0; textColumn < textColumns; textColumn += 1)
      column(
        "text",
        Array.from({ length: rows }, (_, row) => (row % 2 === 0 ? "BUY" : "SELL")),
      );
  }
  return { text: `SELECT ${casts.join(", ")}`, values };
}

function runPhase(encode: () => unknown): TimedPhase {
  const latenciesMs: number[] = [];
  const started = performance.now();
  let batches = 0;
  while (batches < batchesPerPhaseMax && performance.now() - started < phaseMs) {
    const before = performance.now();
    encode();
    latenciesMs.push(performance.now() - before);
    batches += 1;
  }
  return { operations: batches, elapsedMs: performance.now() - started, latenciesMs };
}

const batch = batchColumns();
const types = arrayParameterTypes(batch.text);
const encoders = {
  binary: () => encodeArrayParameters(types, batch.values),
  nodePostgres: () => batch.values.map((value) => pgUtils.prepareValue(value)),
};
// Warm both up, then alternate so machine drift hits both alike.
runPhase(encoders.binary);
runPhase(encoders.nodePostgres);
const phases: Record<keyof typeof encoders, TimedPhase[]> = { binary: [], nodePostgres: [] };
for (let round = 0; round < phasesPerEncoder; round += 1) {
  phases.binary.push(runPhase(encoders.binary));
  phases.nodePostgres.push(runPhase(encoders.nodePostgres));
}

const ours = summarizeTimedPhases(phases.binary);
const theirs = summarizeTimedPhases(phases.nodePostgres);
const usPerOrder = (perSecond: number) => 1e6 / perSecond / ordersPerBatch;
process.stderr.write(
  `binary arrays:          ${ours.perSecond.toFixed(0)} batches/s (${usPerOrder(ours.perSecond).toFixed(2)} us an order)\n` +
    `node-postgres literals: ${theirs.perSecond.toFixed(0)} batches/s (${usPerOrder(theirs.perSecond).toFixed(2)} us an order)\n`,
);
console.log(
  JSON.stringify({
    bench: "pg-binary-arrays",
    unit: "batches/s",
    value: Math.round(ours.perSecond),
    baseline: {
      name: "node-postgres array literals (utils.prepareValue), same batch, same run",
      value: Math.round(theirs.perSecond),
    },
    ratio: round(ours.perSecond / theirs.perSecond, 3),
    p50_ms: round(ours.p50Ms, 4),
    p99_ms: round(ours.p99Ms, 4),
    baseline_p50_ms: round(theirs.p50Ms, 4),
    us_per_order: round(usPerOrder(ours.perSecond), 2),
    baseline_us_per_order: round(usPerOrder(theirs.perSecond), 2),
    orders_per_batch: ordersPerBatch,
  }),
);
