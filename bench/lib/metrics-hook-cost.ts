// What the HTTP instrumentation costs per response, measured in the load generator's process with
// no network in the way: PlatformMetrics' onResponse hook called directly on a few label sets, as a
// busy listener calls it. On a shared machine the with/without throughput ratio is noisy; this
// figure bounds the instrumentation's share of a request's server CPU from below the noise.

import type { FastifyInstance } from "fastify";
import { PlatformMetrics } from "../../src/metrics/platform-metrics.js";

type Hook = (request: unknown, reply: unknown, done: () => void) => void;

const callsPerRound = 200_000;
const rounds = 5;

/** Nanoseconds one instrumented response costs (the median of a few rounds). */
export function metricsHookNsPerResponse(): number {
  const metrics = new PlatformMetrics();
  let hook: Hook | undefined;
  metrics.instrumentHttp(
    { addHook: (_name: string, fn: Hook) => (hook = fn) } as unknown as FastifyInstance,
    "gateway",
  );
  const requests = ["/user/:id", "/ordering/create-order", "/account/assets"].map((url) => ({
    method: "GET",
    routeOptions: { url },
  }));
  const replies = [200, 400].map((statusCode) => ({ statusCode, elapsedTime: 0.42 }));
  const done = () => undefined;
  const perRound: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const started = process.hrtime.bigint();
    for (let call = 0; call < callsPerRound; call += 1) {
      hook!(requests[call % 3], replies[call % 2], done);
    }
    perRound.push(Number(process.hrtime.bigint() - started) / callsPerRound);
  }
  return perRound.sort((a, b) => a - b)[Math.floor(rounds / 2)]!;
}
