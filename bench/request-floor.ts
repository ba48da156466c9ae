// The request floor (issue #31): what a request costs the server before any route's own work, beside
// what predex's signed GET costs, in server CPU µs per request. Four servers, each in a child process
// of its own so that each one's CPU time is its own, measured in alternation in one run:
//
//   node:http       bare `http.createServer` answering a fixed envelope: the HTTP stack's floor;
//   fastify         Fastify with that one GET route (response schema, no hooks, logger off);
//   get (no nonce)  predex's real signed `GET /account/assets`: a platform's gateway listener on
//                   SQLite, a partner and session users as a partner's would be, signed by the
//                   SDK's signer without `x-ca-nonce`;
//   get (nonce)     the same, signed with a fresh `x-ca-nonce` as the SDK signs by default.
//
// The fixed envelope of the first two is byte for byte what predex answers for the bench's users
// (`{"code":0,"message":"ok","data":[{…USDT…}]}`), and all four receive the same kind of request: the
// same path, cookie and signed headers (with a nonce), so header parsing costs all of them alike.
// The load generator is bench/orders.ts's (bench/lib/load.ts): 64 keep-alive clients, each request
// signed in `prepare`, outside the timed span. The server's CPU is read from its process
// (process.cpuUsage) around each phase and divided by the requests it answered.
//
// Rounds: each round runs one phase per server, the order rotating from round to round so that no
// server always follows the same one. BENCH_PHASE_MS (default 3,000) and BENCH_ROUNDS (default 4)
// bound the run (≈ 90 s with the defaults on a loaded 2-core machine, start-up included); each
// phase also stops at 200,000 requests. The nonce server has a partner per phase, so
// no phase nears the per-partner cap of live nonces (250,000). Loopback only. A table comes first;
// the last line of stdout is the JSON.

import { Agent, createServer } from "node:http";
import { loadavg } from "node:os";
import Fastify from "fastify";
import { Type } from "typebox";
import { ok, partnerResponses } from "../src/contract/partner/envelope.js";
import { Asset } from "../src/contract/partner/trading.js";
import { formatAtoms } from "../src/core/money.js";
import { type GatewayCredentials, signRequest } from "../src/sdk/signer.js";
import { type ClientLoad, measurePhase, type PhaseResult, sendExpectingCodeZero } from "./lib/load.js";
import { createBenchPartner, registerBenchUser } from "./lib/platform-fixtures.js";
import {
  type BenchServer,
  isServerProcess,
  serveTargets,
  startBenchPlatform,
  withBenchServer,
} from "./lib/server-process.js";
import { type PhaseSummary, round, summarizePhases } from "./lib/summary.js";

const serverKinds = ["node:http", "fastify", "get (no nonce)", "get (nonce)"] as const;
type ServerKind = (typeof serverKinds)[number];

