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

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { loadConfig } from "../src/config.js";
import { type GatewayCredentials, signRequest } from "../src/sdk/signer.js";
import { startPlatform } from "../src/server.js";

const concurrencies = [1, 16, 64] as const;
const baselineConcurrency = 64;
const warmupMs = 1_000;
const phaseMs = Number(process.env.BENCH_PHASE_MS ?? 4_000);
const requestsPerPhaseMax = 500_000;
const depositPerUserUsdt = "10000000";
const usersMax = 2 * Math.max(...concurrencies);

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

if (process.argv.includes("--serve")) await serve();
else await measure();

/** Child process: one platform, a partner, an open market and funded users with sessions. */
async function serve(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-bench-orders-"));
  const config = loadConfig({
    PREDEX_DATA_DIR: dataDir,
    PREDEX_HOST: "127.0.0.1",
    PREDEX_PORT: "0",
    PREDEX_PUBLIC_PORT: "0",
    PREDEX_LEGACY_PORT: "0",
    PREDEX_ADMIN_PORT: "0",
    PREDEX_LOG_LEVEL: "silent",
  });
  const platform = await startPlatform(config);
  const { deps } = platform;
  const created = await deps.identity.createPartner({ name: "bench" });
  if (!created.ok) throw new Error("could not create the bench partner");
  const partner = (await deps.identity.lookupAppKey(created.value.appKey))!;
  const market = await deps.engine.submit({
    type: "CreateMarket",
    title: "Bench market",
    modelType: "orderbook",
    outcomes: [{ name: "Bench", options: null }],
    tickSize: null,
    minOrderSize: null,
    makerFeeBps: 10,
    takerFeeBps: 20,
    marketOrderPriceProtection: null,
    limitOrderPriceProtection: null,
    startTimeMs: Date.now() - 60_000,
    endTimeMs: Date.now() + 86_400_000,
    creatorId: null,
    details: { categoryId: "1" },
  });
  if (!market.ok || market.events[0]?.type !== "MarketCreated")
    throw new Error("could not create the market");
  const { marketId, outcomes } = market.events[0];
  await deps.engine.submit({ type: "OpenMarket", marketId });
  const cookies: string[] = [];
  for (let index = 0; index < usersMax; index += 1) {
    const registered = await deps.identity.register(partner, {
      merchantId: created.value.merchantId,
      userEmail: `bench${index}@example.com`,
      marchantUserId: `bench-${index}`,
    });
    if (!registered.ok) throw new Error("could not register a bench user");
    await deps.engine.submit({
      type: "Deposit",
      userId: registered.value.user.userId,
      amount: BigInt(depositPerUserUsdt) * 100_000_000n,
      txHash: `0xbench${index}`,
    });
    cookies.push(`predex_session=${registered.value.sessionToken}`);
  }
  const outcome = outcomes[0]!;
  const targets: Targets = {
    baseUrl: platform.addresses.gateway,
    credentials: created.value,
    marketId: String(marketId),
    outcomeId: String(outcome.outcomeId),
    yes: String(outcome.options[0]!.optionId),
    no: String(outcome.options[1]!.optionId),
    cookies,
  };
  process.stdout.write(`${JSON.stringify(targets)}\n`);
  const shutdown = async () => {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  // The parent asks for the server's CPU time around each phase; if the parent dies, stdin closes.
  const commands = createInterface({ input: process.stdin });
  commands.on("line", () => {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`${JSON.stringify({ cpuUs: user + system })}\n`);
  });
  commands.on("close", shutdown);
}

interface PhaseResult {
  readonly requests: number;
  readonly failures: number;
  readonly elapsedMs: number;
  readonly latenciesMs: number[];
  readonly serverCpuUs: number;
}

type Mode = "orders" | "assets";

