// One contract suite, two stores: a port's contract (test/store/contracts/*) is written against a
// PortHarness, and each test file runs it on an SQLite harness (an in-memory database per test) and
// a PostgreSQL harness (a new database per test on one throwaway cluster per file). `another()` opens
// a second adapter on the same database — on PostgreSQL with its own pool, as a second API node
// would. `seed` writes rows of tables other adapters own (the contract of a read-only port needs
// them) in either dialect.

import { after, describe, it } from "node:test";
import { openPostgresPool, type PostgresPool } from "../../src/store/postgres/database.js";
import type { SqliteDatabase } from "../../src/store/sqlite/database.js";
import { openDatabase } from "../../src/store/sqlite/database.js";
import { type PostgresCluster, postgresSkipReason, startPostgresCluster } from "./postgres-cluster.js";

export type Dialect = "sqlite" | "postgres";

export interface SqlSeed {
  readonly dialect: Dialect;
  /** Inserts one row; columns the PostgreSQL schema generates itself are left out there. */
  insert(table: string, row: Readonly<Record<string, unknown>>): Promise<void>;
  /** Runs statements without parameters (DDL of tables another adapter owns). */
  run(sql: string): Promise<void>;
}

export interface PortInstance<Store> {
  readonly store: Store;
  readonly seed: SqlSeed;
  /** A second adapter on the same database (a second node, on PostgreSQL). */
  another(): Promise<Store>;
  /** Closes the database (every adapter opened on it). */
  close(): Promise<void>;
}

export interface PortHarness<Store> {
  readonly name: Dialect;
  open(): Promise<PortInstance<Store>>;
}

/** Columns PostgreSQL computes (GENERATED ALWAYS), which an INSERT must not name. */
const generatedColumns: Readonly<Record<string, readonly string[]>> = {
  identity_users: ["user_name"],
};

export function sqliteHarness<Store>(
  open: (db: SqliteDatabase) => Store | Promise<Store>,
  prepare?: (db: SqliteDatabase) => void,
): PortHarness<Store> {
  return {
    name: "sqlite",
    async open() {
      const db = openDatabase({ path: ":memory:" });
      prepare?.(db);
      const store = await open(db);
      return {
        store,
        seed: {
          dialect: "sqlite",
          async insert(table, row) {
            const columns = Object.keys(row);
            db.prepare(
              `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
            ).run(...columns.map((column) => sqliteValue(row[column])));
          },
          async run(sql) {
            db.exec(sql);
          },
        },
        another: async () => open(db),
        async close() {
          if (db.open) db.close();
        },
      };
    },
  };
}

function sqliteValue(value: unknown): unknown {
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}

export interface PostgresHarness<Store> extends PortHarness<Store> {
  /** Stops the cluster; register with after(). */
  stop(): Promise<void>;
}

export function postgresHarness<Store>(
  prefix: string,
  open: (pool: PostgresPool) => Promise<Store>,
  prepare?: (pool: PostgresPool) => Promise<void>,
): PostgresHarness<Store> {
  let cluster: Promise<PostgresCluster> | undefined;
  let databaseNumber = 0;
  const openPools = new Set<PostgresPool>();
  return {
    name: "postgres",
    async open() {
      cluster ??= startPostgresCluster();
      databaseNumber += 1;
      const url = await (await cluster).createDatabase(`${prefix}_${databaseNumber}`);
      const pools: PostgresPool[] = [];
      const newPool = () => {
        const pool = openPostgresPool({
          url,
          applicationName: `predex-test-${prefix}`,
          poolConnectionsMax: 4,
        });
        pools.push(pool);
        openPools.add(pool);
        return pool;
      };
      const pool = newPool();
      await prepare?.(pool);
      const store = await open(pool);
      return {
        store,
        seed: {
          dialect: "postgres",
          async insert(table, row) {
            const skipped = generatedColumns[table] ?? [];
            const columns = Object.keys(row).filter((column) => !skipped.includes(column));
            await pool.query(
              `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map((_, index) => `$${index + 1}`).join(", ")})`,
              columns.map((column) => row[column]),
            );
          },
          async run(sql) {
            await pool.query(sql);
          },
        },
        another: async () => open(newPool()),
        async close() {
          for (const one of pools.splice(0)) {
            openPools.delete(one);
            await one.end();
          }
        },
      };
    },
    async stop() {
      await Promise.all([...openPools].map((pool) => pool.end()));
      openPools.clear();
      if (cluster !== undefined) await (await cluster).stop();
    },
  };
}

/**
 * Runs `contract` on SQLite, then on PostgreSQL (or one loud skip when PostgreSQL is missing outside
 * CI; postgresSkipReason throws under CI=true).
 */
export function describeOnBothStores<Store>(
  title: string,
  contract: (harness: PortHarness<Store>) => void,
  stores: {
    sqlite: PortHarness<Store>;
    postgres: () => PostgresHarness<Store>;
  },
): void {
  describe(`${title}: sqlite`, () => contract(stores.sqlite));
  const skipReason = postgresSkipReason();
  if (skipReason !== undefined) {
    it(`${title}: postgres`, { skip: skipReason }, () => {});
    return;
  }
  const postgres = stores.postgres();
  after(() => postgres.stop());
  describe(`${title}: postgres`, () => contract(postgres));
}
