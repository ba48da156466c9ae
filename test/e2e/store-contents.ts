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
import { DirectoryJournalArchive } from "../../src/engine/journal-archive.js";
import type { EngineStore } from "../../src/engine/store.js";
import { databaseFileName } from "../../src/server.js";
import { openPostgresPool } from "../../src/store/postgres/database.js";
import { PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import { PostgresJournalArchive } from "../../src/store/postgres/journal-archive.js";
import { readModelPosition } from "../../src/store/postgres/read-model-projection.js";
import { openDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import {
  projectedTables as postgresProjectedTables,
  projectJournalAfresh as projectPostgresJournalAfresh,
} from "../support/postgres-projected-tables.js";
import {
  projectJournalAfresh as projectSqliteJournalAfresh,
  projectedTables as sqliteProjectedTables,
  userHistoryIndexMismatches,
} from "../support/sqlite-projected-tables.js";
import { type TestPlatform, testDatabaseEnv, testDatabaseUrl, testPlatformConfig } from "./harness.js";

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
  /**
   * The whole journal (archive, then the store) projected afresh into an empty database with the
   * platform's projectors, and the stored read models beside it, table by table (rows as text).
   */
  freshProjection(): Promise<FreshProjectionComparison>;
  close(): Promise<void>;
}

export interface FreshProjectionComparison {
  /** Each read-model table as stored: what the platform's projection left. */
  readonly stored: ReadonlyMap<string, readonly string[]>;
  /** The same tables projected from the journal afresh (every table a fresh projection writes). */
  readonly fresh: ReadonlyMap<string, readonly string[]>;
  /** The journal's last sequence the fresh projection holds. */
  readonly freshThrough: bigint;
  /** SQLite's user-history indexes that do not index their table up to their watermark (none on PostgreSQL). */
  readonly indexMismatches: readonly string[];
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
    const store = new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db);
    return {
      store,
      rows: async (sql) => bigints(db.prepare(sql).safeIntegers(true).all() as Record<string, unknown>[]),
      freshProjection: async () => {
        const history = new DirectoryJournalArchive<ExchangeCommand, ExchangeEvent>(
          testPlatformConfig(dataDir).journalArchiveDir,
        ).history(store);
        const fresh = await projectSqliteJournalAfresh(history, { identityFrom: db });
        try {
          return {
            stored: sqliteProjectedTables(db, fresh.readModelTables),
            fresh: sqliteProjectedTables(fresh.db, fresh.readModelTables),
            freshThrough: fresh.projectedThrough,
            indexMismatches: userHistoryIndexMismatches(db),
          };
        } finally {
          fresh.db.close();
        }
      },
      close: async () => {
        db.close();
      },
    };
  }
  const pool = openPostgresPool({ url, applicationName: "predex-test-inspection", poolConnectionsMax: 1 });
  const store = await PostgresEngineStore.open<ExchangeCommand, ExchangeEvent>(pool);
  return {
    store,
    rows: async (sql) => bigints((await pool.query<Record<string, unknown>>(sql)).rows),
    freshProjection: async () => {
      // A database of its own in the same cluster, made the way a data dir's is.
      const freshDir = join(dataDir, "fresh-projection");
      testDatabaseEnv(freshDir);
      const fresh = openPostgresPool({
        url: testDatabaseUrl(freshDir)!,
        applicationName: "predex-test-fresh-projection",
        poolConnectionsMax: 2,
      });
      try {
        const through = await store.lastSequence();
        const history = new PostgresJournalArchive<ExchangeCommand, ExchangeEvent>(pool).history(store);
        await projectPostgresJournalAfresh(fresh, history, through, { identityFrom: pool });
        const freshTables = await postgresProjectedTables(fresh);
        const storedTables = await postgresProjectedTables(pool);
        return {
          stored: new Map([...freshTables.keys()].map((table) => [table, storedTables.get(table) ?? []])),
          fresh: freshTables,
          freshThrough: await readModelPosition(fresh),
          indexMismatches: [],
        };
      } finally {
        await fresh.end();
      }
    },
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

/**
 * Where a data dir's journal ends and where its read models stand (the sequence their projection
 * recorded with them), read from the store (storedRows: a server may be running on it). The read
 * models behind the journal: entries are committed that no step has projected yet (after a SIGKILL,
 * what the next start must project; on a running platform, what the next read must wait for).
 */
export async function journalAndReadModelPositions(
  dataDir: string,
): Promise<{ readonly journal: bigint; readonly readModels: bigint }> {
  const [journal, position] =
    testDatabaseUrl(dataDir) === undefined
      ? ["journal", "read_model_position"]
      : ["engine_journal", "engine_read_model_position"];
  const [row] = await storedRows(
    dataDir,
    `SELECT (SELECT coalesce(max(sequence), 0) FROM ${journal}) AS journal,
            (SELECT projected_through FROM ${position} WHERE id = 1) AS read_models`,
  );
  return { journal: BigInt(row!.journal as bigint), readModels: BigInt(row!.read_models as bigint) };
}
