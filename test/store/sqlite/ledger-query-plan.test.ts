// The ledger's history queries stay index searches after migration 5 folded the user's two ledger
// indexes into one: no filter and a trading type use the user's index (with the type in it), a rare
// type its partial index. A full scan of the ledger here would grow with every trade on the platform.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ledgerEntryTypes } from "../../../src/store/exchange-read-models.js";
import { openDatabase } from "../../../src/store/sqlite/database.js";
import {
  createSqliteExchangeProjector,
  ledgerFilterWhere,
  nonTradingLedgerCondition,
} from "../../../src/store/sqlite/exchange-read-models.js";

describe("ledger history query plans", () => {
  const db = openDatabase({ path: ":memory:" });
  createSqliteExchangeProjector(db);
  const plan = (sql: string, params: unknown[]): string =>
    (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
      .map((row) => row.detail)
      .join("; ");

  it("repeats the partial index's WHERE exactly as migration 5 created it", () => {
    const sql = db
      .prepare("SELECT sql FROM sqlite_master WHERE name = 'exchange_ledger_non_trading_by_user'")
      .pluck()
      .get() as string;
    assert.ok(sql.endsWith(`WHERE ${nonTradingLedgerCondition}`), sql);
  });

  for (const type of [undefined, ...ledgerEntryTypes]) {
    it(`searches an index for ${type ?? "no type filter"}, for the page and the count`, () => {
      const where = ledgerFilterWhere(type);
      const params = type === undefined ? [7] : [7, type];
      const expectedIndex =
        type === undefined || ["FREEZE", "UNFREEZE", "TRADE", "FEE"].includes(type)
          ? "exchange_ledger_by_user_with_type"
          : "exchange_ledger_non_trading_by_user";
      const page = plan(
        `SELECT * FROM exchange_ledger WHERE ${where} ORDER BY entry_id DESC LIMIT 20`,
        params,
      );
      const count = plan(`SELECT count(*) FROM exchange_ledger WHERE ${where}`, params);
      for (const found of [page, count]) {
        assert.match(found, new RegExp(`SEARCH exchange_ledger USING (COVERING )?INDEX ${expectedIndex}`));
        assert.doesNotMatch(found, /TEMP B-TREE/, "no sort: the index gives entry_id order");
      }
    });
  }
});
