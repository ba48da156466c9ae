// Partners' own request limits on PostgreSQL (port: src/store/partner-rate-limits.ts; SQLite twin:
// src/store/sqlite/partner-rate-limits.ts). The gateway asks on every request, so the table (one
// small row per limited partner) is held in memory and read again at most every `refreshMs`: a
// limit the operator sets through one API node applies on that node at once and on every other
// within refreshMs. A failed refresh keeps serving the last table read.

import type { PartnerRateLimits } from "../partner-rate-limits.js";
import type { PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";

export const partnerRateLimitMigrations: readonly string[] = [
  `CREATE TABLE partner_rate_limits (
     partner_id bigint PRIMARY KEY REFERENCES identity_partners (partner_id),
     requests_per_second integer NOT NULL CHECK (requests_per_second > 0)
   )`,
];

export const partnerRateLimitsRefreshMs = 1_000;

export interface PostgresPartnerRateLimitOptions {
  /** How stale another node's change may be here. */
  readonly refreshMs?: number;
  /** The clock of the refresh (real time by default). */
  readonly monotonicNowMs?: () => number;
}

const statements = {
  all: {
    name: "predex-partner-rate-limits-all",
    text: "SELECT partner_id, requests_per_second FROM partner_rate_limits",
  },
  upsert: {
    name: "predex-partner-rate-limits-upsert",
    text: `INSERT INTO partner_rate_limits (partner_id, requests_per_second) VALUES ($1, $2)
           ON CONFLICT (partner_id) DO UPDATE SET requests_per_second = EXCLUDED.requests_per_second`,
  },
  remove: {
    name: "predex-partner-rate-limits-remove",
    text: "DELETE FROM partner_rate_limits WHERE partner_id = $1",
  },
} as const;

export async function openPostgresPartnerRateLimits(
  pool: PostgresPool,
  options: PostgresPartnerRateLimitOptions = {},
): Promise<PartnerRateLimits> {
  await applyPostgresMigrations(pool, "partner-rate-limits", partnerRateLimitMigrations);
  const refreshMs = options.refreshMs ?? partnerRateLimitsRefreshMs;
  const now = options.monotonicNowMs ?? (() => performance.now());

  const read = async (): Promise<Map<number, number>> => {
    const result = await pool.query<{ partner_id: bigint; requests_per_second: number }>(statements.all);
    return new Map(result.rows.map((row) => [Number(row.partner_id), row.requests_per_second]));
  };

  let limits = await read();
  let readAtMs = now();
  let refreshing: Promise<void> | undefined;
  const refresh = (): Promise<void> => {
    refreshing ??= (async () => {
      const startedAtMs = now();
      try {
        limits = await read();
      } catch {
        // Keep the last table; try again on a later request.
      }
      readAtMs = startedAtMs;
    })().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  };

  return {
    async of(partnerId) {
      if (now() - readAtMs >= refreshMs) await refresh();
      return limits.get(partnerId);
    },
    async set(partnerId, requestsPerSecond) {
      if (requestsPerSecond === null) {
        await pool.query({ ...statements.remove, values: [partnerId] });
        // A refresh in flight may have read the row before this change: read again after it.
        await refreshing;
        limits.delete(partnerId);
      } else {
        await pool.query({ ...statements.upsert, values: [partnerId, requestsPerSecond] });
        await refreshing;
        limits.set(partnerId, requestsPerSecond);
      }
    },
  };
}
