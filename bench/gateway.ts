// What the signed gateway costs: throughput and latency of a small signed GET (`GET /user/{id}`)
// against the same route with signature verification switched off, in one run.
//
// The servers run in a child process and the load generator here, so that on a 2-core machine
// each gets a core instead of sharing one event loop. Both servers live in the same child and
// are measured in alternating phases (unsigned, signed, unsigned, signed) so that drift in the
// machine affects both alike. BENCH_SYMMETRIC=1 turns verification off on both servers: the
// two figures should then agree, which checks the method itself. Everything is loopback-only and bounded by phase durations and a
// request cap. The last line of stdout is the JSON result.

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

const connections = 16;
const warmupMs = 1_000;
const phaseMs = 2_000;
const phasesPerMode = 4;
const requestsPerPhaseMax = 2_000_000;

interface Target {
  readonly baseUrl: string;
  readonly credentials: GatewayCredentials;
  readonly path: string;
}

interface Targets {
  readonly signed: Target;
  readonly unsigned: Target;
}

if (process.argv.includes("--serve")) await serve();
else await measure();

/** Child process: two platforms on loopback, one verifying signatures and one not. */
async function serve(): Promise<void> {
  const dirs: string[] = [];
  const start = async (
    verifySignatures: boolean,
  ): Promise<{ target: Target; close: () => Promise<void> }> => {
    const dataDir = mkdtempSync(join(tmpdir(), "predex-bench-"));
    dirs.push(dataDir);
    const config = loadConfig({
      PREDEX_DATA_DIR: dataDir,
      PREDEX_HOST: "127.0.0.1",
      PREDEX_PORT: "0",
      PREDEX_PUBLIC_PORT: "0",
      PREDEX_LEGACY_PORT: "0",
      PREDEX_ADMIN_PORT: "0",
      PREDEX_LOG_LEVEL: "silent",
    });
    const platform = await startPlatform(config, { verifySignatures });
    const created = await platform.deps.identity.createPartner({ name: "bench" });
    if (!created.ok) throw new Error("could not create the bench partner");
    const partner = await platform.deps.identity.lookupAppKey(created.value.appKey);
    const registered = await platform.deps.identity.register(partner!, {
      merchantId: created.value.merchantId,
      userEmail: "bench@example.com",
      marchantUserId: "bench",
    });
    if (!registered.ok) throw new Error("could not register the bench user");
    return {
      target: {
        baseUrl: platform.addresses.gateway,
        credentials: created.value,
        path: `/user/${registered.value.user.userId}`,
      },
      close: () => platform.close(),
    };
  };
  const signed = await start(process.env.BENCH_SYMMETRIC !== "1");
  const unsigned = await start(false);
  const targets: Targets = { signed: signed.target, unsigned: unsigned.target };
  process.stdout.write(`${JSON.stringify(targets)}\n`);
  const shutdown = async () => {
    await Promise.allSettled([signed.close(), unsigned.close()]);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
  // The parent asks for the server's CPU time around each phase: on a shared 2-core machine CPU
  // per request is steadier than throughput. If the parent dies, stdin closes: never outlive it.
  const commands = createInterface({ input: process.stdin });
  commands.on("line", () => {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`${JSON.stringify({ cpuUs: user + system })}\n`);
  });
  commands.on("close", shutdown);
}

interface PhaseResult {
  readonly serverCpuUs: number;
  readonly requests: number;
  readonly failures: number;
  readonly elapsedMs: number;
  readonly latenciesMs: number[];
}

