// Category nodes in the embedded SQLite file (module "categories"). Not journaled: categories are
// the operator's catalogue metadata, not exchange state, so they change by plain transactions.

import type { CategoryChanges, CategoryRecord, CategoryStore, NewCategory } from "../categories.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";

export const categoryMigrations: readonly string[] = [
  `CREATE TABLE categories (
     category_id INTEGER PRIMARY KEY AUTOINCREMENT,
     parent_id INTEGER,
     level INTEGER NOT NULL,
     name TEXT NOT NULL,
     names TEXT NOT NULL,
     logo_url TEXT NOT NULL,
     online INTEGER NOT NULL DEFAULT 1,
     deleted INTEGER NOT NULL DEFAULT 0,
     created_at_ms INTEGER NOT NULL
   ) STRICT;`,
];

interface CategoryRow {
  category_id: number;
  parent_id: number | null;
  level: number;
  name: string;
  names: string;
  logo_url: string;
  online: number;
  deleted: number;
  created_at_ms: number;
}

function categoryOf(row: CategoryRow): CategoryRecord {
  return {
    id: row.category_id,
    parentId: row.parent_id,
    level: row.level,
    name: row.name,
    names: JSON.parse(row.names) as Record<string, string>,
    logoUrl: row.logo_url,
    online: row.online === 1,
    deleted: row.deleted === 1,
    createdAtMs: row.created_at_ms,
  };
}

export function createSqliteCategoryStore(db: SqliteDatabase): CategoryStore {
  applyMigrations(db, "categories", categoryMigrations);
  const insert = db.prepare<[number | null, number, string, string, string, number], CategoryRow>(
    `INSERT INTO categories (parent_id, level, name, names, logo_url, created_at_ms)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const byId = db.prepare<[number], CategoryRow>("SELECT * FROM categories WHERE category_id = ?");
  const all = db.prepare<[], CategoryRow>("SELECT * FROM categories ORDER BY category_id");
  const update = db.prepare<
    [string | null, string | null, string | null, number | null, number | null, number],
    CategoryRow
  >(
    `UPDATE categories SET name = coalesce(?, name), names = coalesce(?, names),
       logo_url = coalesce(?, logo_url), online = coalesce(?, online), deleted = coalesce(?, deleted)
     WHERE category_id = ? RETURNING *`,
  );
  const flag = (value: boolean | undefined): number | null => (value === undefined ? null : value ? 1 : 0);
  return {
    async insert(category: NewCategory) {
      const row = insert.get(
        category.parentId,
        category.level,
        category.name,
        JSON.stringify(category.names),
        category.logoUrl,
        category.createdAtMs,
      );
      return categoryOf(row!);
    },
    async update(id: number, changes: CategoryChanges) {
      const row = update.get(
        changes.name ?? null,
        changes.names === undefined ? null : JSON.stringify(changes.names),
        changes.logoUrl ?? null,
        flag(changes.online),
        flag(changes.deleted),
        id,
      );
      return row === undefined ? undefined : categoryOf(row);
    },
    async byId(id: number) {
      const row = byId.get(id);
      return row === undefined ? undefined : categoryOf(row);
    },
    async all() {
      return all.all().map(categoryOf);
    },
  };
}
