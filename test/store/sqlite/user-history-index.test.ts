// The user histories indexed in bulk (migration 6): every page and total equals what a plain query
// of the table gives, whatever the lag between the rows and their user index; every query is an
// index search in newest-first order; and the migration indexes the rows that existed before it.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type LedgerEntryType, ledgerEntryTypes } from "../../../src/store/exchange-read-models.js";
import { applyMigrations, openDatabase, type SqliteDatabase } from "../../../src/store/sqlite/database.js";
import {
  createSqliteExchangeReadModels,
  exchangeReadModelMigrations,
  nonTradingLedgerCondition,
  rareLedgerTypeWhere,
} from "../../../src/store/sqlite/exchange-read-models.js";
import {
  createUserHistoryIndexer,
  createUserHistoryReader,
  type UserHistoryTable,
} from "../../../src/store/sqlite/user-history-index.js";

const tradingTypes: readonly LedgerEntryType[] = ["FREEZE", "UNFREEZE", "TRADE", "FEE"];
const idColumn: Record<UserHistoryTable, string> = {
  exchange_orders: "order_id",
  exchange_trades: "trade_id",
  exchange_ledger: "entry_id",
};

function migratedDatabase(migrations = exchangeReadModelMigrations): SqliteDatabase {
  const db = openDatabase({ path: ":memory:" });
  applyMigrations(db, "exchange", migrations);
  return db;
}

/** Inserts one order, its trade side and one ledger entry, all with id `id`. */
function rowWriter(db: SqliteDatabase) {
  const order =
    db.prepare(`INSERT INTO exchange_orders (order_id, user_id, market_id, outcome_id, option_id, side,
      order_type, time_in_force, filled_shares, filled_amount, fee_paid, status, created_at_ms, updated_at_ms)
    VALUES (?, ?, ?, 4, 5, 'BUY', 'LIMIT', 'GTC', 0, 0, 0, 'OPEN', 1, 1)`);
  const trade =
    db.prepare(`INSERT INTO exchange_trades (trade_id, role, order_id, user_id, market_id, outcome_id,
      option_id, side, cross_type, price, shares, fee, time_ms) VALUES (?, ?, ?, ?, ?, 4, 5, 'BUY', 'MINT', 1, 1, 0, 1)`);
  const entry = db.prepare(`INSERT INTO exchange_ledger (entry_id, user_id, type, amount, frozen_delta,
      available_after, frozen_after, ref_id, time_ms) VALUES (?, ?, ?, 1, 0, 0, 0, 'x', 1)`);
  return (row: {
    id: number;
    userId: number;
    marketId: number;
    role: string;
    type: LedgerEntryType;
    /** The other side of the trade, as the engine writes it: the same trade id, the other role. */
    counterpartyId?: number | undefined;
  }) => {
    order.run(row.id, row.userId, row.marketId);
    trade.run(row.id, row.role, row.id, row.userId, row.marketId);
    // Never the same user on both sides: self-trade prevention cancels the resting order instead.
    if (row.counterpartyId !== undefined && row.counterpartyId !== row.userId) {
      trade.run(row.id, row.role === "MAKER" ? "TAKER" : "MAKER", row.id, row.counterpartyId, row.marketId);
    }
    entry.run(row.id, row.userId, row.type);
  };
}

/** The same page by a plain query of the table: what the bulk index must reproduce. */
function plainPage(
  db: SqliteDatabase,
  table: UserHistoryTable,
  filter: { userId: number; marketId?: number | undefined; type?: LedgerEntryType | undefined },
  limit: number,
  offset: number,
): { ids: number[]; total: number } {
  const conditions = ["user_id = ?"];
  const params: unknown[] = [filter.userId];
  if (filter.marketId !== undefined) {
    conditions.push("market_id = ?");
    params.push(filter.marketId);
  }
  if (filter.type !== undefined) {
    conditions.push("type = ?");
    params.push(filter.type);
  }
  const where = conditions.join(" AND ");
  const id = idColumn[table];
  return {
    ids: db
      .prepare(`SELECT ${id} FROM ${table} WHERE ${where} ORDER BY ${id} DESC LIMIT ? OFFSET ?`)
      .pluck()
      .all(...params, limit, offset) as number[],
    total: db
      .prepare(`SELECT count(*) FROM ${table} WHERE ${where}`)
      .pluck()
      .get(...params) as number,
  };
}

