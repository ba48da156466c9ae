// Signed `POST /ordering/create-order` over HTTP with durable commits: orders per second and p50/p99
// latency at 1, 16 and 64 concurrent clients, and, in the same run, a signed `GET /account/assets`
// at 64 clients as the baseline (the same gateway, session and envelope, but no engine commit).
//
// The platform runs in a child process (real startPlatform: gateway signatures verified, SQLite WAL
// with synchronous=FULL, group commit, read models projected in each commit) and the load generator
// here, so that on a 2-core machine each gets a core. Every request is signed in full (its body's MD5
// differs). Each client drives two users, one buying Yes and one buying No at prices around 0.5, so
// about half the orders rest and half mint against them: the book stays shallow, every other order
// trades, and no balance runs out. Loopback only, bounded by phase durations and a request cap.
// The last line of stdout is the JSON result; a table per concurrency comes before it.
//
// PREDEX_DATABASE_URL=postgres://… measures the platform on PostgreSQL instead (#16): orders at 64
// clients against two server processes, one on a fresh database of that server and one on SQLite
// (the baseline), in alternating phases of one run. PREDEX_DATABASE_URL=throwaway starts a durable
// throwaway cluster for it (test/support/postgres-cluster.ts; Debian's postgresql must be installed).
//
// BENCH_ONLY=orders (or assets) runs that one phase at 64 clients and prints no JSON line: with
// BENCH_CPU_PROF=<dir>, a server profile of that load alone (docs/performance.md, issue #31).
//
// BENCH_METRICS=compare measures what the metrics cost instead: orders at 64 clients against two
// server processes, one built with metrics (as production runs) and one without, in alternating
// phases; the JSON line's baseline is then the server without metrics.

import { Agent } from "node:http";
import { type GatewayCredentials, signRequest } from "../src/sdk/signer.js";
import {
  type ClientLoad,
  measurePhase,
  type OutgoingRequest,
  type PhaseResult,
  sendExpectingCodeZero,
} from "./lib/load.js";
import { metricsHookNsPerResponse } from "./lib/metrics-hook-cost.js";
import { createBenchPartner, createOpenBenchMarket, registerBenchUser } from "./lib/platform-fixtures.js";
import { freshBenchDatabase } from "./lib/postgres-database.js";
import {
  type BenchServer,
  comparesMetrics,
  cpuProfileFlags,
  isServerProcess,
  serveTargets,
  startBenchPlatform,
  withBenchServer,
} from "./lib/server-process.js";
import { type PhaseSummary, round, summarizePhases } from "./lib/summary.js";

const concurrencies = [1, 16, 64] as const;
const baselineConcurrency = 64;
const warmupMs = 1_000;
const phaseMs = Number(process.env.BENCH_PHASE_MS ?? 4_000);
const requestsPerPhaseMax = 500_000;
const depositPerUserUsdt = "10000000";
const usersMax = 2 * Math.max(...concurrencies);
/** Phases of each server in BENCH_METRICS=compare, alternating without, with, without, … */
const metricsPhasesPerServer = 3;
/** Phases of each server in the PostgreSQL comparison, alternating SQLite, PostgreSQL, SQLite, … */
const storePhasesPerServer = 3;

interface Targets {
  readonly baseUrl: string;
  readonly credentials: GatewayCredentials;
  readonly marketId: string;
  readonly outcomeId: string;
  readonly yes: string;
  readonly no: string;
  /** Session cookies; user 2k buys Yes, user 2k+1 buys No. */
  readonly cookies: string[];
}

if (isServerProcess()) await serve();
else if (comparesMetrics()) await measureMetricsCost();
else if ((process.env.PREDEX_DATABASE_URL ?? "") !== "") await measurePostgresAgainstSqlite();
else await measure();

/** Child process: one platform, a partner, an open market and funded users with sessions. */
async function serve(): Promise<void> {
  const bench = await startBenchPlatform("predex-bench-orders-");
  const { deps } = bench.platform;
  const partner = await createBenchPartner(deps);
  const { marketId, outcomes } = await createOpenBenchMarket(deps, {
    title: "Bench market",
    outcomeName: "Bench",
    details: { categoryId: "1" },
  });
  const cookies: string[] = [];
  for (let index = 0; index < usersMax; index += 1) {
    const user = await registerBenchUser(deps, partner, {
      userEmail: `bench${index}@example.com`,
      marchantUserId: `bench-${index}`,
    });
    await deps.engine.submit({
      type: "Deposit",
      userId: user.userId,
      amount: BigInt(depositPerUserUsdt) * 100_000_000n,
      txHash: `0xbench${index}`,
    });
    cookies.push(`predex_session=${user.sessionToken}`);
  }
  const outcome = outcomes[0]!;
  const targets: Targets = {
    baseUrl: bench.platform.addresses.gateway,
    credentials: partner.credentials,
    marketId: String(marketId),
    outcomeId: String(outcome.outcomeId),
    yes: String(outcome.options[0]!.optionId),
    no: String(outcome.options[1]!.optionId),
    cookies,
  };
  serveTargets(targets, bench.close);
}

