// ChainStore on SQLite and PostgreSQL: the one contract (contracts/chain-store-contract.ts), the
// schema written once rendering to the exact texts each database first ran, and the migration that
// added withdrawals' transactions: a withdrawal in flight at the upgrade keeps its one transaction
// in the new table, so the sender can still replace it.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { type ChainStore, chainMigrations } from "../../src/store/chain-store.js";
import { openPostgresChainStore } from "../../src/store/postgres/chain-store.js";
import { applyPostgresMigrations } from "../../src/store/postgres/migrations.js";
import { postgresText } from "../../src/store/postgres/statements.js";
import { createSqliteChainStore } from "../../src/store/sqlite/chain-store.js";
import { applyMigrations } from "../../src/store/sqlite/database.js";
import { sqliteText } from "../../src/store/sqlite/statements.js";
import {
  describeOnBothStores,
  type PortHarness,
  postgresHarness,
  sqliteHarness,
} from "../support/port-harness.js";
import { describeChainStoreContract } from "./contracts/chain-store-contract.js";

describe("ChainStore schema", () => {
  // SHA-256 of each migration's text as the two adapters wrote it before the schema was written once
  // (src/store/{sqlite,postgres}/chain-store.ts until issue #32): an applied migration is never edited.
  const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
  it("renders each migration to the exact text each database first ran", () => {
    assert.deepEqual(chainMigrations.map(sqliteText).map(sha256), [
      "23089e193bc4293b827f321688707b1ed8b9fce6d03448eb7f04df7429b6c5c1",
      "205c878c4ded363411b85ddb5851d24cc82199f2634151d4e2e4f79a5561ac76",
    ]);
    assert.deepEqual(chainMigrations.map(postgresText).map(sha256), [
      "0d8c759aa22d1370b30afb8d2e415af6d457b77f6604ec138f0b995d09bc704f",
      "1ee829a3c80461cceb5d8c5ab98a5fe9d019d99ec61efe63793bbf9c14d1ee6f",
    ]);
  });
});

describeOnBothStores("ChainStore", describeChainStoreContract, {
  sqlite: sqliteHarness(createSqliteChainStore),
  postgres: () => postgresHarness("chain", openPostgresChainStore),
});

/** Withdrawals as the first chain migration left them: one in flight, one completed. */
const beforeUpgrade = `INSERT INTO chain_withdrawals (withdrawal_id, status, nonce, from_address, to_address, units,
    raw_tx, tx_hash, broadcasts, created_at_ms, updated_at_ms)
  VALUES (1, 'SENT', 4, '0xhot', '0xto', 5, '0xraw1', '0xtx1', 1, 1000, 2000),
         (2, 'COMPLETED', 3, '0xhot', '0xto', 5, '0xraw2', '0xtx2', 1, 900, 950)`;

function describeUpgrade(harness: PortHarness<ChainStore>): void {
  it("gives a withdrawal in flight at the upgrade its one transaction", async () => {
    const { store, close } = await harness.open();
    try {
      assert.deepEqual(await store.withdrawalTransactions(1), [
        { txHash: "0xtx1", withdrawalId: 1, nonce: 4, rawTx: "0xraw1", state: "PENDING", signedAtMs: 1000 },
      ]);
      assert.deepEqual(await store.withdrawalTransactions(2), []);
    } finally {
      await close();
    }
  });
}

describeOnBothStores("ChainStore upgraded from its first schema", describeUpgrade, {
  sqlite: sqliteHarness(createSqliteChainStore, (db) => {
    applyMigrations(db, "chain", chainMigrations.slice(0, 1).map(sqliteText));
    db.exec(beforeUpgrade);
  }),
  postgres: () =>
    postgresHarness("chain_upgrade", openPostgresChainStore, async (pool) => {
      await applyPostgresMigrations(pool, "chain", chainMigrations.slice(0, 1).map(postgresText));
      await pool.query(beforeUpgrade);
    }),
});
