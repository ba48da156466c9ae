// Partners' own request limits on PostgreSQL (port: src/store/partner-rate-limits.ts; SQLite twin:
// src/store/sqlite/partner-rate-limits.ts). The gateway asks on every request, so the table (one
// small row per limited partner) is held in memory and read again at most every `refreshMs`: a
// limit the operator sets through one API node applies on that node at once and on every other
// within refreshMs. A failed refresh keeps serving the last table read.

import {
  type LimitRow,
  limitsOf,
  type PartnerRateLimits,
  partnerRateLimitMigrations,
  partnerRateLimitStatements,
} from "../partner-rate-limits.js";
import type { PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";
import { postgresStatements, postgresText } from "./statements.js";

export const partnerRateLimitsRefreshMs = 1_000;

export interface PostgresPartnerRateLimitOptions {
  /** How stale another node's change may be here. */
  readonly refreshMs?: number;
  /** The clock of the refresh (real time by default). */
  readonly monotonicNowMs?: () => number;
}

export async function openPostgresPartnerRateLimits(
  pool: PostgresPool,
  options: PostgresPartnerRateLimitOptions = {},
): Promise<PartnerRateLimits> {
  await applyPostgresMigrations(pool, "partner-rate-limits", partnerRateLimitMigrations.map(postgresText));
  const statements = postgresStatements(pool, "predex-partner-rate-limits", partnerRateLimitStatements);
  const refreshMs = options.refreshMs ?? partnerRateLimitsRefreshMs;
  const now = options.monotonicNowMs ?? (() => performance.now());

  const read = async () => limitsOf(await statements.all.rows<LimitRow>({}));

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
    of(partnerId) {
      if (now() - readAtMs >= refreshMs) return refresh().then(() => limits.get(partnerId));
      return limits.get(partnerId);
    },
    async set(partnerId, requestsPerSecond) {
      if (requestsPerSecond === null) {
        await statements.remove.run({ partnerId });
        // A refresh in flight may have read the row before this change: read again after it.
        await refreshing;
        limits.delete(partnerId);
      } else {
        await statements.upsert.run({ partnerId, requestsPerSecond });
        await refreshing;
        limits.set(partnerId, requestsPerSecond);
      }
    },
  };
}
