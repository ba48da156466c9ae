// Every read-model table the platform's projectors write on SQLite, row for row, and the same
// journal projected afresh into an empty database: two databases whose read models were projected
// from the same journal must give the same map, however the projection was cut (the SQLite twin of
// postgres-projected-tables.ts; used by the crash simulation, test/sim, and the SIGKILL e2e,
// test/e2e/sigkill-orders.test.ts).

import type { ExchangeCommand, ExchangeEvent } from "../../src/core/exchange.js";
import type { JournalEntry, JournalSource } from "../../src/engine/store.js";
import { createExchangeProjectors } from "../../src/exchange/exchange-host.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/sqlite/database.js";
import { createSqliteIdentityStore } from "../../src/store/sqlite/identity.js";
import { createSqliteMarketCatalog } from "../../src/store/sqlite/market-catalog.js";

/** Tables that are the engine's own, not read models. */
const engineTables = new Set([
  "journal",
  "snapshots",
  "snapshot_chunks",
  "schema_migrations",
  // Where the read models stand in the journal: compared with the journal's end on its own.
  "read_model_position",
]);

/**
 * The user-keyed history tables lag their base tables by design (user-history-index.ts): how far
 * depends on where batches ended, so they are not compared with a fresh projection. What must hold
 * is that each indexes exactly its base table's rows up to its watermark (userHistoryIndexMismatches).
 */
const userHistoryIndexTables = new Set([
  "exchange_orders_of_user",
  "exchange_trades_of_user",
  "exchange_ledger_of_user",
  "exchange_user_index_watermarks",
]);

const tableNames = (db: SqliteDatabase): string[] =>
  db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];

export interface FreshProjection {
  /** The new in-memory database the journal was projected into. */
  readonly db: SqliteDatabase;
  /** The read-model tables the projectors made there (see projectedTables). */
  readonly readModelTables: readonly string[];
  /** The last journal sequence projected (0n for an empty journal). */
  readonly projectedThrough: bigint;
}

/**
 * Projects the whole journal, one entry per transaction (the finest cut there is), into a new
 * in-memory database with the platform's projectors. The commission projector reads the identity
 * tables (which user belongs to which partner, at which rate): with `identityFrom`, a platform's
 * database, their rows are copied from it first (the journal does not hold them).
 */
export async function projectJournalAfresh(
  history: JournalSource<ExchangeCommand, ExchangeEvent>,
  options: { readonly identityFrom?: SqliteDatabase } = {},
): Promise<FreshProjection> {
  const fresh = openDatabase({ path: ":memory:" });
  if (options.identityFrom !== undefined) {
    createSqliteIdentityStore(fresh);
    const source = options.identityFrom;
    // Copied table by table, in name order: the references hold once all are in.
    fresh.pragma("foreign_keys = OFF");
    for (const table of tableNames(fresh).filter((name) => name.startsWith("identity_"))) {
      const rows = source.prepare(`SELECT * FROM "${table}"`).raw().safeIntegers(true).all() as unknown[][];
      if (rows.length === 0) continue;
      const insert = fresh.prepare(`INSERT INTO "${table}" VALUES (${rows[0]!.map(() => "?").join(", ")})`);
      for (const row of rows) insert.run(...row);
    }
    fresh.pragma("foreign_keys = ON");
  }
  const before = new Set(tableNames(fresh));
  const catalog = createSqliteMarketCatalog(fresh);
  const projectors = createExchangeProjectors(fresh, { projectors: [catalog.projector] });
  const project = fresh.transaction((batch: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]) => {
    for (const projector of projectors) projector(fresh, batch);
  });
  let projectedThrough = 0n;
  for await (const batch of history.readJournal(0n)) {
    for (const entry of batch) {
      if (entry.sequence !== projectedThrough + 1n) {
        throw new Error(
          `the journal has no entry ${projectedThrough + 1n} to project (found ${entry.sequence})`,
        );
      }
      project([entry]);
      projectedThrough = entry.sequence;
    }
  }
  // A full-text index's shadow tables hold its segments, whose layout depends on how the writes
  // were grouped; the virtual table itself is compared instead.
  const virtualTables = fresh
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'")
    .pluck()
    .all() as string[];
  const isShadow = (name: string) => virtualTables.some((virtual) => name.startsWith(`${virtual}_`));
  const readModelTables = tableNames(fresh).filter(
    (name) =>
      !before.has(name) && !engineTables.has(name) && !isShadow(name) && !userHistoryIndexTables.has(name),
  );
  return { db: fresh, readModelTables, projectedThrough };
}

/** The rows of each table, as JSON text in a stable order (by their first two columns). */
export function projectedTables(db: SqliteDatabase, tables: readonly string[]): Map<string, string[]> {
  return new Map(
    tables.map((table) => [
      table,
      (
        db.prepare(`SELECT * FROM "${table}" ORDER BY 1, 2`).raw().safeIntegers(true).all() as unknown[][]
      ).map((row) =>
        JSON.stringify(row, (_key, value) => (typeof value === "bigint" ? value.toString() : value)),
      ),
    ]),
  );
}

/** The user-history indexes (of `db`) that do not index their base table exactly up to their watermark. */
export function userHistoryIndexMismatches(db: SqliteDatabase): string[] {
  const layouts = [
    ["exchange_orders", "exchange_orders_of_user", "user_id, order_id", "order_id"],
    ["exchange_trades", "exchange_trades_of_user", "user_id, trade_id, role", "trade_id"],
    ["exchange_ledger", "exchange_ledger_of_user", "user_id, entry_id, type", "entry_id"],
  ] as const;
  return layouts
    .filter(([base, index, columns, id]) => {
      const watermark = `(SELECT indexed_through FROM exchange_user_index_watermarks WHERE table_name = '${base}')`;
      const indexed = `SELECT ${columns} FROM ${base} WHERE ${id} <= ${watermark}`;
      const differences = db
        .prepare(
          `SELECT count(*) FROM (SELECT * FROM (${indexed} EXCEPT SELECT ${columns} FROM ${index})
             UNION ALL SELECT * FROM (SELECT ${columns} FROM ${index} EXCEPT ${indexed}))`,
        )
        .pluck()
        .get() as number;
      return differences !== 0;
    })
    .map(([base, index]) => `${index} does not index ${base} up to its watermark`);
}
