// OperationsQueries on SQLite and PostgreSQL: the one contract (contracts/operations-queries-contract.ts).
// The legacy queue's table is the legacy adapter's: its SQLite migrations, and on PostgreSQL a copy
// of its DDL (test/support/postgres-foreign-tables.ts) until that adapter is merged.

import { openPostgresOperationsQueries } from "../../src/store/postgres/operations-queries.js";
import { createSqliteLegacyRequestStore } from "../../src/store/sqlite/legacy-requests.js";
import { createSqliteOperationsQueries } from "../../src/store/sqlite/operations-queries.js";
import { describeOnBothStores, postgresHarness, sqliteHarness } from "../support/port-harness.js";
import { foreignLegacyRequestTables } from "../support/postgres-foreign-tables.js";
import { describeOperationsQueriesContract } from "./contracts/operations-queries-contract.js";

describeOnBothStores("OperationsQueries", describeOperationsQueriesContract, {
  sqlite: sqliteHarness(createSqliteOperationsQueries, (db) => {
    createSqliteLegacyRequestStore(db);
  }),
  postgres: () =>
    postgresHarness("operations", openPostgresOperationsQueries, async (pool) => {
      await pool.query(foreignLegacyRequestTables);
    }),
});
