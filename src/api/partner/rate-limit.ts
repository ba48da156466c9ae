// An optional per-partner request limit on the signed host: the operator may give a partner a
// number of requests per second (POST /admin/partners/{merchantId}/rate-limit); partners without
// one are not limited here. Counted by @fastify/rate-limit per partner over fixed one-second
// windows, after the gateway has identified the partner (a forged request never uses a budget).
//
// Spec 000 has no rate-limit status or code ("Rate limits: not shown"). Going over is answered in
// the vocabulary a partner of that interface already handles: HTTP 502, code 2002 (its recovery
// table retries 502 with backoff), as overload is (DESIGN §6), with Retry-After in seconds and a
// message that says why: nothing was done, try again later.

import rateLimit from "@fastify/rate-limit";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PlatformDeps } from "../deps.js";
import { clockedRateLimitStore } from "../shared/rate-limit-store.js";
import type { TypeBoxApp } from "../shared/typebox-app.js";

export const partnerRateWindowMs = 1_000;

/**
 * Counts an authenticated request against its partner's limit. Undefined when the request may go on
 * at once (the common case: a partner without a limit, known from memory, costs no promise); else a
 * promise that settles once the decision is made, the 502 already sent if the limit was exceeded.
 */
export type PartnerRateLimitCheck = (
  request: FastifyRequest,
  reply: FastifyReply,
) => Promise<void> | undefined;

/**
 * Registers the counter and returns the check. The gateway's preValidation hook
 * (./authentication.ts) calls it once the partner is known: one hook for both, not two.
 */
export async function partnerRateLimitCheck(
  app: TypeBoxApp,
  deps: PlatformDeps,
): Promise<PartnerRateLimitCheck> {
  // Shared by every API node when composition gives a shared store (PostgreSQL), else per process.
  const store = deps.sharedRateLimitStores?.("partner", deps.nowMs) ?? clockedRateLimitStore(deps.nowMs);
  await app.register(rateLimit, { global: false, store });
  const take = app.createRateLimit({
    timeWindow: partnerRateWindowMs,
    keyGenerator: (request) => request.partner.partnerId,
    max: async (request) => (await deps.partnerRateLimits.of(request.partner.partnerId)) ?? 0,
  });
  const countAgainst = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const decision = await take(request);
    if (decision.isAllowed || !decision.isExceeded) return;
    const retryAfterSeconds = Math.max(1, decision.ttlInSeconds);
    reply
      .code(502)
      .header("retry-after", String(retryAfterSeconds))
      .type("application/json; charset=utf-8")
      .send({
        code: 2002,
        message: `upstream unavailable: rate limit of ${decision.max} requests per second exceeded, retry after ${retryAfterSeconds}s`,
        data: null,
      });
  };
  return (request, reply) => {
    const limit = deps.partnerRateLimits.of(request.partner.partnerId);
    if (limit === undefined) return undefined;
    if (!(limit instanceof Promise)) return countAgainst(request, reply);
    return limit.then((settled) => (settled === undefined ? undefined : countAgainst(request, reply)));
  };
}
