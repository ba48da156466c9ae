// The queries behind the trading routes over the exchange read models (their tables:
// exchange-schema.ts; the projector that fills them: exchange-read-models.ts).

import type { Statement } from "better-sqlite3";
import {
  big,
  catalogMarketOf,
  depositOf,
  ledgerEntryOf,
  num,
  orderOf,
  positionOf,
  type Row,
  tradeOf,
  withdrawalOf,
} from "../exchange-read-model-rows.js";
import type {
  ExchangeReadModels,
  OrderFilter,
  Page,
  PageRequest,
  PricePointRecord,
  UserFilter,
} from "../exchange-read-models.js";
import { pageWindow } from "../page-window.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { prepareBig } from "./exchange-rows.js";
import { exchangeReadModelMigrations, isTradingLedgerType, rareLedgerTypeWhere } from "./exchange-schema.js";
import { createUserHistoryReader } from "./user-history-index.js";

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
      return catalogMarketOf(marketId, row, optionsOfMarket.all(marketId));
    },
  };
}
