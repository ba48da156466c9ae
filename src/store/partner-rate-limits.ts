// The port of partners' own request limits on the signed host (SQLite adapter: src/store/sqlite/partner-rate-limits.ts).

export interface PartnerRateLimits {
  /** The partner's requests per second, or undefined when it has no limit of its own. */
  of(partnerId: number): number | undefined;
  /** Sets (a positive integer) or removes (null) a partner's limit. */
  set(partnerId: number, requestsPerSecond: number | null): void;
}
