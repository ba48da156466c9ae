// What a shared rate-limit count costs per request: the @fastify/rate-limit store on PostgreSQL
// (src/store/postgres/rate-limit-store.ts: one INSERT … ON CONFLICT DO UPDATE … RETURNING on an
// UNLOGGED table per request) against the in-process store every listener uses without it
// (src/api/shared/rate-limit-store.ts), both driven through the store interface the plugin calls
// (incr), in alternating phases so machine drift hits both alike.
//
// `concurrency` callers each increment one after another, spread over `keys` merchants (the legacy
// limiter's key); a second PostgreSQL phase puts every caller on ONE key, the worst case (one row
// every increment waits for). Its own throwaway cluster (durable unless BENCH_PG_DURABLE=0),
// loopback only, bounded by phase time and an operation cap. BENCH_PHASE_MS shortens the phases.
// The last line of stdout is the JSON result: value is PostgreSQL's increments per second,
// baseline the in-process store's; p50/p99 are PostgreSQL's latency per increment (what each
// legacy request waits for its count).

import { clockedRateLimitStore } from "../src/api/shared/rate-limit-store.js";
import { openPostgresPool } from "../src/store/postgres/database.js";
import { openPostgresRateLimitStores } from "../src/store/postgres/rate-limit-store.js";
import { startPostgresCluster } from "../test/support/postgres-cluster.js";
import { round, summarizeTimedPhases } from "./lib/summary.js";

const phaseMs = Number(process.env.BENCH_PHASE_MS ?? 3_000);
const phasesPerStore = 3;
const concurrency = 16;
const keys = 100;
const operationsPerPhaseMax = 2_000_000;
const durable = process.env.BENCH_PG_DURABLE !== "0";

interface Phase {
  readonly operations: number;
  readonly elapsedMs: number;
  readonly latenciesMs: number[];
}

/** The plugin calls incr(key, callback, timeWindow, max); its type declares the first two. */
type PluginStore = {
  incr(
    key: string,
    callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
    timeWindowMs: number,
    max: number,
  ): void;
};

function increment(store: PluginStore, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    store.incr(
      key,
      (error, result) => (error === null && result !== undefined ? resolve(result.current) : reject(error)),
      1_000,
      50,
    );
  });
}

async function phase(store: PluginStore, keyOf: (caller: number, step: number) => string): Promise<Phase> {
  const latenciesMs: number[] = [];
  let operations = 0;
  const startedAt = performance.now();
  const deadline = startedAt + phaseMs;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, caller) => {
      for (let step = 0; performance.now() < deadline && operations < operationsPerPhaseMax; step += 1) {
        const sentAt = performance.now();
        await increment(store, keyOf(caller, step));
        latenciesMs.push(performance.now() - sentAt);
        operations += 1;
      }
    }),
  );
  return { operations, elapsedMs: performance.now() - startedAt, latenciesMs };
}

const summary = summarizeTimedPhases;

const cluster = await startPostgresCluster({ durable });
const url = await cluster.createDatabase("bench_rate_limit");
const pool = openPostgresPool({
  url,
  applicationName: "predex-bench-rate-limit",
  poolConnectionsMax: concurrency,
});
try {
  const stores = await openPostgresRateLimitStores(pool);
  const SharedStore = stores("legacy", Date.now);
  const LocalStore = clockedRateLimitStore(Date.now);
  const shared = new SharedStore({} as never) as unknown as PluginStore;
  const local = new LocalStore({} as never) as unknown as PluginStore;
  const spread = (caller: number, step: number) => `merchant:${(caller * 7 + step) % keys}`;
  const hot = () => "merchant:hot";
  // Warm the pool's connections and prepared statements.
  await phase(shared, spread);
  const sharedPhases: Phase[] = [];
  const localPhases: Phase[] = [];
  const hotPhases: Phase[] = [];
  for (let index = 0; index < phasesPerStore; index += 1) {
    localPhases.push(await phase(local, spread));
    sharedPhases.push(await phase(shared, spread));
    hotPhases.push(await phase(shared, hot));
  }
  const sharedSummary = summary(sharedPhases);
  const localSummary = summary(localPhases);
  const hotSummary = summary(hotPhases);
  console.log(
    `postgres: ${round(sharedSummary.perSecond, 0)} increments/s (p50 ${round(sharedSummary.p50Ms, 3)} ms, p99 ${round(sharedSummary.p99Ms, 3)} ms); one hot key: ${round(hotSummary.perSecond, 0)}/s (p50 ${round(hotSummary.p50Ms, 3)} ms); in-process: ${round(localSummary.perSecond, 0)}/s`,
  );
  console.log(
    JSON.stringify({
      bench: "pg-rate-limit",
      unit: "increments/s",
      value: round(sharedSummary.perSecond, 0),
      baseline: { name: "in-process store", value: round(localSummary.perSecond, 0) },
      ratio: round(sharedSummary.perSecond / localSummary.perSecond, 5),
      p50_ms: round(sharedSummary.p50Ms, 3),
      p99_ms: round(sharedSummary.p99Ms, 3),
      hot_key_per_s: round(hotSummary.perSecond, 0),
      hot_key_p50_ms: round(hotSummary.p50Ms, 3),
      hot_key_p99_ms: round(hotSummary.p99Ms, 3),
      concurrency,
      durable,
    }),
  );
} finally {
  await pool.end();
  await cluster.stop();
}