const clients = 64;
/** Per server before the rounds: on a loaded machine a 1 s warm-up left the first round dearer. */
const warmupMs = 2_000;
const phaseMs = Number(process.env.BENCH_PHASE_MS ?? 3_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const requestsPerPhaseMax = 200_000;
/** Session users per partner; client i signs in as user i mod this. */
const usersPerPartner = 16;
const depositPerUserUsdt = 1_000n;
const path = "/account/assets";
/** Which of the four servers a child process is (set by the parent). */
const serverKindVariable = "BENCH_FLOOR_SERVER";

/** A partner's credentials and its users' session cookies. */
interface Signer {
  readonly credentials: GatewayCredentials;
  readonly cookies: readonly string[];
}

interface Targets {
  readonly baseUrl: string;
  /** One per phase, the warm-up's first; a single one where the server checks no nonce. */
  readonly signers: readonly Signer[];
}

/** What predex answers a bench user on GET /account/assets; the floor servers answer it too. */
const assetsEnvelope = ok([
  {
    coinId: "2",
    symbol: "USDT",
    available: formatAtoms(depositPerUserUsdt * 100_000_000n),
    frozen: "0",
    total: formatAtoms(depositPerUserUsdt * 100_000_000n),
  },
]);

/** The floor servers verify nothing: the parent signs their requests with these, as a partner would. */
const unverifiedCredentials: GatewayCredentials = {
  appKey: "floor-app-key",
  appSecret: "floor-app-secret",
  apiKey: "floor-api-key",
};

if (isServerProcess()) await serve(process.env[serverKindVariable] as ServerKind);
else await measure();

/** Child process: one of the four servers on a free loopback port. */
async function serve(kind: ServerKind): Promise<void> {
  switch (kind) {
    case "node:http":
      return serveBareHttp();
    case "fastify":
      return serveFastify();
    case "get (no nonce)":
      return servePredex(1);
    case "get (nonce)":
      return servePredex(rounds + 1);
    default:
      throw new Error(`${serverKindVariable} names no server of this bench: ${String(kind)}`);
  }
}

async function serveBareHttp(): Promise<void> {
  const body = Buffer.from(JSON.stringify(assetsEnvelope));
  const server = createServer((_request, response) => {
    response.writeHead(200, {
      "content-type": "application/json; charset=utf-8",
      "content-length": body.length,
    });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  serveTargets(floorTargets(`http://127.0.0.1:${address.port}`), async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
}

async function serveFastify(): Promise<void> {
  const app = Fastify({ logger: false });
  // predex's own response schema for the route, so that serialisation costs what it costs there.
  app.get(path, { schema: { response: partnerResponses(Type.Array(Asset)) } }, async () => assetsEnvelope);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  serveTargets(floorTargets(`http://127.0.0.1:${address.port}`), () => app.close());
}

function floorTargets(baseUrl: string): Targets {
  const cookies = Array.from(
    { length: usersPerPartner },
    (_unused, index) => `predex_session=floor-${index}`,
  );
  return { baseUrl, signers: [{ credentials: unverifiedCredentials, cookies }] };
}

/** A real platform (gateway verifying signatures, SQLite, metrics on), `partners` partners with funded users. */
async function servePredex(partners: number): Promise<void> {
  const bench = await startBenchPlatform("predex-bench-floor-");
  const { deps } = bench.platform;
  const signers: Signer[] = [];
  for (let partnerIndex = 0; partnerIndex < partners; partnerIndex += 1) {
    const partner = await createBenchPartner(deps, `floor-${partnerIndex}`);
    const cookies: string[] = [];
    for (let userIndex = 0; userIndex < usersPerPartner; userIndex += 1) {
      const name = `floor-${partnerIndex}-${userIndex}`;
      const user = await registerBenchUser(deps, partner, {
        userEmail: `${name}@example.com`,
        marchantUserId: name,
      });
      const deposited = await deps.engine.submit({
        type: "Deposit",
        userId: user.userId,
        amount: depositPerUserUsdt * 100_000_000n,
        txHash: `0xfloor${partnerIndex}x${userIndex}`,
      });
      if (!deposited.ok) throw new Error(`could not fund the bench user ${name}`);
      cookies.push(`predex_session=${user.sessionToken}`);
    }
    signers.push({ credentials: partner.credentials, cookies });
  }
  serveTargets({ baseUrl: bench.platform.addresses.gateway, signers } satisfies Targets, bench.close);
}

/** Parent process: starts the four servers, then measures them in rotating alternation. */
async function measure(): Promise<void> {
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("BENCH_ROUNDS is a whole number ≥ 1");
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  try {
    await withServers(async (servers) => {
      const phaseOf = (kind: ServerKind, signer: Signer, durationMs: number) =>
        measurePhase(
          servers.get(kind)!,
          signedGetLoad(kind, servers.get(kind)!.targets.baseUrl, signer, agent, durationMs),
        );
      const signerFor = (kind: ServerKind, phase: number): Signer => {
        const { signers } = servers.get(kind)!.targets;
        return signers[Math.min(phase, signers.length - 1)]!;
      };
      for (const kind of serverKinds) await phaseOf(kind, signerFor(kind, 0), warmupMs);
      const results = new Map<ServerKind, PhaseResult[]>(serverKinds.map((kind) => [kind, []]));
      for (let roundIndex = 0; roundIndex < rounds; roundIndex += 1) {
        for (let step = 0; step < serverKinds.length; step += 1) {
          const kind = serverKinds[(roundIndex + step) % serverKinds.length]!;
          results.get(kind)!.push(await phaseOf(kind, signerFor(kind, roundIndex + 1), phaseMs));
        }
      }
      report(results);
    });
  } finally {
    agent.destroy();
  }
}

/**
 * Starts a child process per server kind, all at once (each takes seconds to load and set up), lets
 * `use` measure them, and stops them all however that ends.
 */
async function withServers(
  use: (servers: ReadonlyMap<ServerKind, BenchServer<Targets>>) => Promise<void>,
): Promise<void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const ready: Promise<BenchServer<Targets>>[] = [];
  const running = serverKinds.map((kind) => {
    let markReady!: (server: BenchServer<Targets>) => void;
    ready.push(
      new Promise((resolve) => {
        markReady = resolve;
      }),
    );
    return withBenchServer<Targets>(
      import.meta.url,
      [],
      async (server) => {
        markReady(server);
        await released;
      },
      { env: { [serverKindVariable]: kind } },
    );
  });
  try {
    const servers = await Promise.race([
      Promise.all(ready),
      // Settles first only if a server stopped (or failed to start) before all were ready.
      Promise.all(running).then(() => {
        throw new Error("a bench server stopped before the others were ready");
      }),
    ]);
    await use(new Map(serverKinds.map((kind, index) => [kind, servers[index]!])));
  } finally {
    release();
    await Promise.allSettled(running);
  }
}

/**
 * `clients` clients sending the signed GET, each request signed afresh with a nonce as the SDK
 * signs by default, except on the server that is measured without one. The answer must be HTTP 200
 * with code 0, or the request counts as a failure.
 */
function signedGetLoad(
  kind: ServerKind,
  baseUrl: string,
  signer: Signer,
  agent: Agent,
  durationMs: number,
): ClientLoad<Record<string, string>> {
  const url = new URL(path, baseUrl);
  return {
    clients,
    durationMs,
    requestsMax: requestsPerPhaseMax,
    prepare: (clientIndex) => {
      const cookie = signer.cookies[clientIndex % signer.cookies.length]!;
      const signed = signRequest(signer.credentials, {
        method: "GET",
        path,
        cookie,
        ...(kind === "get (no nonce)" ? { nonce: false as const } : {}),
      });
      return { ...signed.headers, cookie };
    },
    send: (headers) => sendExpectingCodeZero(url, { method: "GET", headers }, agent),
  };
}

function report(results: ReadonlyMap<ServerKind, readonly PhaseResult[]>): void {
  const summaries = new Map<ServerKind, PhaseSummary>(
    serverKinds.map((kind) => [kind, summarizePhases(results.get(kind)!)]),
  );
  console.log(
    `server           req/s   p50 ms   p99 ms  server CPU µs/req  client CPU µs/req  failures  µs/req by round (${phaseMs} ms phases)`,
  );
  for (const kind of serverKinds) {
    const summary = summaries.get(kind)!;
    const byRound = results
      .get(kind)!
      .map(
        (phase) =>
          `${(phase.serverCpuUs / Math.max(1, phase.requests)).toFixed(1)} (${Math.round((phase.requests * 1000) / phase.elapsedMs)}/s)`,
      )
      .join(", ");
    console.log(
      `${kind.padEnd(14)} ${summary.perSecond.toFixed(0).padStart(7)} ${summary.p50Ms.toFixed(2).padStart(8)} ${summary.p99Ms.toFixed(2).padStart(8)} ${summary.cpuUsPerRequest.toFixed(1).padStart(18)} ${summary.clientCpuUsPerRequest.toFixed(1).padStart(18)} ${String(summary.failures).padStart(9)}  ${byRound}`,
    );
  }
  const failures = [...summaries.values()].reduce((sum, summary) => sum + summary.failures, 0);
  if (failures > 0) throw new Error(`${failures} requests did not answer 200 / code 0`);
  const get = summaries.get("get (nonce)")!;
  const http = summaries.get("node:http")!;
  const fastify = summaries.get("fastify")!;
  console.log(
    JSON.stringify({
      bench: "request-floor",
      unit: "requests/s",
      value: Math.round(get.perSecond),
      baseline: { name: "node:http", value: Math.round(http.perSecond) },
      ratio: round(get.perSecond / http.perSecond, 3),
      p50_ms: round(get.p50Ms, 3),
      p99_ms: round(get.p99Ms, 3),
      server_cpu_us_per_request: round(get.cpuUsPerRequest, 1),
      baseline_server_cpu_us_per_request: round(http.cpuUsPerRequest, 1),
      // What the signed GET spends above Fastify's own floor: the gateway's and the route's work.
      above_fastify_us_per_request: round(get.cpuUsPerRequest - fastify.cpuUsPerRequest, 1),
      servers: Object.fromEntries(
        serverKinds.map((kind) => {
          const summary = summaries.get(kind)!;
          return [
            kind,
            {
              requests_per_s: Math.round(summary.perSecond),
              server_cpu_us_per_request: round(summary.cpuUsPerRequest, 1),
              // The middle round's figure: one round starved by the machine moves it little.
              median_round_server_cpu_us_per_request: round(medianRoundCpuUs(results.get(kind)!), 1),
              client_cpu_us_per_request: round(summary.clientCpuUsPerRequest, 1),
              p50_ms: round(summary.p50Ms, 3),
              p99_ms: round(summary.p99Ms, 3),
            },
          ];
        }),
      ),
      clients,
      phase_ms: phaseMs,
      rounds,
      // The machine's 1-minute load when the run ended: figures from a loaded machine say so.
      load_1m: round(loadavg()[0]!, 2),
    }),
  );
}

/** The median over phases of the server's CPU µs per request (the upper middle of an even count). */
function medianRoundCpuUs(phases: readonly PhaseResult[]): number {
  const perRound = phases
    .map((phase) => phase.serverCpuUs / Math.max(1, phase.requests))
    .sort((a, b) => a - b);
  return perRound[Math.floor(perRound.length / 2)] ?? 0;
}
