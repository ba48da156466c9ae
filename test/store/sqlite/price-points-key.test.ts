// Migration 8 of the exchange read models: price points keyed (option, time, trade). The points
// written before it are all there after it, in the same order, and both queries that read them
// search the key itself (no second B-tree left to write).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyMigrations, openDatabase } from "../../../src/store/sqlite/database.js";
import { exchangeReadModelMigrations } from "../../../src/store/sqlite/exchange-read-models.js";

const pointsInOrder = "SELECT * FROM exchange_price_points ORDER BY option_id, time_ms, trade_id";

describe("price points keyed by option and time", () => {
  it("keeps every point written before the migration and serves both queries from the key", () => {
    const db = openDatabase({ path: ":memory:" });
    applyMigrations(db, "exchange", exchangeReadModelMigrations.slice(0, 7));
    const insert = db.prepare(
      "INSERT INTO exchange_price_points (option_id, time_ms, trade_id, market_id, outcome_id, price) VALUES (?, ?, ?, 1, 1, ?)",
    );
    for (let trade = 1; trade <= 50; trade += 1) {
      insert.run(1, 1_000 + Math.floor(trade / 3), trade, 40_000_000 + trade);
      insert.run(2, 1_000 + Math.floor(trade / 3), trade, 60_000_000 - trade);
    }
    const before = db.prepare(pointsInOrder).raw().all();
    applyMigrations(db, "exchange", exchangeReadModelMigrations);
    assert.deepEqual(db.prepare(pointsInOrder).raw().all(), before);

    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'exchange_price_points'")
      .pluck()
      .all();
    // A WITHOUT ROWID table is its key: no index of its own is listed.
    assert.deepEqual(indexes, []);
    const plan = (sql: string, ...params: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map(
        (row) => row.detail,
      );
    assert.deepEqual(
      plan(
        "SELECT * FROM exchange_price_points WHERE option_id = ? AND time_ms BETWEEN ? AND ? ORDER BY time_ms, trade_id LIMIT ?",
        1,
        0,
        2_000,
        10,
      ),
      ["SEARCH exchange_price_points USING PRIMARY KEY (option_id=? AND time_ms>? AND time_ms<?)"],
    );
    assert.deepEqual(
      plan(
        "SELECT * FROM exchange_price_points WHERE option_id = ? ORDER BY time_ms DESC, trade_id DESC LIMIT ?",
        1,
        10,
      ),
      ["SEARCH exchange_price_points USING PRIMARY KEY (option_id=?)"],
    );
  });
});
