// The category nodes of the market catalogue (DESIGN §5 `POST /admin/categories`, spec 000 "Category
// node"): a small tree the operator edits and GET /markets/category-tree shows. Asynchronous so a
// PostgreSQL adapter can implement it as it is; the SQLite adapter answers synchronously inside.

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
