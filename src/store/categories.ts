// The category nodes of the market catalogue (DESIGN §5 `POST /admin/categories`, spec 000 "Category
// node"): a small tree the operator edits and GET /markets/category-tree shows. Asynchronous so a
// PostgreSQL adapter can implement it as it is; the SQLite adapter answers synchronously inside.

import {
  type BooleanColumn,
  type BoundStatements,
  columns,
  ddl,
  type IntegerColumn,
  mapped,
  type Sql,
  sql,
  toBoolean,
  toNumber,
  toNumberOrNull,
} from "./sql.js";

export interface CategoryRecord {
  readonly id: number;
  /** null for a level-1 node. */
  readonly parentId: number | null;
  /** 1 for a root, its parent's level + 1 below. */
  readonly level: number;
  /** The operator's own name for the node; the fallback of every display name. */
  readonly name: string;
  /** Display names by language tag ("en-US", "zh-CN", …). */
  readonly names: Readonly<Record<string, string>>;
  /** "" when the node has no logo. */
  readonly logoUrl: string;
  readonly online: boolean;
  readonly deleted: boolean;
  readonly createdAtMs: number;
}

export interface NewCategory {
  readonly parentId: number | null;
  readonly level: number;
  readonly name: string;
  readonly names: Readonly<Record<string, string>>;
  readonly logoUrl: string;
  readonly createdAtMs: number;
}

/** The fields an update may change; absent ones stay as they are. */
export interface CategoryChanges {
  readonly name?: string;
  readonly names?: Readonly<Record<string, string>>;
  readonly logoUrl?: string;
  readonly online?: boolean;
  readonly deleted?: boolean;
}

export interface CategoryStore {
  insert(category: NewCategory): Promise<CategoryRecord>;
  /** The updated node, or undefined when there is no node with that id. */
  update(id: number, changes: CategoryChanges): Promise<CategoryRecord | undefined>;
  byId(id: number): Promise<CategoryRecord | undefined>;
  /** Every node, deleted and offline ones included, by id. */
  all(): Promise<CategoryRecord[]>;
}

// ---- The store itself, written once over either database's statements (adapters:
// src/store/sqlite/categories.ts, src/store/postgres/categories.ts). Display names are kept as the
// JSON text the port hands over.

export const categoryMigrations: readonly Sql[] = [
  sql`CREATE TABLE categories (
     category_id ${ddl.autoId},
     parent_id ${ddl.int64},
     level integer NOT NULL,
     name text NOT NULL,
     names text NOT NULL,
     logo_url text NOT NULL,
     online ${ddl.boolean} NOT NULL DEFAULT ${ddl.true},
     deleted ${ddl.boolean} NOT NULL DEFAULT ${ddl.false},
     created_at_ms ${ddl.int64} NOT NULL
   )${ddl.strict}`,
];

interface CategoryRow {
  category_id: IntegerColumn;
  parent_id: IntegerColumn | null;
  level: number;
  name: string;
  names: string;
  logo_url: string;
  online: BooleanColumn;
  deleted: BooleanColumn;
  created_at_ms: IntegerColumn;
}

function categoryOf(row: CategoryRow): CategoryRecord {
  return {
    id: toNumber(row.category_id),
    parentId: toNumberOrNull(row.parent_id),
    level: row.level,
    name: row.name,
    names: JSON.parse(row.names) as Record<string, string>,
    logoUrl: row.logo_url,
    online: toBoolean(row.online),
    deleted: toBoolean(row.deleted),
    createdAtMs: toNumber(row.created_at_ms),
  };
}

const categoryColumns = columns(
  "category_id, parent_id, level, name, names, logo_url, online, deleted, created_at_ms",
);

type Nullable<T> = { readonly [K in keyof T]-?: Exclude<T[K], undefined> | null };

export const categoryStatements = {
  insert: sql<Omit<NewCategory, "names"> & { names: string }>`INSERT INTO categories
       (parent_id, level, name, names, logo_url, created_at_ms)
     VALUES (${"parentId"}, ${"level"}, ${"name"}, ${"names"}, ${"logoUrl"}, ${"createdAtMs"})
     RETURNING ${categoryColumns}`,
  // A null leaves the column as it is.
  update: sql<
    Nullable<Omit<CategoryChanges, "names">> & { id: number; names: string | null }
  >`UPDATE categories
     SET name = coalesce(${"name"}, name), names = coalesce(${"names"}, names),
       logo_url = coalesce(${"logoUrl"}, logo_url), online = coalesce(${"online"}, online),
       deleted = coalesce(${"deleted"}, deleted)
     WHERE category_id = ${"id"} RETURNING ${categoryColumns}`,
  byId: sql<{ id: number }>`SELECT ${categoryColumns} FROM categories WHERE category_id = ${"id"}`,
  all: sql`SELECT ${categoryColumns} FROM categories ORDER BY category_id`,
};

export function categoryStoreOn(statements: BoundStatements<typeof categoryStatements>): CategoryStore {
  return {
    async insert(category) {
      const row = await statements.insert.row<CategoryRow>({
        ...category,
        names: JSON.stringify(category.names),
      });
      return categoryOf(row!);
    },
    async update(id, changes) {
      const row = await statements.update.row<CategoryRow>({
        id,
        name: changes.name ?? null,
        names: changes.names === undefined ? null : JSON.stringify(changes.names),
        logoUrl: changes.logoUrl ?? null,
        online: changes.online ?? null,
        deleted: changes.deleted ?? null,
      });
      return mapped(row, categoryOf);
    },
    byId: async (id) => mapped(await statements.byId.row<CategoryRow>({ id }), categoryOf),
    all: async () => (await statements.all.rows<CategoryRow>({})).map(categoryOf),
  };
}
