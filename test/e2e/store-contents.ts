// What a test platform has stored, read the same way on either store, for the end-to-end tests that
// check a property of the stored data rather than of an answer: that no secret is kept in clear,
// that a refused request wrote nothing. On SQLite it reads the platform's database (the file's
// bytes, the tables); in the PostgreSQL pass (testingOnPostgres) it queries the platform's own
// database (testDatabaseUrl) over one connection kept for the test file.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import type { ExchangeCommand, ExchangeEvent } from "../../src/core/exchange.js";
import type { EngineStore } from "../../src/engine/store.js";
import { databaseFileName } from "../../src/server.js";
import { openPostgresPool } from "../../src/store/postgres/database.js";
import { PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import { openDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import { type TestPlatform, testDatabaseUrl } from "./harness.js";

type Inspected = Pick<TestPlatform, "platform" | "dataDir">;

const pools = new Map<string, pg.Pool>();

/** One connection per database for the whole file; it lets the process exit when idle. */
function poolOf(url: string): pg.Pool {
  let pool = pools.get(url);
  if (pool === undefined) {
    pool = new pg.Pool({
      connectionString: url,
      max: 1,
      allowExitOnIdle: true,
      idleTimeoutMillis: 1_000,
      // bigint columns (ids, counts) as numbers, as SQLite gives them to the same tests.
      types: {
        getTypeParser: ((oid: number, format?: "text" | "binary") =>
          oid === pg.types.builtins.INT8
            ? (value: string) => Number(value)
            : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    pools.set(url, pool);
  }
  return pool;
}

function postgresUrlOf(test: Inspected): string | undefined {
  return testDatabaseUrl(test.dataDir);
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The platform's tables (every schema but the system's), sorted. */
async function postgresTables(pool: pg.Pool): Promise<string[]> {
  const result = await pool.query<{ name: string }>(
    `SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')
      ORDER BY 1`,
  );
  return result.rows.map((row) => row.name);
}

/**
 * Everything the platform has stored, as searchable text: on SQLite the database file and its WAL
 * (latin1), on PostgreSQL every row of every table in its text form (bytea as \x hex).
 */
export async function storedText(test: Inspected): Promise<string> {
  const url = postgresUrlOf(test);
  if (url === undefined) {
    test.platform.catchUpReadModels();
    return [databaseFileName, `${databaseFileName}-wal`]
      .map((name) => {
        try {
          return readFileSync(join(test.dataDir, name)).toString("latin1");
        } catch {
          return "";
        }
      })
      .join("");
  }
  const pool = poolOf(url);
  const parts: string[] = [];
  for (const table of await postgresTables(pool)) {
    const result = await pool.query<{ row: string }>(`SELECT t::text AS row FROM ${table} t`);
    for (const { row } of result.rows) parts.push(row);
  }
  return parts.join("\n");
}

/**
 * The row count of every table whose name `volatile` does not match, as `table=count` sorted by
 * table: a refused request must leave it as it was.
 */
export async function tableRowCounts(test: Inspected, volatile: RegExp): Promise<string[]> {
  const url = postgresUrlOf(test);
  if (url === undefined) {
    test.platform.catchUpReadModels();
    const db = test.platform.db!;
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .pluck()
      .all() as string[];
    return tables
      .filter((table) => !volatile.test(table))
      .map(
        (table) =>
          `${table}=${
            db
              .prepare(`SELECT count(*) FROM ${quoted(table)}`)
              .pluck()
              .get() as number
          }`,
      );
  }
  const pool = poolOf(url);
  const tables = (await postgresTables(pool)).filter((table) => !volatile.test(table));
  if (tables.length === 0) return [];
  // One round trip for every count.
  const result = await pool.query<{ name: string; count: string }>(
    tables
      .map(
        (table, index) => `SELECT ${index} AS n, '${table}' AS name, count(*)::text AS count FROM ${table}`,
      )
      .join(" UNION ALL ")
      .concat(" ORDER BY n"),
  );
  return result.rows.map((row) => `${row.name}=${row.count}`);
}

/**
 * The rows of a query written once for both stores: `?` placeholders (numbered for PostgreSQL),
 * plain SQL both dialects read the same. Integer columns arrive as numbers on either.
 */
export async function selectRows<Row extends Record<string, unknown>>(
  test: Inspected,
  sql: string,
  params: readonly (string | number)[] = [],
): Promise<Row[]> {
  const url = postgresUrlOf(test);
  if (url === undefined) {
    test.platform.catchUpReadModels();
    return test.platform.db!.prepare(sql).all(...params) as Row[];
  }
  let index = 0;
  const text = sql.replaceAll("?", () => `$${++index}`);
  return (await poolOf(url).query<Row>(text, [...params])).rows;
}

export interface StoredExchange {
  /** The engine's journal and snapshots, read only (no fence on PostgreSQL: writes would fail). */
  readonly store: EngineStore<ExchangeCommand, ExchangeEvent, unknown>;
  /** The rows of plain SQL both dialects read the same; integers (money in atoms) as bigint. */
  rows(sql: string): Promise<Record<string, bigint>[]>;
  close(): Promise<void>;
}

/**
 * The stored exchange of a data dir whose platform has stopped (a test that ran `predex serve` as a
 * child on it): SQLite's file, or in the PostgreSQL pass the dir's database.
 */
export async function openStoredExchange(dataDir: string): Promise<StoredExchange> {
  const bigints = (rows: Record<string, unknown>[]) =>
    rows.map((row) =>
      Object.fromEntries(Object.entries(row).map(([key, value]) => [key, BigInt(value as bigint | string)])),
    );
  const url = testDatabaseUrl(dataDir);
  if (url === undefined) {
    const db = openDatabase({ path: join(dataDir, databaseFileName) });
    return {
      store: new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db),
      rows: async (sql) => bigints(db.prepare(sql).safeIntegers(true).all() as Record<string, unknown>[]),
      close: async () => {
        db.close();
      },
    };
  }
  const pool = openPostgresPool({ url, applicationName: "predex-test-inspection", poolConnectionsMax: 1 });
  return {
    store: await PostgresEngineStore.open<ExchangeCommand, ExchangeEvent>(pool),
    rows: async (sql) => bigints((await pool.query<Record<string, unknown>>(sql)).rows),
    close: () => pool.end(),
  };
}

/**
 * The rows of plain SQL both dialects read the same, from a data dir's store while a server of its
 * own may be running on it (SQLite read only beside its WAL; PostgreSQL over one connection);
 * integers as bigint on either.
 */
export async function storedRows(dataDir: string, sql: string): Promise<Record<string, unknown>[]> {
  const url = testDatabaseUrl(dataDir);
  if (url === undefined) {
    const db = new Database(join(dataDir, databaseFileName), { readonly: true });
    try {
      return db.prepare(sql).safeIntegers(true).all() as Record<string, unknown>[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({
    connectionString: url,
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === pg.types.builtins.INT8
          ? (value: string) => BigInt(value)
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql)).rows;
  } finally {
    await client.end();
  }
}