describe("user history index", () => {
  it("pages and totals equal a plain query of the table at any lag between rows and index", () => {
    const rowArbitrary = fc.record({
      userId: fc.integer({ min: 1, max: 4 }),
      marketId: fc.integer({ min: 1, max: 3 }),
      role: fc.constantFrom("MAKER", "TAKER"),
      // Every type, so an unfiltered history mixes the rare ones in.
      type: fc.constantFrom(...ledgerEntryTypes),
      counterpartyId: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
      /** The batch ends after this row: the indexer runs. */
      endsBatch: fc.boolean(),
    });
    const queryArbitrary = fc.record({
      table: fc.constantFrom<UserHistoryTable>("exchange_orders", "exchange_trades", "exchange_ledger"),
      userId: fc.integer({ min: 1, max: 4 }),
      marketId: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
      type: fc.option(fc.constantFrom(...tradingTypes), { nil: undefined }),
      limit: fc.integer({ min: 1, max: 7 }),
      offset: fc.integer({ min: 0, max: 30 }),
    });
    fc.assert(
      fc.property(
        fc.array(rowArbitrary, { maxLength: 60 }),
        fc.integer({ min: 1, max: 9 }),
        fc.array(queryArbitrary, { minLength: 1, maxLength: 12 }),
        (rows, lag, queries) => {
          const db = migratedDatabase();
          const write = rowWriter(db);
          const indexUserHistory = createUserHistoryIndexer(db, lag);
          const read = createUserHistoryReader(db);
          rows.forEach((row, index) => {
            write({ ...row, id: index + 1 });
            if (row.endsBatch) indexUserHistory();
          });
          for (const query of queries) {
            const filter = {
              userId: query.userId,
              // Orders and trades have a market and no type; the ledger a type and no market.
              marketId: query.table === "exchange_ledger" ? undefined : query.marketId,
              type: query.table === "exchange_ledger" ? query.type : undefined,
            };
            const found = read(query.table, filter, { limit: query.limit, offset: query.offset });
            const expected = plainPage(db, query.table, filter, query.limit, query.offset);
            assert.deepEqual(
              found.rows.map((row) => Number(row[idColumn[query.table]])),
              expected.ids,
            );
            assert.equal(found.total, expected.total);
          }
          db.close();
        },
      ),
      { numRuns: 150 },
    );
  });

  it("indexes a table only once it runs the lag past its watermark, and then all of it", () => {
    const db = migratedDatabase();
    const write = rowWriter(db);
    const indexUserHistory = createUserHistoryIndexer(db, 3);
    const indexed = () => db.prepare("SELECT count(*) FROM exchange_orders_of_user").pluck().get();
    const watermark = () =>
      db
        .prepare(
          "SELECT indexed_through FROM exchange_user_index_watermarks WHERE table_name = 'exchange_orders'",
        )
        .pluck()
        .get();
    for (const id of [1, 2]) write({ id, userId: 1, marketId: 1, role: "TAKER", type: "FEE" });
    indexUserHistory();
    assert.equal(indexed(), 0);
    write({ id: 3, userId: 2, marketId: 1, role: "TAKER", type: "FEE" });
    indexUserHistory();
    assert.equal(indexed(), 3);
    assert.equal(watermark(), 3);
  });

  it("takes the watermark from the table, so a rolled-back bulk step leaves nothing unindexed", () => {
    const db = migratedDatabase();
    const write = rowWriter(db);
    const indexUserHistory = createUserHistoryIndexer(db, 3);
    const read = createUserHistoryReader(db);
    const row = (id: number) => ({
      id,
      userId: 1 + (id % 2),
      marketId: 1,
      role: "TAKER",
      type: "FEE" as const,
    });
    for (const id of [1, 2]) write(row(id));
    indexUserHistory();
    // A batch writes id 3, runs the bulk step (ids 1–3), and then fails: all of it rolls back.
    assert.throws(
      db.transaction(() => {
        write(row(3));
        indexUserHistory();
        throw new Error("a later projector failed");
      }),
      /a later projector failed/,
    );
    for (const id of [3, 4, 5, 6, 7]) {
      db.transaction(() => {
        write(row(id));
        indexUserHistory();
      })();
    }
    for (const table of ["exchange_orders", "exchange_trades", "exchange_ledger"] as const) {
      for (const userId of [1, 2]) {
        const found = read(table, { userId }, { limit: 10, offset: 0 });
        assert.deepEqual(
          found.rows.map((found) => Number(found[idColumn[table]])),
          plainPage(db, table, { userId }, 10, 0).ids,
          `${table}, user ${userId}`,
        );
      }
    }
    assert.equal(db.prepare("SELECT count(*) FROM exchange_orders_of_user").pluck().get(), 6);
  });

  describe("query plans", () => {
    const db = migratedDatabase();
    const plan = (sql: string): string => {
      const params = Array.from(sql.matchAll(/\?/g), () => 1);
      return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
        .map((row) => row.detail)
        .join("; ");
    };

    it("searches by id range or by user, never scans a table, never sorts", () => {
      const captured = capturedStatements(db);
      assert.ok(captured.length >= 16, `captured ${captured.length} statements`);
      for (const sql of captured) {
        const found = plan(sql);
        assert.doesNotMatch(found, /\bSCAN\b/, `${sql}\n${found}`);
        assert.doesNotMatch(found, /TEMP B-TREE/, `${sql}\n${found}`);
      }
    });

    it("finds a rare ledger type by its partial index, written as migration 5 wrote it", () => {
      const sql = db
        .prepare("SELECT sql FROM sqlite_master WHERE name = 'exchange_ledger_non_trading_by_user'")
        .pluck()
        .get() as string;
      assert.ok(sql.endsWith(`WHERE ${nonTradingLedgerCondition}`), sql);
      for (const query of [
        `SELECT * FROM exchange_ledger WHERE ${rareLedgerTypeWhere} ORDER BY entry_id DESC LIMIT 20`,
        `SELECT count(*) FROM exchange_ledger WHERE ${rareLedgerTypeWhere}`,
      ]) {
        const found = (db.prepare(`EXPLAIN QUERY PLAN ${query}`).all(7, "DEPOSIT") as { detail: string }[])
          .map((row) => row.detail)
          .join("; ");
        assert.match(found, /USING (COVERING )?INDEX exchange_ledger_non_trading_by_user/);
        assert.doesNotMatch(found, /TEMP B-TREE/);
      }
    });
  });

  it("migration 6 indexes every row written before it, so the histories read the same", async () => {
    const db = migratedDatabase(exchangeReadModelMigrations.slice(0, 5));
    const write = rowWriter(db);
    const rows = Array.from({ length: 30 }, (_unused, offset) => {
      const id = offset + 1;
      const type: LedgerEntryType = ["FREEZE", "TRADE", "FEE", "DEPOSIT"][id % 4] as LedgerEntryType;
      return {
        id,
        userId: 1 + (id % 2),
        marketId: 1 + (id % 3),
        role: id % 4 === 0 ? "MAKER" : "TAKER",
        type,
      };
    });
    for (const row of rows) write(row);
    const readModels = createSqliteExchangeReadModels(db);
    const page = { page: 1, pageSize: 100 };
    const newestIds = (keep: (row: (typeof rows)[number]) => boolean): number[] =>
      rows
        .filter(keep)
        .map((row) => row.id)
        .reverse();

    const orders = await readModels.orders({ userId: 2, marketId: 2 }, page);
    assert.deepEqual(
      orders.records.map((order) => order.orderId),
      newestIds((row) => row.userId === 2 && row.marketId === 2),
    );
    const trades = await readModels.trades({ userId: 1 }, page);
    assert.deepEqual(
      trades.records.map((trade) => [trade.tradeId, trade.role]),
      rows
        .filter((row) => row.userId === 1)
        .reverse()
        .map((row) => [row.id, row.role]),
    );
    for (const type of ledgerEntryTypes) {
      const entries = await readModels.ledger(2, page, { type });
      assert.deepEqual(
        entries.records.map((entry) => entry.entryId),
        newestIds((row) => row.userId === 2 && row.type === type),
        type,
      );
    }
    const all = await readModels.ledger(1, page);
    assert.deepEqual(
      all.records.map((entry) => entry.entryId),
      newestIds((row) => row.userId === 1),
    );
    assert.equal(all.total, 15);
  });
});

/** Every statement the reader prepares, for every table and filter, captured from db.prepare. */
function capturedStatements(db: SqliteDatabase): string[] {
  const captured: string[] = [];
  const prepare = db.prepare.bind(db);
  const spy = ((sql: string) => {
    captured.push(sql);
    return prepare(sql);
  }) as typeof db.prepare;
  const read = createUserHistoryReader(Object.assign(Object.create(db), { prepare: spy }) as SqliteDatabase);
  for (const table of ["exchange_orders", "exchange_trades", "exchange_ledger"] as const) {
    for (const marketId of table === "exchange_ledger" ? [undefined] : [undefined, 3]) {
      for (const type of table === "exchange_ledger" ? [undefined, "FEE" as const] : [undefined]) {
        read(table, { userId: 7, marketId, type }, { limit: 10, offset: 0 });
      }
    }
  }
  return captured.filter((sql) => /exchange_(orders|trades|ledger)/.test(sql));
}
