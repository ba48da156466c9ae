// A user's orders, trades and ledger entries, newest first, without a user-keyed SQLite index on
// the commit path.
//
// Why: an ordinary index on (user_id, id) puts every row on its user's own page, so a commit dirties
// one page per user it touches, in each such index: two thirds of an order's WAL frames, and a
// third of the create-order throughput. Here the tables are written in id order only (their tail
// page), and each user's rows are added to a user-keyed table (`…_of_user`) in bulk, once a table has
// run `userHistoryIndexLagIdsMax` ids past its watermark: one bulk step dirties a user's page once for
// all of that user's rows since the last step, instead of once per commit.
//
// Reading: the rows past the watermark (the "tail", at most the lag bound) are found by scanning
// the table's id range, and everything older by the user-keyed table. Every tail id is above every
// indexed id, so a page of the newest-first listing is the tail's part followed by the indexed part.
//
// Ids are issued in increasing order (the core's counters, SQLite's rowid for the ledger), so a row
// is never written below a watermark. The bulk step runs inside a batch's transaction: the user
// tables and watermarks are always exactly as consistent as the rows they index.

import type { Statement } from "better-sqlite3";
import type { LedgerEntryType } from "../exchange-read-models.js";
import type { SqliteDatabase } from "./database.js";

/**
 * Ids a table may run past its watermark before the next batch indexes them by user (each id is one
 * row, or a trade's two sides).
 */
export const userHistoryIndexLagIdsMax = 2048;

/**
 * Migration 6 of the exchange read models: the user-keyed tables, filled with every row so far, and
 * the watermarks; the ordinary user indexes they replace are dropped. Open orders keep their
 * partial index and the rare ledger types theirs: both are small, and written synchronously.
 */
export const userHistoryIndexMigration = `CREATE TABLE exchange_orders_of_user (
     user_id INTEGER NOT NULL,
     order_id INTEGER NOT NULL,
     PRIMARY KEY (user_id, order_id)
   ) STRICT, WITHOUT ROWID;
   CREATE TABLE exchange_trades_of_user (
     user_id INTEGER NOT NULL,
     trade_id INTEGER NOT NULL,
     role TEXT NOT NULL,
     PRIMARY KEY (user_id, trade_id, role)
   ) STRICT, WITHOUT ROWID;
   CREATE TABLE exchange_ledger_of_user (
     user_id INTEGER NOT NULL,
     entry_id INTEGER NOT NULL,
     type TEXT NOT NULL,
     PRIMARY KEY (user_id, entry_id)
   ) STRICT, WITHOUT ROWID;
   CREATE TABLE exchange_user_index_watermarks (
     table_name TEXT PRIMARY KEY,
     indexed_through INTEGER NOT NULL
   ) STRICT;
   INSERT INTO exchange_orders_of_user SELECT user_id, order_id FROM exchange_orders ORDER BY user_id, order_id;
   INSERT INTO exchange_trades_of_user SELECT user_id, trade_id, role FROM exchange_trades
     ORDER BY user_id, trade_id, role;
   INSERT INTO exchange_ledger_of_user SELECT user_id, entry_id, type FROM exchange_ledger ORDER BY user_id, entry_id;
   INSERT INTO exchange_user_index_watermarks VALUES
     ('exchange_orders', (SELECT coalesce(max(order_id), 0) FROM exchange_orders)),
     ('exchange_trades', (SELECT coalesce(max(trade_id), 0) FROM exchange_trades)),
     ('exchange_ledger', (SELECT coalesce(max(entry_id), 0) FROM exchange_ledger));
   DROP INDEX exchange_orders_by_user;
   DROP INDEX exchange_trades_by_user;
   DROP INDEX exchange_ledger_by_user_with_type;`;

export type UserHistoryTable = "exchange_orders" | "exchange_trades" | "exchange_ledger";

/** How each table is found by user: its id column, the user table, and how that table joins back. */
const layouts: Record<
  UserHistoryTable,
  { readonly id: string; readonly userTable: string; readonly userColumns: string; readonly join: string }
> = {
  exchange_orders: {
    id: "order_id",
    userTable: "exchange_orders_of_user",
    userColumns: "user_id, order_id",
    join: "r.order_id = u.order_id",
  },
  exchange_trades: {
    id: "trade_id",
    userTable: "exchange_trades_of_user",
    userColumns: "user_id, trade_id, role",
    join: "r.trade_id = u.trade_id AND r.role = u.role",
  },
  exchange_ledger: {
    id: "entry_id",
    userTable: "exchange_ledger_of_user",
    userColumns: "user_id, entry_id, type",
    join: "r.entry_id = u.entry_id",
  },
};

const tables = Object.keys(layouts) as UserHistoryTable[];

/** Every id of a table up to its watermark is in its user table. */
function prepareWatermark(db: SqliteDatabase): Statement<[string], number> {
  return db
    .prepare<[string], number>(
      "SELECT indexed_through FROM exchange_user_index_watermarks WHERE table_name = ?",
    )
    .pluck();
}

/**
 * Indexes by user whatever table has run `lagIdsMax` ids past its watermark (tests lower it).
 * Call it at the end of each batch, inside its transaction, after every row of the batch is written.
 */
