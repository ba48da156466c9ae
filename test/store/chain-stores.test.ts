// ChainStore on SQLite and PostgreSQL: the one contract (contracts/chain-store-contract.ts).

import { openPostgresChainStore } from "../../src/store/postgres/chain-store.js";
import { createSqliteChainStore } from "../../src/store/sqlite/chain-store.js";
import { describeOnBothStores, postgresHarness, sqliteHarness } from "../support/port-harness.js";
import { describeChainStoreContract } from "./contracts/chain-store-contract.js";

describeOnBothStores("ChainStore", describeChainStoreContract, {
  sqlite: sqliteHarness(createSqliteChainStore),
  postgres: () => postgresHarness("chain", openPostgresChainStore),
});
