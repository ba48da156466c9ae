// The legacy merchant bills' queries on PostgreSQL (the SQLite twin: src/store/sqlite/legacy-bills.ts):
// a merchant's user by its marchantUserId, and the payouts its users have not claimed from markets
// settled or voided within a time range. Reads the identity tables (the PostgreSQL identity store
// keeps SQLite's names) and the exchange read models' positions and markets.

import type { LegacyBillQueries } from "../legacy-bills.js";
import type { PostgresPool } from "./database.js";
import { applyPostgresExchangeReadModelMigrations } from "./exchange-read-models.js";

export async function openPostgresLegacyBillQueries(pool: PostgresPool): Promise<LegacyBillQueries> {
  // The positions-by-market index the unclaimed sum needs is part of the exchange schema here.
  await applyPostgresExchangeReadModelMigrations(pool);
  return {
    async userIdOf(merchantId, marchantUserId) {
      const result = await pool.query<{ user_id: bigint | number }>({
        name: "predex-bills-user-of",
        text: "SELECT user_id FROM identity_users WHERE partner_id = $1 AND marchant_user_id = $2",
        values: [merchantId, marchantUserId],
      });
      const row = result.rows[0];
      return row === undefined ? undefined : Number(row.user_id);
    },
    async unclaimedPool(merchantId, fromMs, toMs) {
      const result = await pool.query<{ total: bigint | null }>({
        name: "predex-bills-unclaimed-pool",
        text: `SELECT sum(p.claimable)::bigint AS total FROM exchange_positions p
               JOIN markets m ON m.market_id = p.market_id
               JOIN identity_users u ON u.user_id = p.user_id
               WHERE u.partner_id = $1 AND p.status = 'settled' AND p.claimable > 0
                 AND ((m.settled_at_ms >= $2 AND m.settled_at_ms < $3) OR (m.voided_at_ms >= $2 AND m.voided_at_ms < $3))`,
        values: [merchantId, fromMs, toMs],
      });
      return result.rows[0]?.total ?? 0n;
    },
  };
}