export function createUserHistoryIndexer(
  db: SqliteDatabase,
  lagIdsMax: number = userHistoryIndexLagIdsMax,
): () => void {
  const watermark = prepareWatermark(db);
  const setWatermark = db.prepare<[number, string]>(
    "UPDATE exchange_user_index_watermarks SET indexed_through = ? WHERE table_name = ?",
  );
  const steps = tables.map((table) => {
    const { id, userTable, userColumns } = layouts[table];
    return {
      table,
      highestId: db.prepare<[], number>(`SELECT coalesce(max(${id}), 0) FROM ${table}`).pluck(),
      // Sorted by user, so each user's page is visited once, its rows appended in one pass.
      indexRange: db.prepare<[number, number]>(
        `INSERT INTO ${userTable} SELECT ${userColumns} FROM ${table}
         WHERE ${id} > ? AND ${id} <= ? ORDER BY user_id, ${id}`,
      ),
    };
  });
  return () => {
    for (const step of steps) {
      // Read in the batch's own transaction, not kept in memory: a batch that rolls back after its
      // bulk step must leave the next batch the watermark the table really has.
      const through = watermark.get(step.table)!;
      const highest = step.highestId.get()!;
      if (highest - through < lagIdsMax) continue;
      step.indexRange.run(through, highest);
      setWatermark.run(highest, step.table);
    }
  };
}

/** Which rows of a user to list: of one market (a column of the table), of one kind. */
export interface UserHistoryFilter {
  readonly userId: number;
  readonly marketId?: number | undefined;
  /** A ledger entry's type (exchange_ledger only). */
  readonly type?: LedgerEntryType | undefined;
}

type Row = Record<string, unknown>;

interface PreparedHistory {
  readonly tailCount: Statement;
  readonly tailPage: Statement;
  readonly indexedCount: Statement;
  readonly indexedPage: Statement;
}

/**
 * Reads a user's rows of one table, newest first, a page at a time: the tail by the table's id
 * range, then the indexed rows by the user table. `total` counts both.
 */
export function createUserHistoryReader(db: SqliteDatabase) {
  const prepared = new Map<string, PreparedHistory>();
  const watermark = prepareWatermark(db);

  const prepare = (table: UserHistoryTable, filter: UserHistoryFilter): PreparedHistory => {
    const { id, userTable, join } = layouts[table];
    const byMarket = filter.marketId !== undefined;
    const byType = filter.type !== undefined;
    const key = `${table}|${byMarket}|${byType}`;
    let statements = prepared.get(key);
    if (statements !== undefined) return statements;
    const rowConditions = [byMarket ? "r.market_id = ?" : "", byType ? "r.type = ?" : ""].filter(Boolean);
    const tailWhere = ["r.user_id = ?", `r.${id} > ?`, ...rowConditions].join(" AND ");
    // The user table holds the type, so a type filter alone never reads the table; a market does.
    // Both WHEREs take their parameters in the same order: user, (id,) market, type.
    const indexedWhere = ["u.user_id = ?", byMarket ? "r.market_id = ?" : "", byType ? "u.type = ?" : ""]
      .filter(Boolean)
      .join(" AND ");
    const indexedFrom = `${userTable} u JOIN ${table} r ON ${join}`;
    statements = {
      tailCount: db.prepare(`SELECT count(*) FROM ${table} r WHERE ${tailWhere}`).pluck(),
      tailPage: db
        .prepare(`SELECT r.* FROM ${table} r WHERE ${tailWhere} ORDER BY r.${id} DESC LIMIT ? OFFSET ?`)
        .safeIntegers(true),
      indexedCount: db
        .prepare(`SELECT count(*) FROM ${byMarket ? indexedFrom : `${userTable} u`} WHERE ${indexedWhere}`)
        .pluck(),
      indexedPage: db
        .prepare(
          `SELECT r.* FROM ${indexedFrom} WHERE ${indexedWhere} ORDER BY u.${id} DESC LIMIT ? OFFSET ?`,
        )
        .safeIntegers(true),
    };
    prepared.set(key, statements);
    return statements;
  };

  return function userHistory(
    table: UserHistoryTable,
    filter: UserHistoryFilter,
    page: { readonly limit: number; readonly offset: number },
  ): { rows: Row[]; total: number } {
    const statements = prepare(table, filter);
    const through = watermark.get(table)!;
    const conditions = [
      ...(filter.marketId === undefined ? [] : [filter.marketId]),
      ...(filter.type === undefined ? [] : [filter.type]),
    ];
    const tailParams = [filter.userId, through, ...conditions];
    const indexedParams = [filter.userId, ...conditions];
    const tailTotal = statements.tailCount.get(...tailParams) as number;
    const indexedTotal = statements.indexedCount.get(...indexedParams) as number;
    const total = tailTotal + indexedTotal;
    const rows: Row[] = [];
    if (page.offset < tailTotal) {
      rows.push(...(statements.tailPage.all(...tailParams, page.limit, page.offset) as Row[]));
    }
    const wanted = page.limit - rows.length;
    if (wanted > 0 && page.offset + rows.length < total) {
      const indexedOffset = Math.max(0, page.offset - tailTotal);
      rows.push(...(statements.indexedPage.all(...indexedParams, wanted, indexedOffset) as Row[]));
    }
    return { rows, total };
  };
}
