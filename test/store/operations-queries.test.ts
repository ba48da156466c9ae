// OperationsQueries on SQLite and PostgreSQL: the one contract (contracts/operations-queries-contract.ts).
// The legacy queue's table is the legacy request store's: each store's own factory migrates it.

import { openPostgresLegacyRequestStore } from "../../src/store/postgres/legacy-requests.js";
import { openPostgresOperationsQueries } from "../../src/store/postgres/operations-queries.js";
import { createSqliteLegacyRequestStore } from "../../src/store/sqlite/legacy-requests.js";
import { createSqliteOperationsQueries } from "../../src/store/sqlite/operations-queries.js";
import { describeOnBothStores, postgresHarness, sqliteHarness } from "../support/port-harness.js";
import { describeOperationsQueriesContract } from "./contracts/operations-queries-contract.js";

describeOnBothStores("OperationsQueries", describeOperationsQueriesContract, {
  sqlite: sqliteHarness(createSqliteOperationsQueries, (db) => {
    createSqliteLegacyRequestStore(db);
  }),
  postgres: () =>
    postgresHarness("operations", openPostgresOperationsQueries, async (pool) => {
      await openPostgresLegacyRequestStore(pool);
    }),
});
