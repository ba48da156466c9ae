// What the signed gateway costs: throughput and latency of a small signed GET (`GET /user/{id}`)
// against the same route with signature verification switched off, in one run; and beside them
// the same signed GET signing a fresh `x-ca-nonce` (the SDK's default since issue #27), which the
// server records durably, per partner, before it answers (the `nonce_*` figures).
//
// The servers run in a child process and the load generator here, so that on a 2-core machine
// each gets a core instead of sharing one event loop. Both servers live in the same child and
// are measured in alternating phases (unsigned, signed, unsigned, signed) so that drift in the
// machine affects both alike. BENCH_SYMMETRIC=1 turns verification off on both servers: the
// two figures should then agree, which checks the method itself. Everything is loopback-only and bounded by phase durations and a
// request cap; BENCH_PHASE_MS shortens the phases for a quick check. The last line of stdout is the JSON result.
//
// The three are measured in alternating phases (unsigned, signed, signed with a nonce). The nonce
// phases sign every request afresh in `prepare` (outside the timed span, on the load generator's
// CPU) and each phase uses a partner of its own, so no phase meets the per-partner cap of live
// nonces (250,000) however fast the machine.
//
// BENCH_METRICS=compare measures what the metrics cost instead: the signed GET against two server
// processes, one built with metrics (as production runs) and one without, in alternating phases;
// the JSON line's baseline is then the server without metrics.

import { Agent } from "node:http";
import { formatGatewayDate } from "../src/contract/signing/string-to-sign.js";
import { type GatewayCredentials, signRequest } from "../src/sdk/signer.js";
import { measurePhase, type PhaseResult, sendForStatus } from "./lib/load.js";
import { metricsHookNsPerResponse } from "./lib/metrics-hook-cost.js";
import { createBenchPartner, registerBenchUser } from "./lib/platform-fixtures.js";
import {
  type BenchServer,
  comparesMetrics,
  cpuProfileFlags,
  isServerProcess,
  serveTargets,
  startBenchPlatform,
  withBenchServer,
} from "./lib/server-process.js";
import { round, summarizePhases } from "./lib/summary.js";
import { startUnsignedGateway } from "./lib/unsigned-gateway.js";

const connections = 16;
const warmupMs = 1_000;
const phaseMs = Number(process.env.BENCH_PHASE_MS ?? 2_000);
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
  /** On the signed platform: a partner per nonce phase (the warm-up's first). */
  readonly nonces: readonly Target[];
}

if (isServerProcess()) await serve();
else if (comparesMetrics()) await measureMetricsCost();
else await measure();

/** Child process: two platforms on loopback, one verifying signatures and one not. */
async function serve(): Promise<void> {
  const start = async (verifySignatures: boolean, noncePartners: number) => {
    const bench = await startBenchPlatform("predex-bench-");
    const { deps } = bench.platform;
    // The baseline is the same app over the same platform without the signature check (bench only).
    const unsignedGateway = verifySignatures ? undefined : await startUnsignedGateway(bench.platform);
    const baseUrl = unsignedGateway?.baseUrl ?? bench.platform.addresses.gateway;
    const targetOf = async (partnerName: string): Promise<Target> => {
      const partner = await createBenchPartner(deps, partnerName);
      const user = await registerBenchUser(deps, partner, {
        userEmail: `${partnerName}@example.com`,
        marchantUserId: partnerName,
      });
      return { baseUrl, credentials: partner.credentials, path: `/user/${user.userId}` };
    };
    const target = await targetOf("bench");
    const nonces: Target[] = [];
    for (let index = 0; index < noncePartners; index += 1)
      nonces.push(await targetOf(`bench-nonces-${index}`));
    return {
      target,
      nonces,
      close: async () => {
        await unsignedGateway?.close();
        await bench.close();
      },
    };
  };
  // Comparing metrics needs the signed platform only, and no nonce phases.
  const signed = await start(process.env.BENCH_SYMMETRIC !== "1", comparesMetrics() ? 0 : phasesPerMode + 1);
  const unsigned = comparesMetrics() ? signed : await start(false, 0);
  const targets: Targets = { signed: signed.target, unsigned: unsigned.target, nonces: signed.nonces };
  serveTargets(targets, () =>
    Promise.allSettled([...new Set([signed, unsigned])].map((server) => server.close())),
  );
}

