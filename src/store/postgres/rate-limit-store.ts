// A @fastify/rate-limit store on PostgreSQL, so that every API node counts against one budget per
// key (port: src/store/shared-rate-limits.ts). Fixed windows aligned on the clock (window start =
// now − now mod window, the same on every node), one row per (limiter, key, window), counted by
//
//   INSERT … VALUES (…, 1) ON CONFLICT DO UPDATE SET count = count + 1 RETURNING count
//
// which is atomic however many nodes increment at once: of N concurrent requests exactly `max`
// see a count ≤ max. The table is UNLOGGED: counters of one second are not worth a WAL write, and
// a crash of the database server empties it (every key starts a fresh window, which is what a
// limiter restarting would do anyway). Rows of past windows are deleted in small batches by a
// timer-free check on the request path, at most every pruneIntervalMs per node, not awaited.

import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from "@fastify/rate-limit";
import type { SharedRateLimiter, SharedRateLimitStores } from "../shared-rate-limits.js";
import type { PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";

export const rateLimitMigrations: readonly string[] = [
  `CREATE UNLOGGED TABLE rate_limit_windows (
     limiter text NOT NULL,
     key text NOT NULL,
     window_start_ms bigint NOT NULL,
     expires_at_ms bigint NOT NULL,
     count integer NOT NULL,
     PRIMARY KEY (limiter, key, window_start_ms)
   );
   CREATE INDEX rate_limit_windows_by_expiry ON rate_limit_windows (expires_at_ms);`,
];

export const rateLimitPruneIntervalMs = 10_000;
export const rateLimitPruneBatchRowsMax = 1_000;

const statements = {
  increment: {
    name: "predex-rate-limit-increment",
    text: `INSERT INTO rate_limit_windows AS windows (limiter, key, window_start_ms, expires_at_ms, count)
           VALUES ($1, $2, $3, $4, 1)
           ON CONFLICT (limiter, key, window_start_ms) DO UPDATE SET count = windows.count + 1
           RETURNING count`,
  },
  prune: {
    name: "predex-rate-limit-prune",
    text: `DELETE FROM rate_limit_windows WHERE ctid = ANY (ARRAY(
             SELECT ctid FROM rate_limit_windows WHERE expires_at_ms <= $1 LIMIT $2))`,
  },
} as const;

type IncrementCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/**
 * Applies the migrations and returns the factory of store classes composition passes to the apps
 * (`PlatformDeps.sharedRateLimitStores`).
 */
export async function openPostgresRateLimitStores(pool: PostgresPool): Promise<SharedRateLimitStores> {
  await applyPostgresMigrations(pool, "rate_limits", rateLimitMigrations);
  let prunedAtMs = 0;
  let pruning = false;
  const prune = async (nowMs: number): Promise<void> => {
    for (;;) {
      const result = await pool.query({ ...statements.prune, values: [nowMs, rateLimitPruneBatchRowsMax] });
      if ((result.rowCount ?? 0) < rateLimitPruneBatchRowsMax) return;
    }
  };
  const maybePrune = (nowMs: number): void => {
    if (pruning || nowMs - prunedAtMs < rateLimitPruneIntervalMs) return;
    pruning = true;
    prunedAtMs = nowMs;
    prune(nowMs)
      .catch(() => {})
      .finally(() => {
        pruning = false;
      });
  };

  return (limiter: SharedRateLimiter, nowMs: () => number): FastifyRateLimitStoreCtor => {
    let children = 0;
    class PostgresRateLimitStore {
      readonly #name: string;

      /** The plugin constructs the store with its options (unused here); children pass their name. */
      constructor(_pluginOptions?: unknown, name: string = limiter) {
        this.#name = name;
      }

      /** The plugin calls incr(key, callback, timeWindow, max). */
      incr(key: string, callback: IncrementCallback, timeWindowMs: number): void {
        const now = nowMs();
        const windowMs = Math.max(1, timeWindowMs);
        const windowStartMs = now - (now % windowMs);
        const expiresAtMs = windowStartMs + windowMs;
        pool
          .query<{ count: number }>({
            ...statements.increment,
            values: [this.#name, key, windowStartMs, expiresAtMs],
          })
          .then(
            (result) => callback(null, { current: result.rows[0]!.count, ttl: expiresAtMs - now }),
            (error: Error) => callback(error),
          );
        maybePrune(now);
      }

      /**
       * Each limiter made from the plugin (createRateLimit, a route's own limit) counts apart, as
       * the in-process store's children do. Apps are built the same way on every node, so the
       * n-th child has the same name everywhere.
       */
      child(): FastifyRateLimitStore {
        children += 1;
        return new PostgresRateLimitStore(
          undefined,
          `${limiter}#${children}`,
        ) as unknown as FastifyRateLimitStore;
      }
    }
    return PostgresRateLimitStore as unknown as FastifyRateLimitStoreCtor;
  };
}
