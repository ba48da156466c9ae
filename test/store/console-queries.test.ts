// ConsoleQueries on SQLite and PostgreSQL: the one contract (contracts/console-queries-contract.ts).
// The tables it reads are the identity and exchange adapters': each store's own migrations of them
// (the identity store's factory and the exchange read models'), so a renamed column fails here.

import { openPostgresConsoleQueries } from "../../src/store/postgres/console-queries.js";
import { applyPostgresExchangeMigrations } from "../../src/store/postgres/exchange-projectors.js";
import { openPostgresIdentityStore } from "../../src/store/postgres/identity.js";
import { createConsoleQueries } from "../../src/store/sqlite/console-queries.js";
import { applyMigrations } from "../../src/store/sqlite/database.js";
import { exchangeReadModelMigrations } from "../../src/store/sqlite/exchange-schema.js";
import { createSqliteIdentityStore } from "../../src/store/sqlite/identity.js";
import { describeOnBothStores, postgresHarness, sqliteHarness } from "../support/port-harness.js";
import { describeConsoleQueriesContract } from "./contracts/console-queries-contract.js";

describeOnBothStores("ConsoleQueries", describeConsoleQueriesContract, {
  sqlite: sqliteHarness(createConsoleQueries, (db) => {
    createSqliteIdentityStore(db);
    applyMigrations(db, "exchange", exchangeReadModelMigrations);
  }),
  postgres: () =>
    postgresHarness("console", openPostgresConsoleQueries, async (pool) => {
      await openPostgresIdentityStore(pool);
      await applyPostgresExchangeMigrations(pool);
    }),
});
