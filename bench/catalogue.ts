// The catalogue under load: signed `GET /markets/list` and `GET /markets/{id}/detail` requests per
// second, p50/p99, with 1,000 open markets and 50 concurrent keep-alive clients, in one run.
//
// The platform runs in a child process (real startPlatform: gateway signatures verified, SQLite
// WAL, the catalogue's caches and click counting as in production) and the load generator here, so
// that on a 2-core machine each gets a core. List requests walk pages 1–10 (pageSize 10); detail
// requests pick a random market of the 1,000, and each one counts a click (written once a second).
// Every request's signature is verified in full by the server; the generator signs each distinct
// path once per second (the `date` header's resolution) to keep its own CPU out of the figures.
// The operations are measured in alternating phases so machine drift hits them alike. A third,
// signed `GET /user/{id}` (one SQLite read, a tiny envelope), shows the floor of any signed route
// on the same server in the same run.
// Loopback only, bounded by phase durations and a request cap. The last line of stdout is the JSON.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { loadConfig } from "../src/config.js";
import { formatGatewayDate } from "../src/gateway/string-to-sign.js";
import { type GatewayCredentials, signRequest } from "../src/sdk/signer.js";
import { startPlatform } from "../src/server.js";

const marketCount = 1_000;
const categoryCount = 10;
const clients = 50;
const listPagesWalked = 10;
const warmupMs = 1_000;
const phaseMs = Number(process.env.BENCH_PHASE_MS ?? 2_000);
const phasesPerOperation = 3;
const requestsPerPhaseMax = 1_000_000;

type Operation = "list" | "detail" | "user";

interface Targets {
  readonly baseUrl: string;
  readonly credentials: GatewayCredentials;
  readonly marketIds: string[];
  readonly userId: string;
}

if (process.argv.includes("--serve")) await serve();
else await measure();

