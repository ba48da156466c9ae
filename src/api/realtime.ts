// Starts the realtime layer on a running platform: the hub on the engine's commits, the six signed
// channels (registered in deps.socketChannels, behind the gateway's upgrade gate), the public
// /ws/market on the public listener, and the per-minute price sampler.

import type { Server } from "node:http";
import { RealtimeHub } from "../realtime/hub.js";
import { type RealtimeLimits, realtimeLimits } from "../realtime/limits.js";
import { startPriceSampler } from "../realtime/price-samples.js";
import { installPublicMarketSocket } from "../realtime/public-market-socket.js";
import type { PlatformDeps } from "./deps.js";
import { registerSignedChannels } from "./partner/socket-channels.js";

export interface Realtime {
  readonly hub: RealtimeHub;
  /** Closes every socket (1001) and stops the timers; call before closing the listeners. */
  close(): void;
}

export async function startRealtime(
  deps: PlatformDeps,
  servers: { readonly public: Server },
  overrides: Partial<RealtimeLimits> = {},
): Promise<Realtime> {
  const limits = realtimeLimits(overrides);
  const logger = deps.logger.child({ component: "realtime" });
  const hub = await RealtimeHub.start({
    engine: deps.engine,
    identity: deps.identity,
    readModels: deps.exchangeReadModels,
    limits,
    logger,
  });
  const signed = registerSignedChannels(deps, hub);
  const publicSockets = installPublicMarketSocket(servers.public, hub, logger);
  const sampler = startPriceSampler({
    engine: deps.engine,
    store: deps.priceSamples,
    intervalMs: limits.priceSampleIntervalMs,
    nowMs: deps.nowMs,
    logger,
  });
  return {
    hub,
    close() {
      sampler.stop();
      hub.close();
      signed.close();
      publicSockets.close();
    },
  };
}

export type { RealtimeLimits } from "../realtime/limits.js";
export { defaultRealtimeLimits } from "../realtime/limits.js";
