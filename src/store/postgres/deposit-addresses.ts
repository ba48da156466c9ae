// PostgreSQL adapter of the issued deposit addresses (port: src/store/deposit-addresses.ts; SQLite
// twin: src/store/sqlite/deposit-addresses.ts). The same two tables: the addresses derived from the
// operator's account key, and the retired HMAC addresses kept only to name their users; the store
// itself is written once in the port. Migration 2 adds the one row naming the key every node must
// derive from (the DepositKeyRegistry port, src/store/deposit-key-registry.ts).

import {
  type DepositAddressStore,
  depositAddressStatements,
  depositAddressStoreOn,
} from "../deposit-addresses.js";
import type { DepositKeyRecord, DepositKeyRegistry } from "../deposit-key-registry.js";
import type { PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";
import { postgresStatements } from "./statements.js";

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
  // One row at most (the key is true): the key the database's deposit addresses come from.
  `CREATE TABLE wallet_deposit_key (
     singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
     source text NOT NULL CHECK (source IN ('xpub', 'master-key-demo')),
     key_id text NOT NULL,
     account_xpub text NOT NULL,
     recorded_at_ms bigint NOT NULL
   );`,
];

export async function openPostgresDepositAddressStore(pool: PostgresPool): Promise<DepositAddressStore> {
  await applyPostgresMigrations(pool, "wallet", depositAddressMigrations);
  return depositAddressStoreOn(
    postgresStatements(pool, "predex-deposit-addresses", depositAddressStatements),
  );
}

interface DepositKeyRow {
  readonly source: DepositKeyRecord["source"];
  readonly key_id: string;
  readonly account_xpub: string;
  readonly recorded_at_ms: bigint;
}

const depositKeyColumns = "source, key_id, account_xpub, recorded_at_ms";

function depositKeyRecordOf(row: DepositKeyRow): DepositKeyRecord {
  return {
    source: row.source,
    keyId: row.key_id,
    accountXpub: row.account_xpub,
    recordedAtMs: Number(row.recorded_at_ms),
  };
}

export async function openPostgresDepositKeyRegistry(pool: PostgresPool): Promise<DepositKeyRegistry> {
  await applyPostgresMigrations(pool, "wallet", depositAddressMigrations);
  const values = (record: DepositKeyRecord) => [
    record.source,
    record.keyId,
    record.accountXpub,
    record.recordedAtMs,
  ];
  const current = async (): Promise<DepositKeyRecord | undefined> => {
    const result = await pool.query<DepositKeyRow>({
      name: "predex-deposit-key-current",
      text: `SELECT ${depositKeyColumns} FROM wallet_deposit_key`,
    });
    const row = result.rows[0];
    return row === undefined ? undefined : depositKeyRecordOf(row);
  };
  return {
    current,
    async claim(candidate) {
      // Insert-if-absent: of two nodes claiming at once, the second's insert waits for the first's
      // row to commit and does nothing; it then reads that row.
      const inserted = await pool.query<DepositKeyRow>({
        name: "predex-deposit-key-claim",
        text: `INSERT INTO wallet_deposit_key (${depositKeyColumns}) VALUES ($1, $2, $3, $4)
               ON CONFLICT (singleton) DO NOTHING RETURNING ${depositKeyColumns}`,
        values: values(candidate),
      });
      const row = inserted.rows[0];
      if (row !== undefined) return depositKeyRecordOf(row);
      const recorded = await current();
      if (recorded === undefined) throw new Error("wallet_deposit_key: the recorded key vanished");
      return recorded;
    },
    async replace(record) {
      // The old row is read in the statement that replaces it (a data-modifying CTE sees the table
      // as it was before the statement).
      const result = await pool.query<DepositKeyRow>({
        name: "predex-deposit-key-replace",
        text: `WITH previous AS (SELECT ${depositKeyColumns} FROM wallet_deposit_key FOR UPDATE),
                    written AS (
                      INSERT INTO wallet_deposit_key (${depositKeyColumns}) VALUES ($1, $2, $3, $4)
                      ON CONFLICT (singleton) DO UPDATE SET source = EXCLUDED.source,
                        key_id = EXCLUDED.key_id, account_xpub = EXCLUDED.account_xpub,
                        recorded_at_ms = EXCLUDED.recorded_at_ms
                    )
               SELECT ${depositKeyColumns} FROM previous`,
        values: values(record),
      });
      const row = result.rows[0];
      return row === undefined ? undefined : depositKeyRecordOf(row);
    },
  };
}
