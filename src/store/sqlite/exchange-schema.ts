// The exchange read models' tables in the embedded SQLite file (module "exchange"): the migrations,
// and the partial-index condition that queries repeat word for word. The projector that fills the
// tables is exchange-read-models.ts; the queries that read them, exchange-read-model-queries.ts.

import type { LedgerEntryType } from "../exchange-read-models.js";
import { userHistoryIndexMigration } from "./user-history-index.js";

/** The ledger entries an order's life writes; every other type is rare and has a partial index. */
export const tradingLedgerTypes: readonly LedgerEntryType[] = ["FREEZE", "UNFREEZE", "TRADE", "FEE"];
/**
 * The partial index's WHERE (migration 5, which spells it out: an applied migration never changes),
 * repeated word for word in a query so SQLite knows it may use the index. A test holds the two equal.
 */
export const nonTradingLedgerCondition = "type NOT IN ('FREEZE', 'UNFREEZE', 'TRADE', 'FEE')";

export const exchangeReadModelMigrations: readonly string[] = [
  `CREATE TABLE markets (
     market_id INTEGER PRIMARY KEY,
     title TEXT NOT NULL,
     model_type TEXT NOT NULL,
     status TEXT NOT NULL,
     category_id TEXT,
     description TEXT NOT NULL,
     rules TEXT NOT NULL,
     tags TEXT NOT NULL,
     creator_id INTEGER,
     start_time_ms INTEGER,
     end_time_ms INTEGER,
     created_at_ms INTEGER NOT NULL,
     opened_at_ms INTEGER,
     closed_at_ms INTEGER,
     volume INTEGER NOT NULL DEFAULT 0,
     fee_income INTEGER NOT NULL DEFAULT 0,
     details TEXT
   ) STRICT;
   CREATE TABLE market_outcomes (
     outcome_id INTEGER PRIMARY KEY,
     market_id INTEGER NOT NULL,
     name TEXT NOT NULL
   ) STRICT;
   CREATE INDEX market_outcomes_by_market ON market_outcomes (market_id, outcome_id);
   CREATE TABLE market_options (
     option_id INTEGER PRIMARY KEY,
     outcome_id INTEGER NOT NULL,
     market_id INTEGER NOT NULL,
     option_index INTEGER NOT NULL,
     title TEXT NOT NULL,
     asset_id TEXT NOT NULL UNIQUE
   ) STRICT;
   CREATE INDEX market_options_by_outcome ON market_options (outcome_id, option_index);
   CREATE TABLE exchange_orders (
     order_id INTEGER PRIMARY KEY,
     user_id INTEGER NOT NULL,
     market_id INTEGER NOT NULL,
     outcome_id INTEGER NOT NULL,
     option_id INTEGER NOT NULL,
     side TEXT NOT NULL,
     order_type TEXT NOT NULL,
     time_in_force TEXT NOT NULL,
     limit_price INTEGER,
     shares INTEGER,
     amount INTEGER,
     filled_shares INTEGER NOT NULL,
     filled_amount INTEGER NOT NULL,
     fee_paid INTEGER NOT NULL,
     status TEXT NOT NULL,
     client_order_id TEXT,
     expires_at_ms INTEGER,
     created_at_ms INTEGER NOT NULL,
     updated_at_ms INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX exchange_orders_by_user ON exchange_orders (user_id, order_id);
   CREATE INDEX exchange_orders_open_by_user ON exchange_orders (user_id, order_id)
     WHERE status IN ('OPEN', 'PARTIALLY_FILLED');
   CREATE TABLE exchange_trades (
     trade_id INTEGER NOT NULL,
     role TEXT NOT NULL,
     order_id INTEGER NOT NULL,
     user_id INTEGER NOT NULL,
     market_id INTEGER NOT NULL,
     outcome_id INTEGER NOT NULL,
     option_id INTEGER NOT NULL,
     side TEXT NOT NULL,
     cross_type TEXT NOT NULL,
     price INTEGER NOT NULL,
     shares INTEGER NOT NULL,
     fee INTEGER NOT NULL,
     time_ms INTEGER NOT NULL,
     PRIMARY KEY (trade_id, role)
   ) STRICT, WITHOUT ROWID;
   CREATE INDEX exchange_trades_by_user ON exchange_trades (user_id, trade_id);
   CREATE INDEX exchange_trades_by_order ON exchange_trades (order_id, trade_id);
   CREATE TABLE exchange_balances (
     user_id INTEGER PRIMARY KEY,
     available INTEGER NOT NULL,
     frozen INTEGER NOT NULL
   ) STRICT;
   CREATE TABLE exchange_ledger (
     entry_id INTEGER PRIMARY KEY,
     user_id INTEGER NOT NULL,
     type TEXT NOT NULL,
     amount INTEGER NOT NULL,
     frozen_delta INTEGER NOT NULL,
     available_after INTEGER NOT NULL,
     frozen_after INTEGER NOT NULL,
     ref_id TEXT NOT NULL,
     time_ms INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX exchange_ledger_by_user ON exchange_ledger (user_id, entry_id);
   CREATE TABLE exchange_positions (
     position_id INTEGER PRIMARY KEY,
     user_id INTEGER NOT NULL,
     market_id INTEGER NOT NULL,
     outcome_id INTEGER NOT NULL,
     option_id INTEGER NOT NULL,
     shares INTEGER NOT NULL,
     frozen_shares INTEGER NOT NULL,
     cost INTEGER NOT NULL,
     realized_pnl INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX exchange_positions_by_user ON exchange_positions (user_id, market_id, position_id);
   CREATE TABLE exchange_price_points (
     option_id INTEGER NOT NULL,
     time_ms INTEGER NOT NULL,
     trade_id INTEGER NOT NULL,
     market_id INTEGER NOT NULL,
     outcome_id INTEGER NOT NULL,
     price INTEGER NOT NULL,
     PRIMARY KEY (option_id, trade_id)
   ) STRICT, WITHOUT ROWID;
   CREATE INDEX exchange_price_points_by_time ON exchange_price_points (option_id, time_ms);
   CREATE TABLE exchange_deposits (
     tx_hash TEXT PRIMARY KEY,
     user_id INTEGER NOT NULL,
     amount INTEGER NOT NULL,
     credited_at_ms INTEGER NOT NULL
   ) STRICT;`,
  // 2: the market lifecycle (resolution, challenge, settlement, void) and claims.
  `ALTER TABLE markets ADD COLUMN resolved_at_ms INTEGER;
   ALTER TABLE markets ADD COLUMN challenge_window_ends_at_ms INTEGER;
   ALTER TABLE markets ADD COLUMN challenge_bond INTEGER;
   ALTER TABLE markets ADD COLUMN challenged INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE markets ADD COLUMN settled_at_ms INTEGER;
   ALTER TABLE markets ADD COLUMN voided_at_ms INTEGER;
   ALTER TABLE market_options ADD COLUMN proposed_win INTEGER;
   ALTER TABLE market_options ADD COLUMN is_win INTEGER;
   ALTER TABLE exchange_positions ADD COLUMN status TEXT NOT NULL DEFAULT 'open';
   ALTER TABLE exchange_positions ADD COLUMN claimable INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE exchange_positions ADD COLUMN claimed_amount INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE exchange_positions ADD COLUMN claimed_at_ms INTEGER;
   ALTER TABLE exchange_positions ADD COLUMN claim_transaction_id TEXT;
   CREATE INDEX exchange_positions_by_user_status ON exchange_positions (user_id, status, position_id);
   CREATE TABLE market_challenges (
     market_id INTEGER PRIMARY KEY,
     user_id INTEGER NOT NULL,
     bond INTEGER NOT NULL,
     reason TEXT NOT NULL,
     challenged_at_ms INTEGER NOT NULL,
     bond_outcome TEXT,
     bond_outcome_at_ms INTEGER
   ) STRICT;`,
  // 3: withdrawals (every status, for the history), and the indexes of the wallet's histories.
  `CREATE TABLE exchange_withdrawals (
     withdrawal_id INTEGER PRIMARY KEY,
     user_id INTEGER NOT NULL,
     amount INTEGER NOT NULL,
     fee INTEGER NOT NULL,
     address TEXT NOT NULL,
     status TEXT NOT NULL,
     requested_at_ms INTEGER NOT NULL,
     updated_at_ms INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX exchange_withdrawals_by_user ON exchange_withdrawals (user_id, withdrawal_id);
   CREATE INDEX exchange_deposits_by_user ON exchange_deposits (user_id, credited_at_ms);
   CREATE INDEX exchange_ledger_by_user_type ON exchange_ledger (user_id, type, entry_id);`,
  // 4: the operator's review of withdrawals by status (GET /admin/withdrawals?status=PENDING).
  "CREATE INDEX exchange_withdrawals_by_status ON exchange_withdrawals (status, withdrawal_id);",
  // 5: one user-keyed ledger index on the trading path instead of two (each is a scattered page
  // write per user per commit, ~20% of create-order throughput): the user's index carries the type,
  // so a filter on a trading type reads it without touching the table, and the rare types (deposits,
  // withdrawals, bonds, claims) keep their own partial index, which trading never writes.
  `DROP INDEX exchange_ledger_by_user_type;
   DROP INDEX exchange_ledger_by_user;
   CREATE INDEX exchange_ledger_by_user_with_type ON exchange_ledger (user_id, entry_id, type);
   CREATE INDEX exchange_ledger_non_trading_by_user ON exchange_ledger (user_id, type, entry_id)
     WHERE type NOT IN ('FREEZE', 'UNFREEZE', 'TRADE', 'FEE');`,
  // 6: a user's orders, trades and ledger entries indexed by user in bulk, off the commit path.
  userHistoryIndexMigration,
  // 7: exclusive (negative-risk) markets, DESIGN §10: 1 for a market whose outcomes exclude each other.
  "ALTER TABLE markets ADD COLUMN exclusive INTEGER NOT NULL DEFAULT 0;",
  // 8: price points keyed the way they are read, by option and time (the price history's time
  // range, the console's latest trades): the index by time held exactly what the old key
  // (option_id, trade_id) held, so every point was written to two B-trees of the same rows and the
  // old key served no query (EXPLAIN QUERY PLAN: docs/performance.md, issue #31 cheaper writes).
  // A trade has one time, so (option, time, trade) is as unique as (option, trade) was.
  `CREATE TABLE exchange_price_points_rekeyed (
     option_id INTEGER NOT NULL,
     time_ms INTEGER NOT NULL,
     trade_id INTEGER NOT NULL,
     market_id INTEGER NOT NULL,
     outcome_id INTEGER NOT NULL,
     price INTEGER NOT NULL,
     PRIMARY KEY (option_id, time_ms, trade_id)
   ) STRICT, WITHOUT ROWID;
   INSERT INTO exchange_price_points_rekeyed (option_id, time_ms, trade_id, market_id, outcome_id, price)
     SELECT option_id, time_ms, trade_id, market_id, outcome_id, price FROM exchange_price_points
     ORDER BY option_id, time_ms, trade_id;
   DROP TABLE exchange_price_points;
   ALTER TABLE exchange_price_points_rekeyed RENAME TO exchange_price_points;`,
];

/** True for the types an order's life writes, which the user history tables serve (migration 6). */
export function isTradingLedgerType(type: LedgerEntryType): boolean {
  return tradingLedgerTypes.includes(type);
}

/** The WHERE of a user's ledger query for a rare type (parameters: user id, the type): its partial index. */
export const rareLedgerTypeWhere = `user_id = ? AND type = ? AND ${nonTradingLedgerCondition}`;