/** Parent process: the load generator. */
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
    const firstLine = await nextLine();
    const serverCpuUs = async (): Promise<number> => {
      child.stdin!.write("cpu\n");
      return (JSON.parse(await nextLine()) as { cpuUs: number }).cpuUs;
    };
    const targets = JSON.parse(firstLine) as Targets;
    const agent = new Agent({ keepAlive: true, maxSockets: connections });

    const measurePhase = async (target: Target, durationMs: number): Promise<PhaseResult> => {
      const cpuBeforeUs = await serverCpuUs();
      const result = await runPhase(target, agent, durationMs);
      return { ...result, serverCpuUs: (await serverCpuUs()) - cpuBeforeUs };
    };
    await measurePhase(targets.unsigned, warmupMs);
    await measurePhase(targets.signed, warmupMs);
    const results: Record<"signed" | "unsigned", PhaseResult[]> = { signed: [], unsigned: [] };
    for (let round = 0; round < phasesPerMode; round += 1) {
      results.unsigned.push(await measurePhase(targets.unsigned, phaseMs));
      results.signed.push(await measurePhase(targets.signed, phaseMs));
    }
    agent.destroy();

    const signed = summarize(results.signed);
    const unsigned = summarize(results.unsigned);
    if (signed.failures + unsigned.failures > 0) {
      throw new Error(`${signed.failures + unsigned.failures} requests did not answer 200`);
    }
    process.stderr.write(
      `unsigned: ${unsigned.requestsPerSecond.toFixed(0)} req/s (p50 ${unsigned.p50Ms.toFixed(2)} ms, p99 ${unsigned.p99Ms.toFixed(2)} ms)\n` +
        `signed:   ${signed.requestsPerSecond.toFixed(0)} req/s (p50 ${signed.p50Ms.toFixed(2)} ms, p99 ${signed.p99Ms.toFixed(2)} ms)\n` +
        `server CPU per request: unsigned ${unsigned.serverCpuUsPerRequest.toFixed(1)} us, signed ${signed.serverCpuUsPerRequest.toFixed(1)} us\n` +
        `gateway cost: ${((1 - signed.requestsPerSecond / unsigned.requestsPerSecond) * 100).toFixed(1)}% of throughput, ` +
        `${((1 - unsigned.serverCpuUsPerRequest / signed.serverCpuUsPerRequest) * 100).toFixed(1)}% of server CPU\n`,
    );
    console.log(
      JSON.stringify({
        bench: "gateway",
        unit: "requests/s",
        value: Math.round(signed.requestsPerSecond),
        baseline: { name: "unsigned", value: Math.round(unsigned.requestsPerSecond) },
        ratio: round(signed.requestsPerSecond / unsigned.requestsPerSecond, 3),
        p50_ms: round(signed.p50Ms, 3),
        p99_ms: round(signed.p99Ms, 3),
        baseline_p99_ms: round(unsigned.p99Ms, 3),
        server_cpu_us_per_request: round(signed.serverCpuUsPerRequest, 1),
        baseline_server_cpu_us_per_request: round(unsigned.serverCpuUsPerRequest, 1),
        cpu_ratio: round(unsigned.serverCpuUsPerRequest / signed.serverCpuUsPerRequest, 3),
        connections,
      }),
    );
  } finally {
    child.kill("SIGTERM");
  }
}

async function runPhase(
  target: Target,
  agent: Agent,
  durationMs: number,
): Promise<Omit<PhaseResult, "serverCpuUs">> {
  const url = new URL(target.path, target.baseUrl);
  // Signing once per second (the date's resolution) keeps the load generator's own CPU out of the
  // measurement; the server still verifies every request in full.
  let signedFor = "";
  let headers: Record<string, string> = {};
  const currentHeaders = () => {
    const date = formatGatewayDate(new Date());
    if (date !== signedFor) {
      signedFor = date;
      headers = signRequest(target.credentials, { method: "GET", path: target.path }).headers;
    }
    return headers;
  };
  const latenciesMs: number[] = [];
  let requests = 0;
  let failures = 0;
  const startedAt = performance.now();
  const deadline = startedAt + durationMs;
  const worker = async () => {
    while (performance.now() < deadline && requests < requestsPerPhaseMax) {
      const sentAt = performance.now();
      const status = await get(url, currentHeaders(), agent);
      latenciesMs.push(performance.now() - sentAt);
      requests += 1;
      if (status !== 200) failures += 1;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  return { requests, failures, elapsedMs: performance.now() - startedAt, latenciesMs };
}

function get(url: URL, headers: Record<string, string>, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: "GET", headers, agent }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
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
    requestsPerSecond: (requests * 1000) / elapsedMs,
    serverCpuUsPerRequest: phases.reduce((sum, phase) => sum + phase.serverCpuUs, 0) / requests,
    failures: phases.reduce((sum, phase) => sum + phase.failures, 0),
    p50Ms: percentile(50),
    p99Ms: percentile(99),
  };
}

function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}
