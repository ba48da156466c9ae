// SQLite queries of the legacy merchant bills that no read model answers yet: a merchant's user by
// its marchantUserId (without creating it, unlike authorize), and the payouts its users have not
// claimed from markets settled or voided within a time range.

import type { LegacyBillQueries } from "../legacy-bills.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";

export type { LegacyBillQueries };

// The unclaimed-pool sum reads positions by market; the index keeps it off a full scan.
const billMigrations = [
  "CREATE INDEX IF NOT EXISTS legacy_bills_positions_by_market ON exchange_positions (market_id, status);",
];

export function createSqliteLegacyBillQueries(db: SqliteDatabase): LegacyBillQueries {
  applyMigrations(db, "legacy_bills", billMigrations);
  const user = db.prepare<[number, string], { user_id: number }>(
    "SELECT user_id FROM identity_users WHERE partner_id = ? AND marchant_user_id = ?",
  );
  const unclaimed = db
    .prepare<[number, number, number, number, number], { total: bigint | null }>(
      `SELECT SUM(p.claimable) AS total FROM exchange_positions p
       JOIN markets m ON m.market_id = p.market_id
       JOIN identity_users u ON u.user_id = p.user_id
       WHERE u.partner_id = ? AND p.status = 'settled' AND p.claimable > 0
         AND ((m.settled_at_ms >= ? AND m.settled_at_ms < ?) OR (m.voided_at_ms >= ? AND m.voided_at_ms < ?))`,
    )
    .safeIntegers(true);
  return {
    async userIdOf(merchantId, marchantUserId) {
      return user.get(merchantId, marchantUserId)?.user_id;
    },
    async unclaimedPool(merchantId, fromMs, toMs) {
      return unclaimed.get(merchantId, fromMs, toMs, fromMs, toMs)?.total ?? 0n;
    },
  };
}