async function measure(): Promise<void> {
  // BENCH_CPU_PROF=<dir> writes the server's CPU profile there (node --cpu-prof), for finding what limits it.
  const profile =
    process.env.BENCH_CPU_PROF === undefined
      ? []
      : ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`];
  const child = spawn(
    process.execPath,
    [...profile, "--import", "tsx", new URL(import.meta.url).pathname, "--serve"],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  try {
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const nextLine = async (): Promise<string> => {
      const next = await lines.next();
      if (next.done) throw new Error("the bench server exited early");
      return next.value;
    };
    const targets = JSON.parse(await nextLine()) as Targets;
    const serverCpuUs = async (): Promise<number> => {
      child.stdin!.write("cpu\n");
      return (JSON.parse(await nextLine()) as { cpuUs: number }).cpuUs;
    };
    const agent = new Agent({ keepAlive: true, maxSockets: Math.max(...concurrencies) });
    const measurePhase = async (mode: Mode, clients: number, durationMs: number): Promise<PhaseResult> => {
      const before = await serverCpuUs();
      const result = await runPhase(targets, agent, mode, clients, durationMs);
      return { ...result, serverCpuUs: (await serverCpuUs()) - before };
    };

    const rows: { clients: number; mode: Mode; summary: ReturnType<typeof summarize> }[] = [];
    for (const clients of concurrencies) {
      await measurePhase("orders", clients, warmupMs);
      rows.push({
        clients,
        mode: "orders",
        summary: summarize(await measurePhase("orders", clients, phaseMs)),
      });
    }
    await measurePhase("assets", baselineConcurrency, warmupMs);
    const baseline = summarize(await measurePhase("assets", baselineConcurrency, phaseMs));
    rows.push({ clients: baselineConcurrency, mode: "assets", summary: baseline });
    agent.destroy();

    console.log(
      "operation                     clients   req/s    p50 ms   p99 ms  server CPU µs/req  failures",
    );
    for (const { clients, mode, summary } of rows) {
      console.log(
        `${(mode === "orders" ? "POST /ordering/create-order" : "GET /account/assets").padEnd(29)} ${String(clients).padStart(7)} ${summary.perSecond.toFixed(0).padStart(7)} ${summary.p50Ms.toFixed(2).padStart(8)} ${summary.p99Ms.toFixed(2).padStart(8)} ${summary.cpuUsPerRequest.toFixed(1).padStart(18)} ${String(summary.failures).padStart(9)}`,
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
  } finally {
    child.kill("SIGTERM");
  }
}

async function runPhase(
  targets: Targets,
  agent: Agent,
  mode: Mode,
  clients: number,
  durationMs: number,
): Promise<Omit<PhaseResult, "serverCpuUs">> {
  const latenciesMs: number[] = [];
  let requests = 0;
  let failures = 0;
  const startedAt = performance.now();
  const deadline = startedAt + durationMs;
  const prices = [0.49, 0.5, 0.51];
  const worker = async (clientIndex: number) => {
    for (let sequence = 0; performance.now() < deadline && requests < requestsPerPhaseMax; sequence += 1) {
      const buysYes = sequence % 2 === 0;
      const cookie = targets.cookies[2 * clientIndex + (buysYes ? 0 : 1)]!;
      let signed: { path: string; headers: Record<string, string>; body?: Buffer };
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
        const request = signRequest(targets.credentials, {
          method: "POST",
          path: "/ordering/create-order",
          body,
          cookie,
        });
        signed = { path: request.pathAndQuery, headers: { ...request.headers, cookie }, body };
      } else {
        const request = signRequest(targets.credentials, { method: "GET", path: "/account/assets", cookie });
        signed = { path: request.pathAndQuery, headers: { ...request.headers, cookie } };
      }
      const sentAt = performance.now();
      const ok = await send(
        new URL(signed.path, targets.baseUrl),
        mode === "orders" ? "POST" : "GET",
        signed,
        agent,
      );
      latenciesMs.push(performance.now() - sentAt);
      requests += 1;
      if (!ok) failures += 1;
    }
  };
  await Promise.all(Array.from({ length: clients }, (_unused, index) => worker(index)));
  return { requests, failures, elapsedMs: performance.now() - startedAt, latenciesMs };
}

/** True when the answer is HTTP 200 with code 0. */
function send(
  url: URL,
  method: string,
  signed: { headers: Record<string, string>; body?: Buffer },
  agent: Agent,
): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers: signed.headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve(response.statusCode === 200 && text.startsWith('{"code":0'));
      });
    });
    outgoing.on("error", reject);
    outgoing.end(signed.body);
  });
}

function summarize(phase: PhaseResult) {
  const latencies = [...phase.latenciesMs].sort((a, b) => a - b);
  const percentile = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  return {
    perSecond: (phase.requests * 1000) / phase.elapsedMs,
    p50Ms: percentile(50),
    p99Ms: percentile(99),
    cpuUsPerRequest: phase.serverCpuUs / Math.max(1, phase.requests),
    failures: phase.failures,
  };
}

function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}
