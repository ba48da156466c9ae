// 50 requests per second per merchant on the legacy listener (spec 001 "Limits", DESIGN §8), by
// @fastify/rate-limit over fixed one-second windows. The key is the merchant (by API key on
// authorize, by the JWT elsewhere), or the client address for calls without credentials. The
// windows live in this process (src/api/shared/rate-limit-store.ts) unless composition gives a
// store shared by every API node (deps.sharedRateLimitStores, on PostgreSQL), which keeps the
// limit at 50 per merchant however many legacy nodes serve it.

import rateLimit from "@fastify/rate-limit";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PlatformDeps } from "../deps.js";
import { clockedRateLimitStore } from "../shared/rate-limit-store.js";
import type { TypeBoxApp } from "../shared/typebox-app.js";
import { rateLimited, sendLegacyError } from "./errors.js";

export const legacyRequestsPerWindowMax = 50;
export const legacyRateWindowMs = 1_000;
export const legacyRateWindowName = "1s";

/**
 * Returns the check to run on every request once `keyOf` can name the caller: undefined when the
 * request may go on, else the 429 reply (`data: {retryAfter, limit: 50, window: "1s"}` and
 * Retry-After).
 */
export async function createLegacyRateLimit(
  app: TypeBoxApp,
  deps: PlatformDeps,
  keyOf: (request: FastifyRequest) => Promise<string>,
): Promise<(request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>> {
  const store = deps.sharedRateLimitStores?.("legacy", deps.nowMs) ?? clockedRateLimitStore(deps.nowMs);
  await app.register(rateLimit, { global: false, store });
  const take = app.createRateLimit({
    max: legacyRequestsPerWindowMax,
    timeWindow: legacyRateWindowMs,
    keyGenerator: keyOf,
  });
  return async (request, reply) => {
    const decision = await take(request);
    if (decision.isAllowed || !decision.isExceeded) return undefined;
    const retryAfterSeconds = Math.max(1, decision.ttlInSeconds);
    reply.header("retry-after", String(retryAfterSeconds));
    return sendLegacyError(reply, rateLimited(retryAfterSeconds, decision.max, legacyRateWindowName));
  };
}