/** Parent process: the load generator. */
async function measure(): Promise<void> {
  await withBenchServer<Targets>(import.meta.url, cpuProfileFlags(), async (server) => {
    const { targets } = server;
    const agent = new Agent({ keepAlive: true, maxSockets: connections });
    const measureTarget = (target: Target, durationMs: number) =>
      measurePhase(server, signedGetLoad(target, agent, durationMs));
    const measureNonces = (target: Target, durationMs: number) =>
      measurePhase(server, nonceSignedGetLoad(target, agent, durationMs));
    await measureTarget(targets.unsigned, warmupMs);
    await measureTarget(targets.signed, warmupMs);
    await measureNonces(targets.nonces[0]!, warmupMs);
    const results: Record<"signed" | "unsigned" | "nonces", PhaseResult[]> = {
      signed: [],
      unsigned: [],
      nonces: [],
    };
    for (let pair = 0; pair < phasesPerMode; pair += 1) {
      results.unsigned.push(await measureTarget(targets.unsigned, phaseMs));
      results.signed.push(await measureTarget(targets.signed, phaseMs));
      results.nonces.push(await measureNonces(targets.nonces[pair + 1]!, phaseMs));
    }
    agent.destroy();

    const signed = summarizePhases(results.signed);
    const unsigned = summarizePhases(results.unsigned);
    const nonces = summarizePhases(results.nonces);
    const failures = signed.failures + unsigned.failures + nonces.failures;
    if (failures > 0) throw new Error(`${failures} requests did not answer 200`);
    process.stderr.write(
      `unsigned: ${unsigned.perSecond.toFixed(0)} req/s (p50 ${unsigned.p50Ms.toFixed(2)} ms, p99 ${unsigned.p99Ms.toFixed(2)} ms)\n` +
        `signed:   ${signed.perSecond.toFixed(0)} req/s (p50 ${signed.p50Ms.toFixed(2)} ms, p99 ${signed.p99Ms.toFixed(2)} ms)\n` +
        `signed with a nonce: ${nonces.perSecond.toFixed(0)} req/s (p50 ${nonces.p50Ms.toFixed(2)} ms, p99 ${nonces.p99Ms.toFixed(2)} ms)\n` +
        `server CPU per request: unsigned ${unsigned.cpuUsPerRequest.toFixed(1)} us, signed ${signed.cpuUsPerRequest.toFixed(1)} us, ` +
        `with a nonce ${nonces.cpuUsPerRequest.toFixed(1)} us\n` +
        `gateway cost: ${((1 - signed.perSecond / unsigned.perSecond) * 100).toFixed(1)}% of throughput, ` +
        `${((1 - unsigned.cpuUsPerRequest / signed.cpuUsPerRequest) * 100).toFixed(1)}% of server CPU\n` +
        `nonce cost (vs signed): ${((1 - nonces.perSecond / signed.perSecond) * 100).toFixed(1)}% of throughput, ` +
        `${(nonces.cpuUsPerRequest - signed.cpuUsPerRequest).toFixed(1)} us of server CPU per request\n`,
    );
    console.log(
      JSON.stringify({
        bench: "gateway",
        unit: "requests/s",
        value: Math.round(signed.perSecond),
        baseline: { name: "unsigned", value: Math.round(unsigned.perSecond) },
        ratio: round(signed.perSecond / unsigned.perSecond, 3),
        p50_ms: round(signed.p50Ms, 3),
        p99_ms: round(signed.p99Ms, 3),
        baseline_p99_ms: round(unsigned.p99Ms, 3),
        server_cpu_us_per_request: round(signed.cpuUsPerRequest, 1),
        baseline_server_cpu_us_per_request: round(unsigned.cpuUsPerRequest, 1),
        cpu_ratio: round(unsigned.cpuUsPerRequest / signed.cpuUsPerRequest, 3),
        // The same signed GET signing a fresh x-ca-nonce, against the signed GET without one.
        nonce_value: Math.round(nonces.perSecond),
        nonce_ratio: round(nonces.perSecond / signed.perSecond, 3),
        nonce_p50_ms: round(nonces.p50Ms, 3),
        nonce_p99_ms: round(nonces.p99Ms, 3),
        nonce_server_cpu_us_per_request: round(nonces.cpuUsPerRequest, 1),
        nonce_cpu_ratio: round(signed.cpuUsPerRequest / nonces.cpuUsPerRequest, 3),
        connections,
      }),
    );
  });
}

