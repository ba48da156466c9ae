// The exchange read models' queries on PostgreSQL; written once in the port
// (src/store/exchange-read-model-queries.ts), with the plain user history (the user indexes). The
// tables: exchange-schema.ts; the projector that fills them: exchange-projector.ts.

import {
  exchangeReadModelsOn,
  exchangeReadStatements,
  userHistoryOn,
  userHistoryStatements,
} from "../exchange-read-model-queries.js";
import type { ExchangeReadModels } from "../exchange-read-models.js";
import type { PostgresPool } from "./database.js";
import { postgresExchangeMigrations } from "./exchange-schema.js";
import { applyPostgresMigrations } from "./migrations.js";
import { postgresStatements } from "./statements.js";

/** Creates the exchange read models' tables (once, across nodes). */
export async function applyPostgresExchangeReadModelMigrations(pool: PostgresPool): Promise<void> {
  await applyPostgresMigrations(pool, "exchange", postgresExchangeMigrations);
}

export async function openPostgresExchangeReadModels(pool: PostgresPool): Promise<ExchangeReadModels> {
  await applyPostgresExchangeReadModelMigrations(pool);
  return exchangeReadModelsOn(
    postgresStatements(pool, "predex-exchange-read", exchangeReadStatements),
    userHistoryOn(postgresStatements(pool, "predex-exchange-read", userHistoryStatements)),
  );
}
