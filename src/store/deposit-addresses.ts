// The port of the issued deposit addresses (src/wallet/deposit-addresses.ts derives them; the SQLite
// adapter is src/store/sqlite/deposit-addresses.ts).

import { type BoundStatements, type IntegerColumn, mapped, sql, toNumber } from "./sql.js";

/** An issued address and its owner. */
export interface IssuedDepositAddress {
  /** Lower case. */
  readonly address: string;
  readonly userId: number;
}

/** Where issued addresses are remembered, so the chain watcher can credit by address. */
export interface DepositAddressStore {
  /** Records the pair under the key it was derived from; the same pair again is a no-op. */
  remember(userId: number, address: string, keyId: string, nowMs: number): Promise<void>;
  /** The address issued to the user under this key, lower case. */
  addressOf(userId: number, keyId: string): Promise<string | undefined>;
  /** The user an issued address belongs to (under any key, old ones included); `address` is lower case. */
  userIdOf(address: string): Promise<number | undefined>;
  /** Every address issued under this key. */
  issuedUnder(keyId: string): Promise<IssuedDepositAddress[]>;
  /**
   * How many addresses are issued under this key. Addresses are only ever added, so a count above
   * what a node holds means another node issued some (the chain watcher then reads them all again).
   */
  countIssuedUnder(keyId: string): Promise<number>;
}

// ---- The store itself, written once over either database's statements. Each adapter keeps its
// migrations (their module layout differs: SQLite's two modules, PostgreSQL's one with the key row).
// Issuing is one INSERT … ON CONFLICT DO NOTHING, so two API nodes issuing a user's address at once
// write it once (the address is derived, so both write the same row).

export const depositAddressStatements = {
  remember: sql<{ address: string; userId: number; keyId: string; nowMs: number }>`INSERT INTO
       wallet_hd_deposit_addresses (address, user_id, key_id, issued_at_ms)
     VALUES (${"address"}, ${"userId"}, ${"keyId"}, ${"nowMs"}) ON CONFLICT DO NOTHING`,
  addressOf: sql<{ userId: number; keyId: string }>`SELECT address FROM wallet_hd_deposit_addresses
     WHERE user_id = ${"userId"} AND key_id = ${"keyId"}`,
  // The current addresses first, then the retired ones, in one round trip.
  userIdOf: sql<{ address: string }>`SELECT user_id FROM (
       SELECT user_id, 0 AS retired FROM wallet_hd_deposit_addresses WHERE address = ${"address"}
       UNION ALL
       SELECT user_id, 1 AS retired FROM wallet_deposit_addresses WHERE address = ${"address"}
     ) found ORDER BY retired LIMIT 1`,
  issuedUnder: sql<{ keyId: string }>`SELECT address, user_id FROM wallet_hd_deposit_addresses
     WHERE key_id = ${"keyId"} ORDER BY user_id`,
  countIssuedUnder: sql<{ keyId: string }>`SELECT count(*) AS count FROM wallet_hd_deposit_addresses
     WHERE key_id = ${"keyId"}`,
};

export function depositAddressStoreOn(
  statements: BoundStatements<typeof depositAddressStatements>,
): DepositAddressStore {
  return {
    async remember(userId, address, keyId, nowMs) {
      await statements.remember.run({ address, userId, keyId, nowMs });
    },
    addressOf: async (userId, keyId) =>
      (await statements.addressOf.row<{ address: string }>({ userId, keyId }))?.address,
    userIdOf: async (address) =>
      mapped(await statements.userIdOf.row<{ user_id: IntegerColumn }>({ address }), (row) =>
        toNumber(row.user_id),
      ),
    issuedUnder: async (keyId) =>
      (await statements.issuedUnder.rows<{ address: string; user_id: IntegerColumn }>({ keyId })).map(
        (row) => ({
          address: row.address,
          userId: toNumber(row.user_id),
        }),
      ),
    countIssuedUnder: async (keyId) =>
      toNumber((await statements.countIssuedUnder.row<{ count: IntegerColumn }>({ keyId }))?.count ?? 0),
  };
}
