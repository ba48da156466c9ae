// Category nodes in the embedded SQLite file (module "categories"). Not journaled: categories are
// the operator's catalogue metadata, not exchange state, so they change by plain transactions.
// The store is written once in the port (src/store/categories.ts).

import {
  type CategoryStore,
  categoryMigrations,
  categoryStatements,
  categoryStoreOn,
} from "../categories.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { sqliteStatements, sqliteText } from "./statements.js";

export function createSqliteCategoryStore(db: SqliteDatabase): CategoryStore {
  applyMigrations(db, "categories", categoryMigrations.map(sqliteText));
  return categoryStoreOn(sqliteStatements(db, categoryStatements));
}
