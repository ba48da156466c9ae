// The exchange's read models in the embedded SQLite file: a projector the engine runs inside each
// commit's transaction, and the queries behind the trading routes. Money columns are 64-bit
// integers of atoms, read back as bigint (safeIntegers), so nothing is ever rounded through a double.

import type { Statement } from "better-sqlite3";
import type { ExchangeCommand, MarketDetails } from "../../core/commands.js";
import type {
  DepositCreditedEvent,
  ExchangeEvent,
  MarketCreatedEvent,
  OrderCancelledEvent,
  OrderExpiredEvent,
  OrderPlacedEvent,
  TradeExecutedEvent,
} from "../../core/events.js";
import type {
  MarketStatus,
  ModelType,
  OrderSide,
  OrderStatus,
  OrderType,
  PositionStatus,
  TimeInForce,
} from "../../core/exchange.js";
import { newPosition, type Position, recordBuy, recordSell } from "../../core/positions.js";
import { decodePlainData, encodePlainData } from "../../engine/journal-codec.js";
import type { JournalEntry } from "../../engine/store.js";
import type {
  CatalogMarket,
  CatalogOutcome,
  DepositRecord,
  ExchangeReadModels,
  LedgerEntryRecord,
  LedgerEntryType,
  OrderFilter,
  OrderRecord,
  Page,
  PageRequest,
  PositionRecord,
  PricePointRecord,
  TradeRecord,
  TradeRole,
  UserFilter,
  WithdrawalRecord,
  WithdrawalRecordStatus,
} from "../exchange-read-models.js";
import { pageWindow } from "../page-window.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import type { SqliteProjector } from "./engine-store.js";
import { createLifecycleProjection } from "./lifecycle-projection.js";
import { createPoolProjection } from "./pool-projection.js";
import {
  createUserHistoryIndexer,
  createUserHistoryReader,
  userHistoryIndexMigration,
} from "./user-history-index.js";
import { createWithdrawalProjection } from "./withdrawal-projection.js";

const atomsPerOne = 100_000_000n;

/** The ledger entries an order's life writes; every other type is rare and has a partial index. */
const tradingLedgerTypes: readonly LedgerEntryType[] = ["FREEZE", "UNFREEZE", "TRADE", "FEE"];
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
];

type Row = Record<string, unknown>;

/** True for the types an order's life writes, which the user history tables serve (migration 6). */
function isTradingLedgerType(type: LedgerEntryType): boolean {
  return tradingLedgerTypes.includes(type);
}

/** The WHERE of a user's ledger query for a rare type (parameters: user id, the type): its partial index. */
export const rareLedgerTypeWhere = `user_id = ? AND type = ? AND ${nonTradingLedgerCondition}`;

/** Prepares a statement whose integers come back as bigint (money never passes through a double). */
function prepareBig<Params extends unknown[], Result = Row>(
  db: SqliteDatabase,
  sql: string,
): Statement<Params, Result> {
  return db.prepare<Params, Result>(sql).safeIntegers(true);
}

const num = (value: unknown): number => Number(value as bigint);
const numOrNull = (value: unknown): number | null => (value === null ? null : Number(value as bigint));
const big = (value: unknown): bigint => value as bigint;
const bigOrNull = (value: unknown): bigint | null => (value === null ? null : (value as bigint));

