// PostgreSQL adapter of the issued deposit addresses (port: src/store/deposit-addresses.ts; SQLite
// twin: src/store/sqlite/deposit-addresses.ts). The same two tables: the addresses derived from the
// operator's account key, and the retired HMAC addresses kept only to name their users. Issuing is
// one INSERT … ON CONFLICT DO NOTHING, so two API nodes issuing a user's address at once write it once
// (the address is derived, so both write the same row).

import type { DepositAddressStore, IssuedDepositAddress } from "../deposit-addresses.js";
import type { PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";

export const depositAddressMigrations: readonly string[] = [
  `CREATE TABLE wallet_deposit_addresses (
     address text PRIMARY KEY,
     user_id bigint NOT NULL UNIQUE,
     issued_at_ms bigint NOT NULL
   );
   CREATE TABLE wallet_hd_deposit_addresses (
     address text PRIMARY KEY,
     user_id bigint NOT NULL,
     key_id text NOT NULL,
     issued_at_ms bigint NOT NULL,
     UNIQUE (key_id, user_id)
   );`,
];

export async function openPostgresDepositAddressStore(pool: PostgresPool): Promise<DepositAddressStore> {
  await applyPostgresMigrations(pool, "wallet", depositAddressMigrations);
  return {
    async remember(userId, address, keyId, nowMs) {
      await pool.query({
        name: "predex-deposit-addresses-remember",
        text: `INSERT INTO wallet_hd_deposit_addresses (address, user_id, key_id, issued_at_ms)
               VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
        values: [address, userId, keyId, nowMs],
      });
    },
    async addressOf(userId, keyId) {
      const result = await pool.query<{ address: string }>({
        name: "predex-deposit-addresses-address-of",
        text: "SELECT address FROM wallet_hd_deposit_addresses WHERE user_id = $1 AND key_id = $2",
        values: [userId, keyId],
      });
      return result.rows[0]?.address;
    },
    async userIdOf(address) {
      // The current addresses first, then the retired ones, in one round trip.
      const result = await pool.query<{ user_id: bigint }>({
        name: "predex-deposit-addresses-user-id-of",
        text: `SELECT user_id FROM (
                 SELECT user_id, 0 AS retired FROM wallet_hd_deposit_addresses WHERE address = $1
                 UNION ALL
                 SELECT user_id, 1 AS retired FROM wallet_deposit_addresses WHERE address = $1
               ) found ORDER BY retired LIMIT 1`,
        values: [address],
      });
      const row = result.rows[0];
      return row === undefined ? undefined : Number(row.user_id);
    },
    async issuedUnder(keyId): Promise<IssuedDepositAddress[]> {
      const result = await pool.query<{ address: string; user_id: bigint }>({
        name: "predex-deposit-addresses-issued-under",
        text: "SELECT address, user_id FROM wallet_hd_deposit_addresses WHERE key_id = $1 ORDER BY user_id",
        values: [keyId],
      });
      return result.rows.map((row) => ({ address: row.address, userId: Number(row.user_id) }));
    },
    async countIssuedUnder(keyId) {
      const result = await pool.query<{ count: bigint }>({
        name: "predex-deposit-addresses-count-issued-under",
        text: "SELECT count(*) AS count FROM wallet_hd_deposit_addresses WHERE key_id = $1",
        values: [keyId],
      });
      return Number(result.rows[0]?.count ?? 0n);
    },
  };
}
