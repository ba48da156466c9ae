// The port of rate-limit counters shared by every API node: a @fastify/rate-limit store class per
// limiter, counting on the clock it is given (PostgreSQL adapter:
// src/store/postgres/rate-limit-store.ts). Without it each listener counts in its own process
// (src/api/shared/rate-limit-store.ts), which is exact for one node and lets N nodes through N
// times the limit.

import type { FastifyRateLimitStoreCtor } from "@fastify/rate-limit";

/** The limiters that use it: the legacy 50 requests/second per merchant, and partners' own limits on the signed host. */
export type SharedRateLimiter = "legacy" | "partner";

export type SharedRateLimitStores = (
  limiter: SharedRateLimiter,
  nowMs: () => number,
) => FastifyRateLimitStoreCtor;
