// The queries behind the trading routes over the exchange read models on PostgreSQL: the
// ExchangeReadModels port as the SQLite adapter answers it (src/store/sqlite/exchange-read-model-queries.ts),
// same orders, same pagination (pageWindow: a page far past the end is empty, never an error). The
// tables: exchange-schema.ts; the projector that fills them: exchange-projector.ts. int8 arrives as
// bigint from our pool; ids and times become numbers as the port says, money stays bigint.

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
  Page,
  PageRequest,
  PricePointRecord,
  UserFilter,
} from "../exchange-read-models.js";
import { pageWindow } from "../page-window.js";
import type { PostgresPool } from "./database.js";
import { postgresExchangeMigrations } from "./exchange-schema.js";
import { applyPostgresMigrations } from "./migrations.js";

/** Creates the exchange read models' tables (once, across nodes). */
export async function applyPostgresExchangeReadModelMigrations(pool: PostgresPool): Promise<void> {
  await applyPostgresMigrations(pool, "exchange", postgresExchangeMigrations);
}

const columnsOf = {
  exchange_positions: `position_id, user_id, market_id, outcome_id, option_id, shares, frozen_shares, cost,
    realized_pnl, status, claimable, claimed_amount, claim_transaction_id`,
} as const;

export async function openPostgresExchangeReadModels(pool: PostgresPool): Promise<ExchangeReadModels> {
  await applyPostgresExchangeReadModelMigrations(pool);

  /** One row by key, or undefined. */
  const one = async (name: string, text: string, values: unknown[]): Promise<Row | undefined> =>
    (await pool.query<Row>({ name, text, values })).rows[0];
  const all = async (name: string, text: string, values: unknown[]): Promise<Row[]> =>
    (await pool.query<Row>({ name, text, values })).rows;

  /**
   * A filtered page: `where` (with $1…$n) is shared by the count and the page; the page is read only
   * when the count says it has rows, so a page far past the end costs one query.
   */
  const paginate = async <Record>(
    name: string,
    table: string,
    where: string,
    orderBy: string,
    values: unknown[],
    page: PageRequest,
    map: (row: Row) => Record,
  ): Promise<Page<Record>> => {
    const { limit, offset } = pageWindow(page);
    const counted = await pool.query<{ total: bigint }>({
      name: `predex-exchange-${name}-count`,
      text: `SELECT count(*) AS total FROM ${table} WHERE ${where}`,
      values,
    });
    const total = num(counted.rows[0]!.total);
    if (total <= offset) return { records: [], total };
    const next = values.length;
    const rows = await all(
      `predex-exchange-${name}-page`,
      `SELECT * FROM ${table} WHERE ${where} ORDER BY ${orderBy} LIMIT $${next + 1} OFFSET $${next + 2}`,
      [...values, limit, offset],
    );
    return { records: rows.map(map), total };
  };

  const byUserAndMarket = (filter: UserFilter): { where: string; values: unknown[]; key: string } =>
    filter.marketId === undefined
      ? { where: "user_id = $1", values: [filter.userId], key: "user" }
      : { where: "user_id = $1 AND market_id = $2", values: [filter.userId, filter.marketId], key: "market" };

  return {
    async orderById(orderId) {
      const row = await one(
        "predex-exchange-order-by-id",
        "SELECT * FROM exchange_orders WHERE order_id = $1",
        [orderId],
      );
      return row === undefined ? undefined : orderOf(row);
    },
    async orders(filter, page) {
      const base = byUserAndMarket(filter);
      // The literal status list matches the partial index's WHERE, so the planner can use it.
      const where = filter.openOnly ? `${base.where} AND status IN ('OPEN', 'PARTIALLY_FILLED')` : base.where;
      const name = `orders-${base.key}${filter.openOnly ? "-open" : ""}`;
      return paginate(name, "exchange_orders", where, "order_id DESC", base.values, page, orderOf);
    },
    async tradesOfOrder(orderId) {
      const rows = await all(
        "predex-exchange-trades-of-order",
        "SELECT * FROM exchange_trades WHERE order_id = $1 ORDER BY trade_id, role",
        [orderId],
      );
      return rows.map(tradeOf);
    },
    async trades(filter, page) {
      const base = byUserAndMarket(filter);
      return paginate(
        `trades-${base.key}`,
        "exchange_trades",
        base.where,
        "trade_id DESC, role DESC",
        base.values,
        page,
        tradeOf,
      );
    },
    async ledger(userId, page, filter = {}) {
      const { type } = filter;
      if (type === undefined) {
        return paginate(
          "ledger",
          "exchange_ledger",
          "user_id = $1",
          "entry_id DESC",
          [userId],
          page,
          ledgerEntryOf,
        );
      }
      return paginate(
        "ledger-type",
        "exchange_ledger",
        "user_id = $1 AND type = $2",
        "entry_id DESC",
        [userId, type],
        page,
        ledgerEntryOf,
      );
    },
    async positions(filter, page) {
      const base = byUserAndMarket(filter);
      const byStatus = filter.status !== undefined;
      const where = byStatus ? `${base.where} AND status = $${base.values.length + 1}` : base.where;
      const values = byStatus ? [...base.values, filter.status] : base.values;
      return paginate(
        `positions-${base.key}${byStatus ? "-status" : ""}`,
        "exchange_positions",
        where,
        "position_id",
        values,
        page,
        positionOf,
      );
    },
    async positionById(positionId) {
      const row = await one(
        "predex-exchange-position-by-id-read",
        `SELECT ${columnsOf.exchange_positions} FROM exchange_positions WHERE position_id = $1`,
        [positionId],
      );
      return row === undefined ? undefined : positionOf(row);
    },
    async pricePoints(optionId, fromMs, toMs, limit) {
      const rows = await all(
        "predex-exchange-price-points",
        `SELECT * FROM exchange_price_points WHERE option_id = $1 AND time_ms BETWEEN $2 AND $3
         ORDER BY time_ms, trade_id LIMIT $4`,
        [optionId, fromMs, toMs, Math.max(0, Math.floor(limit))],
      );
      return rows.map((row) => ({
        optionId: num(row.option_id),
        marketId: num(row.market_id),
        outcomeId: num(row.outcome_id),
        price: big(row.price),
        tradeId: num(row.trade_id),
        timeMs: num(row.time_ms),
      })) satisfies PricePointRecord[];
    },
    async depositByTxHash(txHash) {
      const row = await one(
        "predex-exchange-deposit-by-tx-hash",
        "SELECT * FROM exchange_deposits WHERE tx_hash = $1",
        [txHash],
      );
      return row === undefined ? undefined : depositOf(row);
    },
    async deposits(userId, page) {
      return paginate(
        "deposits",
        "exchange_deposits",
        "user_id = $1",
        "credited_at_ms DESC, deposit_seq DESC",
        [userId],
        page,
        depositOf,
      );
    },
    async withdrawalById(withdrawalId) {
      const row = await one(
        "predex-exchange-withdrawal-by-id",
        "SELECT * FROM exchange_withdrawals WHERE withdrawal_id = $1",
        [withdrawalId],
      );
      return row === undefined ? undefined : withdrawalOf(row);
    },
    async withdrawals(filter, page) {
      const conditions: string[] = [];
      const values: unknown[] = [];
      if (filter.userId !== undefined) {
        values.push(filter.userId);
        conditions.push(`user_id = $${values.length}`);
      }
      if (filter.status !== undefined) {
        values.push(filter.status);
        conditions.push(`status = $${values.length}`);
      }
      const where = conditions.length === 0 ? "true" : conditions.join(" AND ");
      const name = `withdrawals-${filter.userId === undefined ? "any" : "user"}-${filter.status === undefined ? "any" : "status"}`;
      return paginate(name, "exchange_withdrawals", where, "withdrawal_id DESC", values, page, withdrawalOf);
    },
    async market(marketId) {
      const row = await one("predex-exchange-market", "SELECT * FROM markets WHERE market_id = $1", [
        marketId,
      ]);
      if (row === undefined) return undefined;
      const options = await all(
        "predex-exchange-market-options",
        `SELECT o.outcome_id, o.name, p.option_id, p.option_index, p.title, p.asset_id
         FROM market_outcomes o JOIN market_options p ON p.outcome_id = o.outcome_id
         WHERE o.market_id = $1 ORDER BY o.outcome_id, p.option_index`,
        [marketId],
      );
      return catalogMarketOf(marketId, row, options);
    },
  };
}
