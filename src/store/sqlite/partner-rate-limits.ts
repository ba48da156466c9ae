// Per-partner request limits on the signed host (src/api/partner/rate-limit.ts), set by the operator
// (POST /admin/partners/{merchantId}/rate-limit). Its own table and migration module, beside the
// identity tables. The limits are read once and cached here: the gateway asks on every request, so
// the answer must cost a Map lookup, not a query.

import {
  type LimitRow,
  limitsOf,
  type PartnerRateLimits,
  partnerRateLimitMigrations,
  partnerRateLimitStatements,
} from "../partner-rate-limits.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { prepareSqlite, sqliteText } from "./statements.js";

export type { PartnerRateLimits };

export function createSqlitePartnerRateLimits(db: SqliteDatabase): PartnerRateLimits {
  applyMigrations(db, "partner-rate-limits", partnerRateLimitMigrations.map(sqliteText));
  const upsert = prepareSqlite(db, partnerRateLimitStatements.upsert);
  const remove = prepareSqlite(db, partnerRateLimitStatements.remove);
  // Read once: this process is the file's only writer, and each write below updates the cache.
  const cache = limitsOf(prepareSqlite(db, partnerRateLimitStatements.all).all<LimitRow>({}));
  return {
    of: (partnerId) => cache.get(partnerId),
    async set(partnerId, requestsPerSecond) {
      if (requestsPerSecond === null) {
        remove.run({ partnerId });
        cache.delete(partnerId);
      } else {
        upsert.run({ partnerId, requestsPerSecond });
        cache.set(partnerId, requestsPerSecond);
      }
    },
  };
}
