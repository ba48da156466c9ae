// Per-partner request limits on the signed host (src/api/partner/rate-limit.ts), set by the operator
// (POST /admin/partners/{merchantId}/rate-limit). Its own table and migration module, beside the
// identity tables. The limits are read once and cached here: the gateway asks on every request, so
// the answer must cost a Map lookup, not a query.

import { applyMigrations, type SqliteDatabase } from "./database.js";

const partnerRateLimitMigrations = [
  `CREATE TABLE partner_rate_limits (
     partner_id INTEGER PRIMARY KEY REFERENCES identity_partners (partner_id),
     requests_per_second INTEGER NOT NULL CHECK (requests_per_second > 0)
   )`,
];

import type { PartnerRateLimits } from "../partner-rate-limits.js";

export type { PartnerRateLimits };

export function createSqlitePartnerRateLimits(db: SqliteDatabase): PartnerRateLimits {
  applyMigrations(db, "partner-rate-limits", partnerRateLimitMigrations);
  const upsert = db.prepare<[number, number]>(
    `INSERT INTO partner_rate_limits (partner_id, requests_per_second) VALUES (?, ?)
     ON CONFLICT (partner_id) DO UPDATE SET requests_per_second = excluded.requests_per_second`,
  );
  const remove = db.prepare<[number]>("DELETE FROM partner_rate_limits WHERE partner_id = ?");
  const rows = db
    .prepare<[], { partner_id: number; requests_per_second: number }>(
      "SELECT partner_id, requests_per_second FROM partner_rate_limits",
    )
    .all();
  const cache = new Map(rows.map((row) => [row.partner_id, row.requests_per_second]));
  return {
    of: async (partnerId) => cache.get(partnerId),
    async set(partnerId, requestsPerSecond) {
      if (requestsPerSecond === null) {
        remove.run(partnerId);
        cache.delete(partnerId);
      } else {
        upsert.run(partnerId, requestsPerSecond);
        cache.set(partnerId, requestsPerSecond);
      }
    },
  };
}