type Mode = "orders" | "assets";

async function measure(): Promise<void> {
  await withBenchServer<Targets>(import.meta.url, cpuProfileFlags(), async (server) => {
    const agent = new Agent({ keepAlive: true, maxSockets: Math.max(...concurrencies) });
    const measureMode = (mode: Mode, clients: number, durationMs: number) =>
      measurePhase(server, modeLoad(server.targets, agent, mode, clients, durationMs));
    const only = process.env.BENCH_ONLY as Mode | undefined;
    if (only !== undefined) {
      if (only !== "orders" && only !== "assets") throw new Error("BENCH_ONLY is orders or assets");
      await measureMode(only, baselineConcurrency, warmupMs);
      const summary = summarizePhases([await measureMode(only, baselineConcurrency, phaseMs)]);
      agent.destroy();
      console.log(
        `${only} at ${baselineConcurrency} clients: ${summary.perSecond.toFixed(0)} req/s, p50 ${summary.p50Ms.toFixed(2)} ms, p99 ${summary.p99Ms.toFixed(2)} ms, server CPU ${summary.cpuUsPerRequest.toFixed(1)} µs/req, failures ${summary.failures}`,
      );
      return;
    }

    const rows: { clients: number; mode: Mode; summary: PhaseSummary }[] = [];
    for (const clients of concurrencies) {
      await measureMode("orders", clients, warmupMs);
      rows.push({
        clients,
        mode: "orders",
        summary: summarizePhases([await measureMode("orders", clients, phaseMs)]),
      });
    }
    await measureMode("assets", baselineConcurrency, warmupMs);
    const baseline = summarizePhases([await measureMode("assets", baselineConcurrency, phaseMs)]);
    rows.push({ clients: baselineConcurrency, mode: "assets", summary: baseline });
    agent.destroy();

    console.log(
      "operation                     clients   req/s    p50 ms   p99 ms  server CPU µs/req  client CPU µs/req  failures",
    );
    for (const { clients, mode, summary } of rows) {
      console.log(
        `${(mode === "orders" ? "POST /ordering/create-order" : "GET /account/assets").padEnd(29)} ${String(clients).padStart(7)} ${summary.perSecond.toFixed(0).padStart(7)} ${summary.p50Ms.toFixed(2).padStart(8)} ${summary.p99Ms.toFixed(2).padStart(8)} ${summary.cpuUsPerRequest.toFixed(1).padStart(18)} ${summary.clientCpuUsPerRequest.toFixed(1).padStart(18)} ${String(summary.failures).padStart(9)}`,
      );
    }
    const top = rows.find((row) => row.mode === "orders" && row.clients === 64)!.summary;
    if (rows.some((row) => row.summary.failures > 0))
      throw new Error("some requests did not answer 200 / code 0");
    console.log(
      JSON.stringify({
        bench: "orders",
        unit: "orders/s",
        value: Math.round(top.perSecond),
        baseline: {
          name: "GET /account/assets signed, 64 clients, same run",
          value: Math.round(baseline.perSecond),
        },
        ratio: round(top.perSecond / baseline.perSecond, 3),
        p50_ms: round(top.p50Ms, 3),
        p99_ms: round(top.p99Ms, 3),
        server_cpu_us_per_order: round(top.cpuUsPerRequest, 1),
        client_cpu_us_per_order: round(top.clientCpuUsPerRequest, 1),
        by_clients: Object.fromEntries(
          rows
            .filter((row) => row.mode === "orders")
            .map((row) => [
              row.clients,
              {
                value: Math.round(row.summary.perSecond),
                p50_ms: round(row.summary.p50Ms, 3),
                p99_ms: round(row.summary.p99Ms, 3),
              },
            ]),
        ),
      }),
    );
  });
}

