// Category nodes on PostgreSQL; the store is written once in the port (src/store/categories.ts).

import {
  type CategoryStore,
  categoryMigrations,
  categoryStatements,
  categoryStoreOn,
} from "../categories.js";
import type { PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";
import { postgresStatements, postgresText } from "./statements.js";

export async function openPostgresCategoryStore(pool: PostgresPool): Promise<CategoryStore> {
  await applyPostgresMigrations(pool, "categories", categoryMigrations.map(postgresText));
  return categoryStoreOn(postgresStatements(pool, "predex-categories", categoryStatements));
}
