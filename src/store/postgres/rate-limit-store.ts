// A @fastify/rate-limit store on PostgreSQL, so that every API node counts against one budget per
// key (port: src/store/shared-rate-limits.ts). The windows are those of the in-process store
// (src/api/shared/rate-limit-store.ts): a key's window starts at its first request and lasts the
// limit's window; the first request after it ends starts the next. A partner sees the same limit
// whichever store the platform runs on (docs/decisions.md). One row per (limiter, key), counted by
//
//   INSERT … VALUES (…, 1) ON CONFLICT DO UPDATE
//     SET count = CASE WHEN expired THEN 1 ELSE count + 1 END, expires_at_ms = … RETURNING …
//
// which is atomic however many nodes increment at once (the row lock orders them): of N concurrent
// requests exactly `max` see a count ≤ max. The table is UNLOGGED: counters of one second are not
// worth a WAL write, and a crash of the database server empties it (every key starts a fresh
// window, which is what a limiter restarting would do anyway). Rows of ended windows are deleted in
// small batches by a timer-free check on the request path, at most every pruneIntervalMs per node,
// not awaited.

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
  // Windows from a key's first request, as the in-process store counts (was: aligned on the clock).
  `DROP TABLE rate_limit_windows;
   CREATE UNLOGGED TABLE rate_limit_counters (
     limiter text NOT NULL,
     key text NOT NULL,
     expires_at_ms bigint NOT NULL,
     count integer NOT NULL,
     PRIMARY KEY (limiter, key)
   );
   CREATE INDEX rate_limit_counters_by_expiry ON rate_limit_counters (expires_at_ms);`,
];

export const rateLimitPruneIntervalMs = 10_000;
export const rateLimitPruneBatchRowsMax = 1_000;

const statements = {
  increment: {
    name: "predex-rate-limit-count",
    // Both SET expressions read the row as it was: an ended window restarts at this request.
    text: `INSERT INTO rate_limit_counters AS counters (limiter, key, expires_at_ms, count)
           VALUES ($1, $2, $3::bigint + $4::bigint, 1)
           ON CONFLICT (limiter, key) DO UPDATE SET
             count = CASE WHEN counters.expires_at_ms <= $3 THEN 1 ELSE counters.count + 1 END,
             expires_at_ms = CASE WHEN counters.expires_at_ms <= $3
                                  THEN $3::bigint + $4::bigint ELSE counters.expires_at_ms END
           RETURNING count, expires_at_ms`,
  },
  prune: {
    name: "predex-rate-limit-prune-counters",
    text: `DELETE FROM rate_limit_counters WHERE ctid = ANY (ARRAY(
             SELECT ctid FROM rate_limit_counters WHERE expires_at_ms <= $1 LIMIT $2))`,
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
        pool
          .query<{ count: number; expires_at_ms: bigint }>({
            ...statements.increment,
            values: [this.#name, key, now, windowMs],
          })
          .then(
            (result) => {
              const row = result.rows[0]!;
              callback(null, { current: row.count, ttl: Number(row.expires_at_ms) - now });
            },
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
