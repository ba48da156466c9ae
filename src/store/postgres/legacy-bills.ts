// The legacy merchant bills' queries on PostgreSQL; written once in the port (src/store/legacy-bills.ts).

import { billQueriesOn, billStatements, type LegacyBillQueries } from "../legacy-bills.js";
import type { PostgresPool } from "./database.js";
import { applyPostgresExchangeReadModelMigrations } from "./exchange-read-models.js";
import { postgresStatements } from "./statements.js";

export async function openPostgresLegacyBillQueries(pool: PostgresPool): Promise<LegacyBillQueries> {
  // The positions-by-market index the unclaimed sum needs is part of the exchange schema here.
  await applyPostgresExchangeReadModelMigrations(pool);
  return billQueriesOn(postgresStatements(pool, "predex-bills", billStatements));
}