/** Creates the tables (once) and returns the projector the engine runs in every commit. */
export function createSqliteExchangeProjector(
  db: SqliteDatabase,
  options: { readonly userHistoryIndexLag?: number | undefined } = {},
): SqliteProjector<ExchangeCommand, ExchangeEvent> {
  applyMigrations(db, "exchange", exchangeReadModelMigrations);
  const statements = {
    insertMarket: db.prepare(
      `INSERT INTO markets (market_id, title, model_type, status, category_id, description, rules, tags,
         creator_id, start_time_ms, end_time_ms, created_at_ms, details)
       VALUES (?, ?, ?, 'draft', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertOutcome: db.prepare("INSERT INTO market_outcomes (outcome_id, market_id, name) VALUES (?, ?, ?)"),
    insertOption: db.prepare(
      "INSERT INTO market_options (option_id, outcome_id, market_id, option_index, title, asset_id) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    openMarket: db.prepare("UPDATE markets SET status = 'open', opened_at_ms = ? WHERE market_id = ?"),
    closeMarket: db.prepare("UPDATE markets SET status = 'closed', closed_at_ms = ? WHERE market_id = ?"),
    addMarketTrade: db.prepare(
      "UPDATE markets SET volume = volume + ?, fee_income = fee_income + ? WHERE market_id = ?",
    ),
    optionsOfOutcome: db.prepare<[number], { option_id: number }>(
      "SELECT option_id FROM market_options WHERE outcome_id = ? ORDER BY option_index",
    ),
    insertOrder: db.prepare(
      `INSERT INTO exchange_orders (order_id, user_id, market_id, outcome_id, option_id, side, order_type,
         time_in_force, limit_price, shares, amount, filled_shares, filled_amount, fee_paid, status,
         client_order_id, expires_at_ms, created_at_ms, updated_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    fillMakerOrder: db.prepare(
      `UPDATE exchange_orders SET filled_shares = filled_shares + ?, filled_amount = filled_amount + ?,
         fee_paid = fee_paid + ?, status = ?, updated_at_ms = ? WHERE order_id = ?`,
    ),
    endOrder: db.prepare("UPDATE exchange_orders SET status = ?, updated_at_ms = ? WHERE order_id = ?"),
    insertTrade: db.prepare(
      `INSERT INTO exchange_trades (trade_id, role, order_id, user_id, market_id, outcome_id, option_id, side,
         cross_type, price, shares, fee, time_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    selectBalance: prepareBig<[number], { available: bigint; frozen: bigint }>(
      db,
      "SELECT available, frozen FROM exchange_balances WHERE user_id = ?",
    ),
    saveBalance: db.prepare(
      `INSERT INTO exchange_balances (user_id, available, frozen) VALUES (?, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET available = excluded.available, frozen = excluded.frozen`,
    ),
    insertLedger: db.prepare(
      `INSERT INTO exchange_ledger (user_id, type, amount, frozen_delta, available_after, frozen_after, ref_id, time_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    selectPosition: prepareBig<[number], Row>(db, "SELECT * FROM exchange_positions WHERE position_id = ?"),
    upsertPosition: db.prepare(
      `INSERT INTO exchange_positions (position_id, user_id, market_id, outcome_id, option_id, shares,
         frozen_shares, cost, realized_pnl) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (position_id) DO UPDATE SET shares = excluded.shares, frozen_shares = excluded.frozen_shares,
         cost = excluded.cost, realized_pnl = excluded.realized_pnl`,
    ),
    moveFrozenShares: db.prepare(
      "UPDATE exchange_positions SET shares = shares - ?, frozen_shares = frozen_shares + ? WHERE user_id = ? AND option_id = ?",
    ),
    insertPricePoint: db.prepare(
      "INSERT INTO exchange_price_points (option_id, time_ms, trade_id, market_id, outcome_id, price) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    insertDeposit: db.prepare(
      "INSERT INTO exchange_deposits (tx_hash, user_id, amount, credited_at_ms) VALUES (?, ?, ?, ?)",
    ),
  };

  // Options never change once created, so the Yes/No ids of an outcome are safe to keep in memory.
  const optionIdsByOutcome = new Map<number, readonly [number, number]>();
  const optionIdsOf = (outcomeId: number): readonly [number, number] => {
    let ids = optionIdsByOutcome.get(outcomeId);
    if (ids === undefined) {
      const rows = statements.optionsOfOutcome.all(outcomeId);
      if (rows.length !== 2) throw new Error(`read models: outcome ${outcomeId} has no Yes/No options`);
      ids = [rows[0]!.option_id, rows[1]!.option_id];
      optionIdsByOutcome.set(outcomeId, ids);
    }
    return ids;
  };

  // The balances a batch moves, read on first use and written back once per user at the batch's
  // end (flushBalances), in the same transaction: an order moves its user's balance three or four
  // times (freeze, trade, fee, unfreeze), and an upsert for each was a sixth of the projection.
  // Only this projector writes exchange_balances, and the map never outlives its batch.
  const balances = new Map<number, { available: bigint; frozen: bigint }>();
  const balanceOf = (userId: number): { available: bigint; frozen: bigint } => {
    let balance = balances.get(userId);
    if (balance === undefined) {
      const row = statements.selectBalance.get(userId);
      balance = { available: row?.available ?? 0n, frozen: row?.frozen ?? 0n };
      balances.set(userId, balance);
    }
    return balance;
  };
  const flushBalances = (): void => {
    for (const [userId, balance] of balances) {
      statements.saveBalance.run(userId, balance.available, balance.frozen);
    }
  };

  // A market's volume and fee income only ever grow by sums, and nothing in a batch reads them, so
  // its trades' shares are added up in memory and written once per market at the batch's end.
  const marketTotals = new Map<number, { volume: bigint; fees: bigint }>();
  const flushMarketTotals = (): void => {
    for (const [marketId, totals] of marketTotals) {
      statements.addMarketTrade.run(totals.volume, totals.fees, marketId);
    }
  };

  const ledger = (
    userId: number,
    type: LedgerEntryType,
    amount: bigint,
    frozenDelta: bigint,
    refId: string,
    timeMs: number,
  ): void => {
    const balance = balanceOf(userId);
    balance.available += amount;
    balance.frozen += frozenDelta;
    if (balance.available < 0n || balance.frozen < 0n) {
      throw new Error(`read models: negative balance for user ${userId} after ${type} ${refId}`);
    }
    statements.insertLedger.run(
      userId,
      type,
      amount,
      frozenDelta,
      balance.available,
      balance.frozen,
      refId,
      timeMs,
    );
  };

  const projectLifecycle = createLifecycleProjection(db, ledger);
  const projectWithdrawal = createWithdrawalProjection(db, ledger);

  const loadPosition = (
    positionId: number,
    userId: number,
    optionId: number,
    marketId: number,
    outcomeId: number,
  ): Position => {
    const row = statements.selectPosition.get(positionId);
    if (row === undefined) return newPosition(positionId, userId, marketId, outcomeId, optionId);
    return {
      positionId,
      userId,
      marketId,
      outcomeId,
      optionId,
      shares: big(row.shares),
      frozenShares: big(row.frozen_shares),
      cost: big(row.cost),
      realizedPnl: big(row.realized_pnl),
    };
  };

  const savePosition = (position: Position): void => {
    statements.upsertPosition.run(
      position.positionId,
      position.userId,
      position.marketId,
      position.outcomeId,
      position.optionId,
      position.shares,
      position.frozenShares,
      position.cost,
      position.realizedPnl,
    );
  };

  const projectPool = createPoolProjection(db, { ledger, loadPosition, savePosition, optionIdsOf });

  const onMarketCreated = (event: MarketCreatedEvent): void => {
    const details = event.details ?? null;
    statements.insertMarket.run(
      event.marketId,
      event.title,
      event.modelType,
      textOf(details?.categoryId),
      textOf(details?.description) ?? "",
      textOf(details?.rules) ?? "",
      textOf(details?.tags) ?? "",
      event.creatorId,
      event.startTimeMs,
      event.endTimeMs,
      event.createdAtMs,
      details === null ? null : encodePlainData(details),
    );
    for (const outcome of event.outcomes) {
      statements.insertOutcome.run(outcome.outcomeId, event.marketId, outcome.name);
      for (const option of outcome.options) {
        statements.insertOption.run(
          option.optionId,
          outcome.outcomeId,
          event.marketId,
          option.optionIndex,
          option.title,
          option.assetId,
        );
      }
    }
  };

  const onOrderPlaced = (event: OrderPlacedEvent): void => {
    statements.insertOrder.run(
      event.orderId,
      event.userId,
      event.marketId,
      event.outcomeId,
      event.optionId,
      event.side,
      event.orderType,
      event.timeInForce,
      event.limitPrice,
      event.shares,
      event.amount,
      event.filledShares,
      event.filledAmount,
      event.feePaid,
      event.status,
      event.clientOrderId,
      event.expiresAtMs,
      event.createdAtMs,
      event.createdAtMs,
    );
    // The resting part's funds or shares are frozen before any of the command's fills (evolve's order).
    if (event.frozenAmount !== 0n) {
      ledger(
        event.userId,
        "FREEZE",
        -event.frozenAmount,
        event.frozenAmount,
        String(event.orderId),
        event.createdAtMs,
      );
    }
    if (event.frozenShares !== 0n) {
      statements.moveFrozenShares.run(event.frozenShares, event.frozenShares, event.userId, event.optionId);
    }
  };

  /** One side's cash for a fill, then its fee if any; returns what the two entries moved together. */
  const tradeAndFee = (event: TradeExecutedEvent, role: TradeRole): bigint => {
    const maker = role === "MAKER";
    const userId = maker ? event.makerUserId : event.takerUserId;
    const notional = maker ? event.makerNotional : event.takerNotional;
    const fee = maker ? event.makerFee : event.takerFee;
    const tradeRef = String(event.tradeId);
    const cash = (maker ? event.makerSide : event.takerSide) === "BUY" ? -notional : notional;
    ledger(userId, "TRADE", cash, 0n, tradeRef, event.atMs);
    if (fee !== 0n) ledger(userId, "FEE", -fee, 0n, tradeRef, event.atMs);
    return cash - fee;
  };

  /** Moves one side's position by a fill; only the maker's (resting) sale takes frozen shares. */
  const fillPosition = (event: TradeExecutedEvent, role: TradeRole): void => {
    const maker = role === "MAKER";
    const position = loadPosition(
      maker ? event.makerPositionId : event.takerPositionId,
      maker ? event.makerUserId : event.takerUserId,
      maker ? event.makerOptionId : event.takerOptionId,
      event.marketId,
      event.outcomeId,
    );
    const notional = maker ? event.makerNotional : event.takerNotional;
    const fee = maker ? event.makerFee : event.takerFee;
    if ((maker ? event.makerSide : event.takerSide) === "BUY")
      recordBuy(position, event.shares, notional, fee);
    else recordSell(position, event.shares, maker, notional, fee);
    savePosition(position);
  };

  const onTrade = (event: TradeExecutedEvent): void => {
    const time = event.atMs;
    statements.fillMakerOrder.run(
      event.shares,
      event.makerNotional,
      event.makerFee,
      event.makerStatus,
      time,
      event.makerOrderId,
    );
    insertTradeSide(statements.insertTrade, event, "MAKER");
    insertTradeSide(statements.insertTrade, event, "TAKER");

    // The maker's cash: what its reserve no longer needs comes back, then the fill and the fee.
    const released = -event.makerFrozenDelta;
    if (released !== 0n)
      ledger(event.makerUserId, "UNFREEZE", released, -released, String(event.makerOrderId), time);
    const makerMoved = tradeAndFee(event, "MAKER");
    if (released + makerMoved !== event.makerAvailableDelta) {
      throw new Error(`read models: trade ${event.tradeId} maker entries differ from its balance delta`);
    }
    const takerMoved = tradeAndFee(event, "TAKER");
    if (takerMoved !== event.takerAvailableDelta) {
      throw new Error(`read models: trade ${event.tradeId} taker entries differ from its balance delta`);
    }

    // Positions, by the core's own average-cost rules.
    fillPosition(event, "MAKER");
    fillPosition(event, "TAKER");

    // A price point for each option of the outcome: Yes at the trade's Yes price, No at 1 − it.
    const [yesId, noId] = optionIdsOf(event.outcomeId);
    statements.insertPricePoint.run(
      yesId,
      time,
      event.tradeId,
      event.marketId,
      event.outcomeId,
      event.yesPrice,
    );
    statements.insertPricePoint.run(
      noId,
      time,
      event.tradeId,
      event.marketId,
      event.outcomeId,
      atomsPerOne - event.yesPrice,
    );
    // Volume is the USDT that changed hands: one notional in a transfer, both in a mint or merge.
    const volume =
      event.cross === "TRANSFER" ? event.makerNotional : event.makerNotional + event.takerNotional;
    const totals = marketTotals.get(event.marketId);
    const fees = event.makerFee + event.takerFee;
    if (totals === undefined) marketTotals.set(event.marketId, { volume, fees });
    else {
      totals.volume += volume;
      totals.fees += fees;
    }
  };

  const onOrderReleased = (event: OrderCancelledEvent | OrderExpiredEvent): void => {
    statements.endOrder.run(
      event.type === "OrderExpired" ? "EXPIRED" : "CANCELLED",
      event.atMs,
      event.orderId,
    );
    if (event.releasedAmount !== 0n) {
      ledger(
        event.userId,
        "UNFREEZE",
        event.releasedAmount,
        -event.releasedAmount,
        String(event.orderId),
        event.atMs,
      );
    }
    if (event.releasedShares !== 0n) {
      statements.moveFrozenShares.run(
        -event.releasedShares,
        -event.releasedShares,
        event.userId,
        event.optionId,
      );
    }
  };

  const onDeposit = (event: DepositCreditedEvent): void => {
    ledger(event.userId, "DEPOSIT", event.amount, 0n, event.txHash, event.atMs);
    statements.insertDeposit.run(event.txHash, event.userId, event.amount, event.atMs);
  };

  const indexUserHistory = createUserHistoryIndexer(db, options.userHistoryIndexLag);

  return (_db, entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]) => {
    try {
      projectEntries(entries);
      flushBalances();
      flushMarketTotals();
      indexUserHistory();
    } finally {
      // A failed batch rolls back; what it left in memory must not leak into a later one.
      balances.clear();
      marketTotals.clear();
    }
  };

  function projectEntries(entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]): void {
    for (const entry of entries) {
      for (const event of entry.events) {
        switch (event.type) {
          case "MarketCreated":
            onMarketCreated(event);
            break;
          case "MarketOpened":
            statements.openMarket.run(event.atMs, event.marketId);
            break;
          case "MarketClosed":
            statements.closeMarket.run(event.atMs, event.marketId);
            break;
          case "DepositCredited":
            onDeposit(event);
            break;
          case "OrderPlaced":
            onOrderPlaced(event);
            break;
          case "OrderRepeated":
            break;
          case "TradeExecuted":
            onTrade(event);
            break;
          case "OrderCancelled":
          case "OrderExpired":
            onOrderReleased(event);
            break;
          case "MarketResolved":
          case "ResolutionChallenged":
          case "ChallengeBondReturned":
          case "ChallengeBondForfeited":
          case "MarketSettled":
          case "MarketVoided":
          case "PositionClaimed":
            projectLifecycle(event);
            break;
          case "WithdrawalRequested":
          case "WithdrawalApproved":
          case "WithdrawalReleased":
          case "WithdrawalCompleted":
            projectWithdrawal(event);
            break;
          case "AmmPoolFunded":
          case "PoolTradeExecuted":
          case "PoolSettled":
            projectPool(event);
            break;
          default: {
            const unreachable: never = event;
            throw new Error(`read models: unknown event ${JSON.stringify(unreachable)}`);
          }
        }
      }
    }
  }
}

function insertTradeSide(statement: Statement, event: TradeExecutedEvent, role: TradeRole): void {
  const maker = role === "MAKER";
  statement.run(
    event.tradeId,
    role,
    maker ? event.makerOrderId : event.takerOrderId,
    maker ? event.makerUserId : event.takerUserId,
    event.marketId,
    event.outcomeId,
    maker ? event.makerOptionId : event.takerOptionId,
    maker ? event.makerSide : event.takerSide,
    event.cross,
    maker ? event.makerPrice : event.takerPrice,
    event.shares,
    maker ? event.makerFee : event.takerFee,
    event.atMs,
  );
}

function textOf(value: unknown): string | null {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : null;
}

function orderOf(row: Row): OrderRecord {
  return {
    orderId: num(row.order_id),
    userId: num(row.user_id),
    marketId: num(row.market_id),
    outcomeId: num(row.outcome_id),
    optionId: num(row.option_id),
    side: row.side as OrderSide,
    orderType: row.order_type as OrderType,
    timeInForce: row.time_in_force as TimeInForce,
    limitPrice: bigOrNull(row.limit_price),
    shares: bigOrNull(row.shares),
    amount: bigOrNull(row.amount),
    filledShares: big(row.filled_shares),
    filledAmount: big(row.filled_amount),
    feePaid: big(row.fee_paid),
    status: row.status as OrderStatus,
    clientOrderId: row.client_order_id as string | null,
    expiresAtMs: numOrNull(row.expires_at_ms),
    createdAtMs: num(row.created_at_ms),
    updatedAtMs: num(row.updated_at_ms),
  };
}

function tradeOf(row: Row): TradeRecord {
  return {
    tradeId: num(row.trade_id),
    orderId: num(row.order_id),
    userId: num(row.user_id),
    marketId: num(row.market_id),
    outcomeId: num(row.outcome_id),
    optionId: num(row.option_id),
    side: row.side as OrderSide,
    role: row.role as TradeRole,
    cross: row.cross_type as TradeRecord["cross"],
    price: big(row.price),
    shares: big(row.shares),
    fee: big(row.fee),
    timeMs: num(row.time_ms),
  };
}

function ledgerEntryOf(row: Row): LedgerEntryRecord {
  return {
    entryId: num(row.entry_id),
    userId: num(row.user_id),
    type: row.type as LedgerEntryType,
    amount: big(row.amount),
    frozenDelta: big(row.frozen_delta),
    availableAfter: big(row.available_after),
    frozenAfter: big(row.frozen_after),
    refId: row.ref_id as string,
    timeMs: num(row.time_ms),
  };
}

function depositOf(row: Row): DepositRecord {
  return {
    txHash: row.tx_hash as string,
    userId: num(row.user_id),
    amount: big(row.amount),
    creditedAtMs: num(row.credited_at_ms),
  };
}

function withdrawalOf(row: Row): WithdrawalRecord {
  return {
    withdrawalId: num(row.withdrawal_id),
    userId: num(row.user_id),
    amount: big(row.amount),
    fee: big(row.fee),
    address: row.address as string,
    status: row.status as WithdrawalRecordStatus,
    requestedAtMs: num(row.requested_at_ms),
    updatedAtMs: num(row.updated_at_ms),
  };
}

function positionOf(row: Row): PositionRecord {
  return {
    positionId: num(row.position_id),
    userId: num(row.user_id),
    marketId: num(row.market_id),
    outcomeId: num(row.outcome_id),
    optionId: num(row.option_id),
    shares: big(row.shares),
    frozenShares: big(row.frozen_shares),
    cost: big(row.cost),
    realizedPnl: big(row.realized_pnl),
    status: row.status as PositionStatus,
    claimable: big(row.claimable),
    claimedAmount: big(row.claimed_amount),
    claimTransactionId: row.claim_transaction_id as string | null,
  };
}

function mapPage<Record>(found: { rows: Row[]; total: number }, map: (row: Row) => Record): Page<Record> {
  return { records: found.rows.map(map), total: found.total };
}

/** Runs a filtered, paginated query: `where` is shared by the count and the page. */
function paginate<Record>(
  db: SqliteDatabase,
  cache: Map<string, { count: Statement; page: Statement }>,
  table: string,
  where: string,
  orderBy: string,
  params: unknown[],
  page: PageRequest,
  map: (row: Row) => Record,
): Page<Record> {
  const key = `${table}|${where}|${orderBy}`;
  let prepared = cache.get(key);
  if (prepared === undefined) {
    prepared = {
      count: db.prepare(`SELECT count(*) FROM ${table} WHERE ${where}`).pluck(),
      page: db
        .prepare(`SELECT * FROM ${table} WHERE ${where} ORDER BY ${orderBy} LIMIT ? OFFSET ?`)
        .safeIntegers(true),
    };
    cache.set(key, prepared);
  }
  const { limit, offset } = pageWindow(page);
  const total = prepared.count.get(...params) as number;
  const rows = total <= offset ? [] : (prepared.page.all(...params, limit, offset) as Row[]);
  return { records: rows.map(map), total };
}

export function createSqliteExchangeReadModels(db: SqliteDatabase): ExchangeReadModels {
  applyMigrations(db, "exchange", exchangeReadModelMigrations);
  const pages = new Map<string, { count: Statement; page: Statement }>();
  const userHistory = createUserHistoryReader(db);
  const orderById = prepareBig<[number], Row>(db, "SELECT * FROM exchange_orders WHERE order_id = ?");
  const tradesOfOrder = prepareBig<[number], Row>(
    db,
    "SELECT * FROM exchange_trades WHERE order_id = ? ORDER BY trade_id",
  );
  const pricePoints = prepareBig<[number, number, number, number], Row>(
    db,
    "SELECT * FROM exchange_price_points WHERE option_id = ? AND time_ms BETWEEN ? AND ? ORDER BY time_ms, trade_id LIMIT ?",
  );
  const depositByTxHash = prepareBig<[string], Row>(db, "SELECT * FROM exchange_deposits WHERE tx_hash = ?");
  const positionById = prepareBig<[number], Row>(
    db,
    "SELECT * FROM exchange_positions WHERE position_id = ?",
  );
  const withdrawalById = prepareBig<[number], Row>(
    db,
    "SELECT * FROM exchange_withdrawals WHERE withdrawal_id = ?",
  );
  const marketById = prepareBig<[number], Row>(db, "SELECT * FROM markets WHERE market_id = ?");
  const optionsOfMarket = prepareBig<[number], Row>(
    db,
    `SELECT o.outcome_id, o.name, p.option_id, p.option_index, p.title, p.asset_id
     FROM market_outcomes o JOIN market_options p ON p.outcome_id = o.outcome_id
     WHERE o.market_id = ? ORDER BY o.outcome_id, p.option_index`,
  );

  const byUserAndMarket = (filter: UserFilter): { where: string; params: unknown[] } =>
    filter.marketId === undefined
      ? { where: "user_id = ?", params: [filter.userId] }
      : { where: "user_id = ? AND market_id = ?", params: [filter.userId, filter.marketId] };

  return {
    async orderById(orderId) {
      const row = orderById.get(orderId);
      return row === undefined ? undefined : orderOf(row);
    },
    async orders(filter: OrderFilter, page) {
      if (!filter.openOnly) return mapPage(userHistory("exchange_orders", filter, pageWindow(page)), orderOf);
      const base = byUserAndMarket(filter);
      // The literal status list matches the partial index's WHERE, so SQLite can use it.
      const where = `${base.where} AND status IN ('OPEN', 'PARTIALLY_FILLED')`;
      return paginate(db, pages, "exchange_orders", where, "order_id DESC", base.params, page, orderOf);
    },
    async tradesOfOrder(orderId) {
      return tradesOfOrder.all(orderId).map(tradeOf);
    },
    async trades(filter, page) {
      return mapPage(userHistory("exchange_trades", filter, pageWindow(page)), tradeOf);
    },
    async ledger(userId, page, filter = {}) {
      const { type } = filter;
      if (type === undefined || isTradingLedgerType(type)) {
        return mapPage(userHistory("exchange_ledger", { userId, type }, pageWindow(page)), ledgerEntryOf);
      }
      const params = [userId, type];
      return paginate(
        db,
        pages,
        "exchange_ledger",
        rareLedgerTypeWhere,
        "entry_id DESC",
        params,
        page,
        ledgerEntryOf,
      );
    },
    async positions(filter, page) {
      const base = byUserAndMarket(filter);
      const where = filter.status === undefined ? base.where : `${base.where} AND status = ?`;
      const params = filter.status === undefined ? base.params : [...base.params, filter.status];
      return paginate(db, pages, "exchange_positions", where, "position_id", params, page, positionOf);
    },
    async positionById(positionId) {
      const row = positionById.get(positionId);
      return row === undefined ? undefined : positionOf(row);
    },
    async pricePoints(optionId, fromMs, toMs, limit) {
      return pricePoints.all(optionId, fromMs, toMs, limit).map((row) => ({
        optionId: num(row.option_id),
        marketId: num(row.market_id),
        outcomeId: num(row.outcome_id),
        price: big(row.price),
        tradeId: num(row.trade_id),
        timeMs: num(row.time_ms),
      })) satisfies PricePointRecord[];
    },
    async depositByTxHash(txHash) {
      const row = depositByTxHash.get(txHash);
      return row === undefined ? undefined : depositOf(row);
    },
    async deposits(userId, page) {
      return paginate(
        db,
        pages,
        "exchange_deposits",
        "user_id = ?",
        "credited_at_ms DESC, rowid DESC",
        [userId],
        page,
        depositOf,
      );
    },
    async withdrawalById(withdrawalId) {
      const row = withdrawalById.get(withdrawalId);
      return row === undefined ? undefined : withdrawalOf(row);
    },
    async withdrawals(filter, page) {
      const conditions: string[] = [];
      const params: unknown[] = [];
      if (filter.userId !== undefined) {
        conditions.push("user_id = ?");
        params.push(filter.userId);
      }
      if (filter.status !== undefined) {
        conditions.push("status = ?");
        params.push(filter.status);
      }
      const where = conditions.length === 0 ? "1 = 1" : conditions.join(" AND ");
      return paginate(
        db,
        pages,
        "exchange_withdrawals",
        where,
        "withdrawal_id DESC",
        params,
        page,
        withdrawalOf,
      );
    },
    async market(marketId) {
      const row = marketById.get(marketId);
      if (row === undefined) return undefined;
      const outcomes: { outcomeId: number; name: string; options: CatalogOutcome["options"][number][] }[] =
        [];
      for (const option of optionsOfMarket.all(marketId)) {
        const outcomeId = num(option.outcome_id);
        let outcome = outcomes.at(-1);
        if (outcome === undefined || outcome.outcomeId !== outcomeId) {
          outcome = { outcomeId, name: option.name as string, options: [] };
          outcomes.push(outcome);
        }
        outcome.options.push({
          optionId: num(option.option_id),
          optionIndex: num(option.option_index),
          title: option.title as string,
          assetId: option.asset_id as string,
        });
      }
      return {
        marketId,
        title: row.title as string,
        modelType: row.model_type as ModelType,
        status: row.status as MarketStatus,
        categoryId: row.category_id as string | null,
        description: row.description as string,
        rules: row.rules as string,
        tags: row.tags as string,
        creatorId: numOrNull(row.creator_id),
        startTimeMs: numOrNull(row.start_time_ms),
        endTimeMs: numOrNull(row.end_time_ms),
        createdAtMs: num(row.created_at_ms),
        openedAtMs: numOrNull(row.opened_at_ms),
        closedAtMs: numOrNull(row.closed_at_ms),
        volume: big(row.volume),
        feeIncome: big(row.fee_income),
        details: row.details === null ? null : decodePlainData<MarketDetails>(row.details as string),
        outcomes,
      } satisfies CatalogMarket;
    },
  };
}
