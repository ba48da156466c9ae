// ConsoleQueries on SQLite and PostgreSQL: the one contract (contracts/console-queries-contract.ts).
// The tables it reads are the identity and exchange adapters': their SQLite migrations, and on
// PostgreSQL a copy of their DDL (test/support/postgres-foreign-tables.ts) until those are merged.

import { openPostgresConsoleQueries } from "../../src/store/postgres/console-queries.js";
import { createConsoleQueries } from "../../src/store/sqlite/console-queries.js";
import { applyMigrations } from "../../src/store/sqlite/database.js";
import { exchangeReadModelMigrations } from "../../src/store/sqlite/exchange-schema.js";
import { createSqliteIdentityStore } from "../../src/store/sqlite/identity.js";
import { describeOnBothStores, postgresHarness, sqliteHarness } from "../support/port-harness.js";
import { foreignExchangeTables, foreignIdentityTables } from "../support/postgres-foreign-tables.js";
import { describeConsoleQueriesContract } from "./contracts/console-queries-contract.js";

describeOnBothStores("ConsoleQueries", describeConsoleQueriesContract, {
  sqlite: sqliteHarness(createConsoleQueries, (db) => {
    createSqliteIdentityStore(db);
    applyMigrations(db, "exchange", exchangeReadModelMigrations);
  }),
  postgres: () =>
    postgresHarness("console", openPostgresConsoleQueries, async (pool) => {
      await pool.query(foreignIdentityTables + foreignExchangeTables);
    }),
});