/** Parent process, BENCH_METRICS=compare: orders at 64 clients with and without metrics on the server. */
async function measureMetricsCost(): Promise<void> {
  const clients = baselineConcurrency;
  await withBenchServer<Targets>(import.meta.url, cpuProfileFlags(), (withMetrics) =>
    withBenchServer<Targets>(
      import.meta.url,
      [],
      async (withoutMetrics) => {
        const agent = new Agent({ keepAlive: true, maxSockets: clients });
        const measureServer = (server: BenchServer<Targets>, durationMs: number) =>
          measurePhase(server, modeLoad(server.targets, agent, "orders", clients, durationMs));
        await measureServer(withoutMetrics, warmupMs);
        await measureServer(withMetrics, warmupMs);
        const results: Record<"with" | "without", PhaseResult[]> = { with: [], without: [] };
        const pairs = Number(process.env.BENCH_PHASE_PAIRS ?? metricsPhasesPerServer);
        const pairRatios: number[] = [];
        for (let pair = 0; pair < pairs; pair += 1) {
          const without = await measureServer(withoutMetrics, phaseMs);
          const measuredWith = await measureServer(withMetrics, phaseMs);
          results.without.push(without);
          results.with.push(measuredWith);
          pairRatios.push(
            measuredWith.requests / measuredWith.elapsedMs / (without.requests / without.elapsedMs),
          );
        }
        const hookNs = metricsHookNsPerResponse();
        agent.destroy();
        const measured = summarizePhases(results.with);
        const baseline = summarizePhases(results.without);
        if (measured.failures + baseline.failures > 0)
          throw new Error("some requests did not answer 200 / code 0");
        process.stderr.write(
          `without metrics: ${baseline.perSecond.toFixed(0)} orders/s (p50 ${baseline.p50Ms.toFixed(2)} ms, p99 ${baseline.p99Ms.toFixed(2)} ms, ${baseline.cpuUsPerRequest.toFixed(1)} us CPU/order)\n` +
            `with metrics:    ${measured.perSecond.toFixed(0)} orders/s (p50 ${measured.p50Ms.toFixed(2)} ms, p99 ${measured.p99Ms.toFixed(2)} ms, ${measured.cpuUsPerRequest.toFixed(1)} us CPU/order)\n`,
        );
        console.log(
          JSON.stringify({
            bench: "orders",
            mode: "metrics",
            unit: "orders/s",
            value: Math.round(measured.perSecond),
            baseline: {
              name: "POST /ordering/create-order, 64 clients, server without metrics, same run",
              value: Math.round(baseline.perSecond),
            },
            ratio: round(measured.perSecond / baseline.perSecond, 3),
            p50_ms: round(measured.p50Ms, 3),
            p99_ms: round(measured.p99Ms, 3),
            baseline_p99_ms: round(baseline.p99Ms, 3),
            server_cpu_us_per_order: round(measured.cpuUsPerRequest, 1),
            baseline_server_cpu_us_per_order: round(baseline.cpuUsPerRequest, 1),
            cpu_ratio: round(baseline.cpuUsPerRequest / measured.cpuUsPerRequest, 3),
            ratio_median_of_pairs: round(
              pairRatios.sort((a, b) => a - b)[Math.floor(pairRatios.length / 2)]!,
              3,
            ),
            hook_ns_per_response: Math.round(hookNs),
          }),
        );
      },
      { metrics: false },
    ),
  );
}

