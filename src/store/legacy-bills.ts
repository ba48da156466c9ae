// The port of the legacy merchant bills' queries that no read model answers yet, written once for
// both adapters (src/store/sqlite/legacy-bills.ts, src/store/postgres/legacy-bills.ts): a merchant's
// user by its marchantUserId (without creating it, unlike authorize), and the payouts its users have
// not claimed from markets settled or voided within a time range. Reads the identity tables and the
// exchange read models' positions and markets, under the same names on both stores.

import { type BoundStatements, type IntegerColumn, sql, toBigint, toNumber } from "./sql.js";

export interface LegacyBillQueries {
  /** The merchant's user with this marchantUserId, or undefined. */
  userIdOf(merchantId: number, marchantUserId: string): Promise<number | undefined>;
  /** Atoms still claimable by the merchant's users in markets settled or voided in [fromMs, toMs). */
  unclaimedPool(merchantId: number, fromMs: number, toMs: number): Promise<bigint>;
}

export const billStatements = {
  userOf: sql<{ merchantId: number; marchantUserId: string }>`SELECT user_id FROM identity_users
    WHERE partner_id = ${"merchantId"} AND marchant_user_id = ${"marchantUserId"}`,
  // CAST: PostgreSQL's sum of bigints is numeric; SQLite keeps an integer either way.
  unclaimedPool: sql<{ merchantId: number; fromMs: number; toMs: number }>`SELECT
      CAST(sum(p.claimable) AS bigint) AS total FROM exchange_positions p
    JOIN markets m ON m.market_id = p.market_id
    JOIN identity_users u ON u.user_id = p.user_id
    WHERE u.partner_id = ${"merchantId"} AND p.status = 'settled' AND p.claimable > 0
      AND ((m.settled_at_ms >= ${"fromMs"} AND m.settled_at_ms < ${"toMs"})
        OR (m.voided_at_ms >= ${"fromMs"} AND m.voided_at_ms < ${"toMs"}))`,
};

/** The queries on bound statements (SQLite's with safe integers: the sum is money). */
export function billQueriesOn(statements: BoundStatements<typeof billStatements>): LegacyBillQueries {
  return {
    async userIdOf(merchantId, marchantUserId) {
      const row = await statements.userOf.row<{ user_id: IntegerColumn }>({ merchantId, marchantUserId });
      return row === undefined ? undefined : toNumber(row.user_id);
    },
    async unclaimedPool(merchantId, fromMs, toMs) {
      const row = await statements.unclaimedPool.row<{ total: IntegerColumn | null }>({
        merchantId,
        fromMs,
        toMs,
      });
      const total = row?.total ?? null;
      return total === null ? 0n : toBigint(total);
    },
  };
}
