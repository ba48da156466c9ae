// What the HTTP instrumentation costs per response, measured in the load generator's process with
// no network in the way: PlatformMetrics' onResponse hooks (the route's own and the listener's)
// called directly on a few label sets, as a busy listener calls them. On a shared machine the
// with/without throughput ratio is noisy; this figure bounds the instrumentation's share of a
// request's server CPU from below the noise.

import type { FastifyInstance } from "fastify";
import { PlatformMetrics } from "../../src/metrics/platform-metrics.js";

type Hook = (request: unknown, reply: unknown, done: () => void) => void;
interface RouteOptions {
  url: string;
  onResponse?: Hook[];
}

const callsPerRound = 200_000;
const rounds = 5;

/** Nanoseconds one instrumented response costs (the median of a few rounds). */
export function metricsHookNsPerResponse(): number {
  const metrics = new PlatformMetrics();
  const hooks = new Map<string, unknown>();
  const app = { addHook: (name: string, hook: unknown) => hooks.set(name, hook) };
  metrics.instrumentHttp(app as unknown as FastifyInstance, "gateway");
  const listenerHook = hooks.get("onResponse") as Hook;
  const onRoute = hooks.get("onRoute") as (options: RouteOptions) => void;
  const routeHooks = ["/user/:id", "/ordering/create-order", "/account/assets"].map((url) => {
    const options: RouteOptions = { url };
    onRoute(options);
    return options.onResponse![0]!;
  });
  const request = { method: "GET", is404: false };
  const replies = [200, 400].map((statusCode) => ({ statusCode, elapsedTime: 0.42 }));
  const done = () => undefined;
  const perRound: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const started = process.hrtime.bigint();
    for (let call = 0; call < callsPerRound; call += 1) {
      const reply = replies[call % 2];
      listenerHook(request, reply, done);
      routeHooks[call % 3]!(request, reply, done);
    }
    perRound.push(Number(process.hrtime.bigint() - started) / callsPerRound);
  }
  return perRound.sort((a, b) => a - b)[Math.floor(rounds / 2)]!;
}