/** Parent process, BENCH_METRICS=compare: the signed GET with and without metrics on the server. */
async function measureMetricsCost(): Promise<void> {
  await withBenchServer<Targets>(import.meta.url, cpuProfileFlags(), (withMetrics) =>
    withBenchServer<Targets>(
      import.meta.url,
      [],
      async (withoutMetrics) => {
        const agent = new Agent({ keepAlive: true, maxSockets: connections });
        const measureServer = (server: BenchServer<Targets>, durationMs: number) =>
          measurePhase(server, signedGetLoad(server.targets.signed, agent, durationMs));
        await measureServer(withoutMetrics, warmupMs);
        await measureServer(withMetrics, warmupMs);
        const results: Record<"with" | "without", PhaseResult[]> = { with: [], without: [] };
        const pairs = Number(process.env.BENCH_PHASE_PAIRS ?? phasesPerMode);
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
        if (measured.failures + baseline.failures > 0) {
          throw new Error(`${measured.failures + baseline.failures} requests did not answer 200`);
        }
        process.stderr.write(
          `without metrics: ${baseline.perSecond.toFixed(0)} req/s (p50 ${baseline.p50Ms.toFixed(2)} ms, p99 ${baseline.p99Ms.toFixed(2)} ms, ${baseline.cpuUsPerRequest.toFixed(1)} us CPU/req)\n` +
            `with metrics:    ${measured.perSecond.toFixed(0)} req/s (p50 ${measured.p50Ms.toFixed(2)} ms, p99 ${measured.p99Ms.toFixed(2)} ms, ${measured.cpuUsPerRequest.toFixed(1)} us CPU/req)\n`,
        );
        console.log(
          JSON.stringify({
            bench: "gateway",
            mode: "metrics",
            unit: "requests/s",
            value: Math.round(measured.perSecond),
            baseline: { name: "signed GET, server without metrics", value: Math.round(baseline.perSecond) },
            ratio: round(measured.perSecond / baseline.perSecond, 3),
            p50_ms: round(measured.p50Ms, 3),
            p99_ms: round(measured.p99Ms, 3),
            baseline_p99_ms: round(baseline.p99Ms, 3),
            server_cpu_us_per_request: round(measured.cpuUsPerRequest, 1),
            baseline_server_cpu_us_per_request: round(baseline.cpuUsPerRequest, 1),
            cpu_ratio: round(baseline.cpuUsPerRequest / measured.cpuUsPerRequest, 3),
            ratio_median_of_pairs: round(
              pairRatios.sort((a, b) => a - b)[Math.floor(pairRatios.length / 2)]!,
              3,
            ),
            hook_ns_per_response: Math.round(hookNs),
            connections,
          }),
        );
      },
      { metrics: false },
    ),
  );
}

/** `connections` clients sending the same signed GET, each answered 200 or counted as a failure. */
function signedGetLoad(target: Target, agent: Agent, durationMs: number) {
  const url = new URL(target.path, target.baseUrl);
  // Signing once per second (the date's resolution) keeps the load generator's own CPU out of the
  // measurement; the server still verifies every request in full. No nonce: the same headers are
  // sent for a second.
  let signedFor = "";
  let headers: Record<string, string> = {};
  const currentHeaders = () => {
    const date = formatGatewayDate(new Date());
    if (date !== signedFor) {
      signedFor = date;
      headers = signRequest(target.credentials, { method: "GET", path: target.path, nonce: false }).headers;
    }
    return headers;
  };
  return {
    clients: connections,
    durationMs,
    requestsMax: requestsPerPhaseMax,
    prepare: () => undefined,
    // The headers are looked up inside the timed span, as they always were in this bench, so its
    // figures stay comparable with the earlier runs in docs/performance.md.
    send: async () => (await sendForStatus(url, { method: "GET", headers: currentHeaders() }, agent)) === 200,
  };
}

/**
 * As signedGetLoad, but every request signs a fresh x-ca-nonce (the SDK's default), which the
 * server records before answering; signed in `prepare`, outside the timed span.
 */
function nonceSignedGetLoad(target: Target, agent: Agent, durationMs: number) {
  const url = new URL(target.path, target.baseUrl);
  return {
    clients: connections,
    durationMs,
    requestsMax: requestsPerPhaseMax,
    prepare: () => signRequest(target.credentials, { method: "GET", path: target.path }).headers,
    send: async (headers: Record<string, string>) =>
      (await sendForStatus(url, { method: "GET", headers }, agent)) === 200,
  };
}