/** Parent process, PREDEX_DATABASE_URL set: orders at 64 clients on PostgreSQL, SQLite the baseline. */
async function measurePostgresAgainstSqlite(): Promise<void> {
  const clients = baselineConcurrency;
  const database = await freshBenchDatabase(process.env.PREDEX_DATABASE_URL!, "orders");
  try {
    await withBenchServer<Targets>(import.meta.url, [], (sqlite) =>
      withBenchServer<Targets>(
        import.meta.url,
        cpuProfileFlags(),
        async (postgres) => {
          const agent = new Agent({ keepAlive: true, maxSockets: clients });
          const measureServer = (server: BenchServer<Targets>, durationMs: number) =>
            measurePhase(server, modeLoad(server.targets, agent, "orders", clients, durationMs));
          await measureServer(sqlite, warmupMs);
          await measureServer(postgres, warmupMs);
          await database.resetStatements();
          const results: Record<"sqlite" | "postgres", PhaseResult[]> = { sqlite: [], postgres: [] };
          const pairs = Number(process.env.BENCH_PHASE_PAIRS ?? storePhasesPerServer);
          const pairRatios: number[] = [];
          let postgresCpuMicros: number | undefined = 0;
          for (let pair = 0; pair < pairs; pair += 1) {
            const onSqlite = await measureServer(sqlite, phaseMs);
            const cpuBefore = database.cpuMicros();
            const onPostgres = await measureServer(postgres, phaseMs);
            const cpuAfter = database.cpuMicros();
            postgresCpuMicros =
              postgresCpuMicros === undefined || cpuBefore === undefined || cpuAfter === undefined
                ? undefined
                : postgresCpuMicros + (cpuAfter - cpuBefore);
            results.sqlite.push(onSqlite);
            results.postgres.push(onPostgres);
            pairRatios.push(
              onPostgres.requests / onPostgres.elapsedMs / (onSqlite.requests / onSqlite.elapsedMs),
            );
          }
          agent.destroy();
          const measured = summarizePhases(results.postgres);
          const baseline = summarizePhases(results.sqlite);
          if (measured.failures + baseline.failures > 0)
            throw new Error("some requests did not answer 200 / code 0");
          const postgresRequests = results.postgres.reduce((sum, phase) => sum + phase.requests, 0);
          const postgresCpuUsPerOrder =
            postgresCpuMicros === undefined ? undefined : postgresCpuMicros / postgresRequests;
          await database.reportStatements(postgresRequests);
          process.stderr.write(
            `SQLite:     ${baseline.perSecond.toFixed(0)} orders/s (p50 ${baseline.p50Ms.toFixed(2)} ms, p99 ${baseline.p99Ms.toFixed(2)} ms, ${baseline.cpuUsPerRequest.toFixed(1)} us server CPU/order)\n` +
              `PostgreSQL: ${measured.perSecond.toFixed(0)} orders/s (p50 ${measured.p50Ms.toFixed(2)} ms, p99 ${measured.p99Ms.toFixed(2)} ms, ${measured.cpuUsPerRequest.toFixed(1)} us server CPU/order, ${postgresCpuUsPerOrder === undefined ? "PostgreSQL's own CPU not measured" : `${postgresCpuUsPerOrder.toFixed(1)} us PostgreSQL CPU/order`})\n`,
          );
          console.log(
            JSON.stringify({
              bench: "orders",
              mode: "postgres",
              unit: "orders/s",
              value: Math.round(measured.perSecond),
              baseline: {
                name: "POST /ordering/create-order, 64 clients, the same bench on SQLite, same run",
                value: Math.round(baseline.perSecond),
              },
              ratio: round(measured.perSecond / baseline.perSecond, 3),
              p50_ms: round(measured.p50Ms, 3),
              p99_ms: round(measured.p99Ms, 3),
              baseline_p50_ms: round(baseline.p50Ms, 3),
              baseline_p99_ms: round(baseline.p99Ms, 3),
              server_cpu_us_per_order: round(measured.cpuUsPerRequest, 1),
              baseline_server_cpu_us_per_order: round(baseline.cpuUsPerRequest, 1),
              ratio_median_of_pairs: round(
                pairRatios.sort((a, b) => a - b)[Math.floor(pairRatios.length / 2)]!,
                3,
              ),
              ...(postgresCpuUsPerOrder === undefined
                ? {}
                : { postgres_cpu_us_per_order: round(postgresCpuUsPerOrder, 1) }),
              durable_cluster: database.throwaway,
            }),
          );
        },
        { databaseUrl: database.url },
      ),
    );
  } finally {
    await database.drop();
  }
}

/**
 * `clients` clients, each alternating between its Yes buyer and its No buyer: signed limit orders
 * around 0.5 in "orders" mode, signed `GET /account/assets` in "assets" mode.
 */
function modeLoad(
  targets: Targets,
  agent: Agent,
  mode: Mode,
  clients: number,
  durationMs: number,
): ClientLoad<{ path: string; request: OutgoingRequest }> {
  const prices = [0.49, 0.5, 0.51];
  return {
    clients,
    durationMs,
    requestsMax: requestsPerPhaseMax,
    prepare: (clientIndex, sequence) => {
      const buysYes = sequence % 2 === 0;
      const cookie = targets.cookies[2 * clientIndex + (buysYes ? 0 : 1)]!;
      if (mode === "orders") {
        const body = Buffer.from(
          JSON.stringify({
            marketId: targets.marketId,
            outcomeId: targets.outcomeId,
            optionId: buysYes ? targets.yes : targets.no,
            side: "BUY",
            orderType: "LIMIT",
            limitPrice: prices[sequence % 3],
            shares: 1 + (sequence % 5),
          }),
        );
        // Signed as partners' SDKs sign since issue #27: with a fresh nonce, whose cost is part
        // of the order path's figure.
        const signed = signRequest(targets.credentials, {
          method: "POST",
          path: "/ordering/create-order",
          body,
          cookie,
        });
        return {
          path: signed.pathAndQuery,
          request: { method: "POST", headers: { ...signed.headers, cookie }, body },
        };
      }
      const signed = signRequest(targets.credentials, {
        method: "GET",
        path: "/account/assets",
        cookie,
      });
      return {
        path: signed.pathAndQuery,
        request: { method: "GET", headers: { ...signed.headers, cookie } },
      };
    },
    send: ({ path, request }) => sendExpectingCodeZero(new URL(path, targets.baseUrl), request, agent),
  };
}
