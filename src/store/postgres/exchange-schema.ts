// The exchange read models' tables on PostgreSQL (migrations module "exchange"): the same tables and
// column names as the SQLite file (src/store/sqlite/exchange-schema.ts), so a query ported from
// SQLite reads them unchanged, with PostgreSQL's types: ids, money atoms and millisecond times are
// bigint, the 0/1 flags smallint (as SQLite's, so `is_win = 1` reads the same). Where SQLite relied
// on a rowid (the ledger's entry id, the deposits' insertion order) an identity column does it.
//
// Indexes: plain B-trees on (user_id, id) instead of SQLite's bulk user-history tables and
// watermarks (src/store/sqlite/user-history-index.ts). That trick exists because SQLite dirties a
// page per user per commit in each user index; PostgreSQL's cost per batch is round trips, and the
// projector writes each table in one statement per batch (docs/decisions.md).

export const postgresExchangeMigrations: readonly string[] = [
  `CREATE TABLE markets (
     market_id bigint PRIMARY KEY,
     title text NOT NULL,
     model_type text NOT NULL,
     status text NOT NULL,
     category_id text,
     description text NOT NULL,
     rules text NOT NULL,
     tags text NOT NULL,
     creator_id bigint,
     start_time_ms bigint,
     end_time_ms bigint,
     created_at_ms bigint NOT NULL,
     opened_at_ms bigint,
     closed_at_ms bigint,
     volume bigint NOT NULL DEFAULT 0,
     fee_income bigint NOT NULL DEFAULT 0,
     details text,
     resolved_at_ms bigint,
     challenge_window_ends_at_ms bigint,
     challenge_bond bigint,
     challenged smallint NOT NULL DEFAULT 0,
     settled_at_ms bigint,
     voided_at_ms bigint
   );
   CREATE TABLE market_outcomes (
     outcome_id bigint PRIMARY KEY,
     market_id bigint NOT NULL,
     name text NOT NULL
   );
   CREATE INDEX market_outcomes_by_market ON market_outcomes (market_id, outcome_id);
   CREATE TABLE market_options (
     option_id bigint PRIMARY KEY,
     outcome_id bigint NOT NULL,
     market_id bigint NOT NULL,
     option_index integer NOT NULL,
     title text NOT NULL,
     asset_id text NOT NULL UNIQUE,
     proposed_win smallint,
     is_win smallint
   );
   CREATE INDEX market_options_by_outcome ON market_options (outcome_id, option_index);
   CREATE INDEX market_options_by_market ON market_options (market_id);
   CREATE TABLE market_challenges (
     market_id bigint PRIMARY KEY,
     user_id bigint NOT NULL,
     bond bigint NOT NULL,
     reason text NOT NULL,
     challenged_at_ms bigint NOT NULL,
     bond_outcome text,
     bond_outcome_at_ms bigint
   );
   CREATE TABLE exchange_orders (
     order_id bigint PRIMARY KEY,
     user_id bigint NOT NULL,
     market_id bigint NOT NULL,
     outcome_id bigint NOT NULL,
     option_id bigint NOT NULL,
     side text NOT NULL,
     order_type text NOT NULL,
     time_in_force text NOT NULL,
     limit_price bigint,
     shares bigint,
     amount bigint,
     filled_shares bigint NOT NULL,
     filled_amount bigint NOT NULL,
     fee_paid bigint NOT NULL,
     status text NOT NULL,
     client_order_id text,
     expires_at_ms bigint,
     created_at_ms bigint NOT NULL,
     updated_at_ms bigint NOT NULL
   );
   CREATE INDEX exchange_orders_by_user ON exchange_orders (user_id, order_id);
   CREATE INDEX exchange_orders_open_by_user ON exchange_orders (user_id, order_id)
     WHERE status IN ('OPEN', 'PARTIALLY_FILLED');
   CREATE TABLE exchange_trades (
     trade_id bigint NOT NULL,
     role text NOT NULL,
     order_id bigint NOT NULL,
     user_id bigint NOT NULL,
     market_id bigint NOT NULL,
     outcome_id bigint NOT NULL,
     option_id bigint NOT NULL,
     side text NOT NULL,
     cross_type text NOT NULL,
     price bigint NOT NULL,
     shares bigint NOT NULL,
     fee bigint NOT NULL,
     time_ms bigint NOT NULL,
     PRIMARY KEY (trade_id, role)
   );
   CREATE INDEX exchange_trades_by_user ON exchange_trades (user_id, trade_id, role);
   CREATE INDEX exchange_trades_by_order ON exchange_trades (order_id, trade_id);
   CREATE TABLE exchange_balances (
     user_id bigint PRIMARY KEY,
     available bigint NOT NULL,
     frozen bigint NOT NULL
   );
   CREATE TABLE exchange_ledger (
     entry_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     user_id bigint NOT NULL,
     type text NOT NULL,
     amount bigint NOT NULL,
     frozen_delta bigint NOT NULL,
     available_after bigint NOT NULL,
     frozen_after bigint NOT NULL,
     ref_id text NOT NULL,
     time_ms bigint NOT NULL
   );
   CREATE INDEX exchange_ledger_by_user ON exchange_ledger (user_id, entry_id);
   CREATE INDEX exchange_ledger_non_trading_by_user ON exchange_ledger (user_id, type, entry_id)
     WHERE type NOT IN ('FREEZE', 'UNFREEZE', 'TRADE', 'FEE');
   CREATE TABLE exchange_positions (
     position_id bigint PRIMARY KEY,
     user_id bigint NOT NULL,
     market_id bigint NOT NULL,
     outcome_id bigint NOT NULL,
     option_id bigint NOT NULL,
     shares bigint NOT NULL,
     frozen_shares bigint NOT NULL,
     cost bigint NOT NULL,
     realized_pnl bigint NOT NULL,
     status text NOT NULL DEFAULT 'open',
     claimable bigint NOT NULL DEFAULT 0,
     claimed_amount bigint NOT NULL DEFAULT 0,
     claimed_at_ms bigint,
     claim_transaction_id text
   );
   CREATE INDEX exchange_positions_by_user ON exchange_positions (user_id, market_id, position_id);
   CREATE UNIQUE INDEX exchange_positions_by_user_option ON exchange_positions (user_id, option_id);
   CREATE INDEX exchange_positions_by_market ON exchange_positions (market_id, status);
   CREATE INDEX exchange_positions_by_outcome ON exchange_positions (outcome_id);
   CREATE TABLE exchange_price_points (
     option_id bigint NOT NULL,
     time_ms bigint NOT NULL,
     trade_id bigint NOT NULL,
     market_id bigint NOT NULL,
     outcome_id bigint NOT NULL,
     price bigint NOT NULL,
     PRIMARY KEY (option_id, trade_id)
   );
   CREATE INDEX exchange_price_points_by_time ON exchange_price_points (option_id, time_ms, trade_id);
   CREATE TABLE exchange_deposits (
     tx_hash text PRIMARY KEY,
     deposit_seq bigint GENERATED ALWAYS AS IDENTITY,
     user_id bigint NOT NULL,
     amount bigint NOT NULL,
     credited_at_ms bigint NOT NULL
   );
   CREATE INDEX exchange_deposits_by_user ON exchange_deposits (user_id, credited_at_ms, deposit_seq);
   CREATE TABLE exchange_withdrawals (
     withdrawal_id bigint PRIMARY KEY,
     user_id bigint NOT NULL,
     amount bigint NOT NULL,
     fee bigint NOT NULL,
     address text NOT NULL,
     status text NOT NULL,
     requested_at_ms bigint NOT NULL,
     updated_at_ms bigint NOT NULL
   );
   CREATE INDEX exchange_withdrawals_by_user ON exchange_withdrawals (user_id, withdrawal_id);
   CREATE INDEX exchange_withdrawals_by_status ON exchange_withdrawals (status, withdrawal_id);`,
  // 2: exclusive (negative-risk) markets, DESIGN §10: 1 for a market whose outcomes exclude each other.
  "ALTER TABLE markets ADD COLUMN exclusive smallint NOT NULL DEFAULT 0;",
  // 3: price points keyed the way they are read, by option and time (the price history's time
  // range, the console's latest trades), as SQLite's migration 8: the index by time held the
  // same rows as the key (option_id, trade_id), which no query searched, so every point was written
  // to two B-trees. A trade has one time, so (option, time, trade) is as unique as (option, trade)
  // was. Building the key reads the table once, under its lock (issue #31, i31-pg2).
  `ALTER TABLE exchange_price_points DROP CONSTRAINT exchange_price_points_pkey;
   DROP INDEX exchange_price_points_by_time;
   ALTER TABLE exchange_price_points ADD CONSTRAINT exchange_price_points_pkey
     PRIMARY KEY (option_id, time_ms, trade_id);`,
];
