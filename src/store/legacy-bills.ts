// The port of the legacy merchant bills' queries that no read model answers yet (their SQLite
// adapter: src/store/sqlite/legacy-bills.ts).

export interface LegacyBillQueries {
  /** The merchant's user with this marchantUserId, or undefined. */
  userIdOf(merchantId: number, marchantUserId: string): Promise<number | undefined>;
  /** Atoms still claimable by the merchant's users in markets settled or voided in [fromMs, toMs). */
  unclaimedPool(merchantId: number, fromMs: number, toMs: number): Promise<bigint>;
}
