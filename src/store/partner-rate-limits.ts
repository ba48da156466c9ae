// The port of partners' own request limits on the signed host (SQLite adapter:
// src/store/sqlite/partner-rate-limits.ts; PostgreSQL: src/store/postgres/partner-rate-limits.ts).
// Asynchronous so that a store shared by several API nodes fits; adapters answer `of` from memory
// on the hot path (the gateway asks on every request).

export interface PartnerRateLimits {
  /** The partner's requests per second, or undefined when it has no limit of its own. */
  of(partnerId: number): Promise<number | undefined>;
  /** Sets (a positive integer) or removes (null) a partner's limit. */
  set(partnerId: number, requestsPerSecond: number | null): Promise<void>;
}
