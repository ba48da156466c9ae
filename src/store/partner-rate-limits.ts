// The port of partners' own request limits on the signed host (SQLite adapter:
// src/store/sqlite/partner-rate-limits.ts; PostgreSQL: src/store/postgres/partner-rate-limits.ts).
// Asynchronous where it must be, so that a store shared by several API nodes fits; adapters answer
// `of` from memory, without a promise, on the hot path (the gateway asks on every request).

import { ddl, type IntegerColumn, type Sql, sql, toNumber } from "./sql.js";

export interface PartnerRateLimits {
  /**
   * The partner's requests per second, or undefined when it has no limit of its own. Answered as
   * is when known from memory (every signed request asks: no promise then), else in a promise.
   */
  of(partnerId: number): number | undefined | Promise<number | undefined>;
  /** Sets (a positive integer) or removes (null) a partner's limit. */
  set(partnerId: number, requestsPerSecond: number | null): Promise<void>;
}

// ---- What both adapters share: the table, its statements and its reading. How long a limit read is
// trusted is each adapter's (SQLite's process is the only writer and keeps it; PostgreSQL's nodes
// read again every refreshMs).

export const partnerRateLimitMigrations: readonly Sql[] = [
  sql`CREATE TABLE partner_rate_limits (
     partner_id ${ddl.int64} PRIMARY KEY REFERENCES identity_partners (partner_id),
     requests_per_second integer NOT NULL CHECK (requests_per_second > 0)
   )`,
];

export const partnerRateLimitStatements = {
  all: sql`SELECT partner_id, requests_per_second FROM partner_rate_limits`,
  upsert: sql<{ partnerId: number; requestsPerSecond: number }>`INSERT INTO partner_rate_limits
       (partner_id, requests_per_second) VALUES (${"partnerId"}, ${"requestsPerSecond"})
     ON CONFLICT (partner_id) DO UPDATE SET requests_per_second = excluded.requests_per_second`,
  remove: sql<{ partnerId: number }>`DELETE FROM partner_rate_limits WHERE partner_id = ${"partnerId"}`,
};

export interface LimitRow {
  partner_id: IntegerColumn;
  requests_per_second: number;
}

/** Every partner's limit, by partner id. */
export function limitsOf(rows: readonly LimitRow[]): Map<number, number> {
  return new Map(rows.map((row) => [toNumber(row.partner_id), row.requests_per_second]));
}