/** Child process: one platform with a partner, categories and 1,000 open markets. */
async function serve(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-bench-catalogue-"));
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
  const partner = await deps.identity.lookupAppKey(created.value.appKey);
  const registered = await deps.identity.register(partner!, {
    merchantId: created.value.merchantId,
    userEmail: "bench@example.com",
    marchantUserId: "bench",
  });
  if (!registered.ok) throw new Error("could not register the bench user");
  const categoryIds: string[] = [];
  for (let index = 0; index < categoryCount; index += 1) {
    const category = await deps.categories.create({
      name: `Category ${index}`,
      names: { "zh-CN": `类别 ${index}` },
    });
    if (!category.ok) throw new Error("could not create a category");
    categoryIds.push(String(category.value.id));
  }
  const marketIds: string[] = [];
  const submissions = Array.from({ length: marketCount }, async (_unused, index) => {
    const market = await deps.engine.submit({
      type: "CreateMarket",
      title: `Bench market ${index}: will team ${index} win the final?`,
      modelType: "orderbook",
      outcomes: [{ name: `Team ${index}`, options: null }],
      tickSize: null,
      minOrderSize: null,
      makerFeeBps: 10,
      takerFeeBps: 20,
      marketOrderPriceProtection: null,
      limitOrderPriceProtection: null,
      startTimeMs: Date.now() - 60_000,
      endTimeMs: Date.now() + 86_400_000,
      creatorId: null,
      details: {
        categoryId: categoryIds[index % categoryCount]!,
        description: `Market number ${index} of the catalogue benchmark`,
        tags: `bench,team${index}`,
        outcomes: [],
      },
    });
    if (!market.ok || market.events[0]?.type !== "MarketCreated")
      throw new Error("could not create a market");
    const marketId = market.events[0].marketId;
    const opened = await deps.engine.submit({ type: "OpenMarket", marketId });
    if (!opened.ok) throw new Error("could not open a market");
    marketIds.push(String(marketId));
  });
  await Promise.all(submissions);
  const targets: Targets = {
    baseUrl: platform.addresses.gateway,
    credentials: created.value,
    marketIds,
    userId: String(registered.value.user.userId),
  };
  process.stdout.write(`${JSON.stringify(targets)}\n`);
  const shutdown = async () => {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
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

async function measure(): Promise<void> {
  const child = spawn(process.execPath, ["--import", "tsx", new URL(import.meta.url).pathname, "--serve"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
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
    const agent = new Agent({ keepAlive: true, maxSockets: clients });
    const signer = createPathSigner(targets.credentials);
    const measurePhase = async (operation: Operation, durationMs: number): Promise<PhaseResult> => {
      const before = await serverCpuUs();
      const result = await runPhase(targets, signer, agent, operation, durationMs);
      return { ...result, serverCpuUs: (await serverCpuUs()) - before };
    };

    await measurePhase("list", warmupMs);
    await measurePhase("detail", warmupMs);
    await measurePhase("user", warmupMs);
    const results: Record<Operation, PhaseResult[]> = { list: [], detail: [], user: [] };
    for (let round = 0; round < phasesPerOperation; round += 1) {
      results.list.push(await measurePhase("list", phaseMs));
      results.detail.push(await measurePhase("detail", phaseMs));
      results.user.push(await measurePhase("user", phaseMs));
    }
    agent.destroy();

    const list = summarize(results.list);
    const detail = summarize(results.detail);
    const user = summarize(results.user);
    const failures = list.failures + detail.failures + user.failures;
    if (failures > 0) throw new Error(`${failures} requests did not answer 200 / code 0`);
    console.log("operation                      clients   req/s    p50 ms   p99 ms  server CPU µs/req");
    for (const [name, summary] of [
      ["GET /markets/list", list],
      ["GET /markets/{id}/detail", detail],
      ["GET /user/{id} (floor)", user],
    ] as const) {
      console.log(
        `${name.padEnd(30)} ${String(clients).padStart(7)} ${summary.perSecond.toFixed(0).padStart(7)} ${summary.p50Ms.toFixed(2).padStart(8)} ${summary.p99Ms.toFixed(2).padStart(8)} ${summary.cpuUsPerRequest.toFixed(1).padStart(18)}`,
      );
    }
    console.log(
      JSON.stringify({
        bench: "catalogue",
        unit: "requests/s",
        value: Math.round(list.perSecond),
        baseline: { name: "detail", value: Math.round(detail.perSecond) },
        ratio: round(list.perSecond / detail.perSecond, 3),
        p50_ms: round(list.p50Ms, 3),
        p99_ms: round(list.p99Ms, 3),
        detail_p50_ms: round(detail.p50Ms, 3),
        detail_p99_ms: round(detail.p99Ms, 3),
        server_cpu_us_per_list: round(list.cpuUsPerRequest, 1),
        server_cpu_us_per_detail: round(detail.cpuUsPerRequest, 1),
        signed_floor: {
          name: "GET /user/{id}",
          value: Math.round(user.perSecond),
          server_cpu_us: round(user.cpuUsPerRequest, 1),
        },
        markets: marketCount,
        clients,
      }),
    );
  } finally {
    child.kill("SIGTERM");
  }
}

type PathSigner = (
  path: string,
  query?: Record<string, string>,
) => { path: string; headers: Record<string, string> };

/** Signs each distinct request once per second (the date header's resolution). */
function createPathSigner(credentials: GatewayCredentials): PathSigner {
  let signedFor = "";
  const cache = new Map<string, { path: string; headers: Record<string, string> }>();
  return (path, query) => {
    const date = formatGatewayDate(new Date());
    if (date !== signedFor) {
      signedFor = date;
      cache.clear();
    }
    const key = query === undefined ? path : `${path}?${new URLSearchParams(query)}`;
    let signed = cache.get(key);
    if (signed === undefined) {
      const request = signRequest(credentials, {
        method: "GET",
        path,
        ...(query === undefined ? {} : { query }),
      });
      signed = { path: request.pathAndQuery, headers: request.headers };
      cache.set(key, signed);
    }
    return signed;
  };
}

async function runPhase(
  targets: Targets,
  signer: PathSigner,
  agent: Agent,
  operation: Operation,
  durationMs: number,
): Promise<Omit<PhaseResult, "serverCpuUs">> {
  const latenciesMs: number[] = [];
  let requests = 0;
  let failures = 0;
  const startedAt = performance.now();
  const deadline = startedAt + durationMs;
  const worker = async (clientIndex: number) => {
    for (
      let sequence = clientIndex;
      performance.now() < deadline && requests < requestsPerPhaseMax;
      sequence += 1
    ) {
      const signed =
        operation === "list"
          ? signer("/markets/list", { page: String(1 + (sequence % listPagesWalked)), pageSize: "10" })
          : operation === "detail"
            ? signer(
                `/markets/${targets.marketIds[Math.floor(Math.random() * targets.marketIds.length)]}/detail`,
              )
            : signer(`/user/${targets.userId}`);
      const sentAt = performance.now();
      const ok = await get(new URL(signed.path, targets.baseUrl), signed.headers, agent);
      latenciesMs.push(performance.now() - sentAt);
      requests += 1;
      if (!ok) failures += 1;
    }
  };
  await Promise.all(Array.from({ length: clients }, (_unused, index) => worker(index)));
  return { requests, failures, elapsedMs: performance.now() - startedAt, latenciesMs };
}

/** True when the answer is HTTP 200 with code 0. */
function get(url: URL, headers: Record<string, string>, agent: Agent): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: "GET", headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const head = Buffer.concat(chunks).subarray(0, 16).toString("utf8");
        resolve(response.statusCode === 200 && head.startsWith('{"code":0'));
      });
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

function summarize(phases: PhaseResult[]) {
  const requests = phases.reduce((sum, phase) => sum + phase.requests, 0);
  const elapsedMs = phases.reduce((sum, phase) => sum + phase.elapsedMs, 0);
  const latencies = phases.flatMap((phase) => phase.latenciesMs).sort((a, b) => a - b);
  const percentile = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  return {
    perSecond: (requests * 1000) / elapsedMs,
    p50Ms: percentile(50),
    p99Ms: percentile(99),
    cpuUsPerRequest: phases.reduce((sum, phase) => sum + phase.serverCpuUs, 0) / Math.max(1, requests),
    failures: phases.reduce((sum, phase) => sum + phase.failures, 0),
  };
}

function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}
