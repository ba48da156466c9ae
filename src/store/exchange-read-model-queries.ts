// The queries behind the trading routes over the exchange read models, written once for both stores
// (the adapters, src/store/sqlite/exchange-read-model-queries.ts and
// src/store/postgres/exchange-read-models.ts, only bind the statements). Same orders, same
// pagination on both (pageWindow: a page far past the end is empty, never an error). What differs
// is named: a user's orders, trades and ledger (UserHistoryReads), which SQLite reads through its
// user history index, and the column that orders deposits credited in the same millisecond.

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
} from "./exchange-read-model-rows.js";
import type {
  ExchangeReadModels,
  LedgerFilter,
  Page,
  PageRequest,
  PricePointRecord,
  UserFilter,
} from "./exchange-read-models.js";
import { pageWindow } from "./page-window.js";
import {
  type BoundStatement,
  type BoundStatements,
  type IntegerColumn,
  perDialect,
  raw,
  type Sql,
  sql,
} from "./sql.js";

/** Everything a read binds; each statement reads only the names it uses. */
export type ReadParams = {
  readonly id?: number | string;
  readonly userId?: number;
  readonly marketId?: number | undefined;
  readonly status?: string | undefined;
  readonly type?: string | undefined;
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly limit?: number;
  readonly offset?: number;
};

type Statement = Sql<ReadParams>;

/** A filtered page as two statements sharing one WHERE: the count, then the page when it has rows. */
function countedPage(
  name: string,
  table: string,
  where: Statement | undefined,
  orderBy: Sql | string,
): Record<string, Statement> {
  const from = where === undefined ? raw(table) : sql<ReadParams>`${raw(table)} WHERE ${where}`;
  return {
    [`${name}Count`]: sql<ReadParams>`SELECT count(*) AS total FROM ${from}`,
    [`${name}Page`]: sql<ReadParams>`SELECT * FROM ${from} ORDER BY ${typeof orderBy === "string" ? raw(orderBy) : orderBy} LIMIT ${"limit"} OFFSET ${"offset"}`,
  };
}

const byUser = sql<ReadParams>`user_id = ${"userId"}`;
const byUserInMarket = sql<ReadParams>`user_id = ${"userId"} AND market_id = ${"marketId"}`;
// The literal status list matches the partial index's WHERE, so the planner can use it.
const open = sql`status IN ('OPEN', 'PARTIALLY_FILLED')`;
const byStatus = sql<ReadParams>`status = ${"status"}`;
/** Deposits credited in the same millisecond, newest first: SQLite's rowid, PostgreSQL's sequence. */
const depositArrival = perDialect({ sqlite: "rowid", postgres: "deposit_seq" });

/** The statements both stores run. */
export const exchangeReadStatements = {
  orderById: sql<ReadParams>`SELECT * FROM exchange_orders WHERE order_id = ${"id"}`,
  // An order's trades: one row per trade (an order never trades with itself), in the index's order.
  tradesOfOrder: sql<ReadParams>`SELECT * FROM exchange_trades WHERE order_id = ${"id"} ORDER BY trade_id`,
  pricePoints: sql<ReadParams>`SELECT * FROM exchange_price_points WHERE option_id = ${"id"} AND time_ms BETWEEN ${"fromMs"} AND ${"toMs"}
         ORDER BY time_ms, trade_id LIMIT ${"limit"}`,
  depositByTxHash: sql<ReadParams>`SELECT * FROM exchange_deposits WHERE tx_hash = ${"id"}`,
  positionById: sql<ReadParams>`SELECT position_id, user_id, market_id, outcome_id, option_id, shares, frozen_shares, cost,
    realized_pnl, status, claimable, claimed_amount, claim_transaction_id FROM exchange_positions WHERE position_id = ${"id"}`,
  withdrawalById: sql<ReadParams>`SELECT * FROM exchange_withdrawals WHERE withdrawal_id = ${"id"}`,
  marketById: sql<ReadParams>`SELECT * FROM markets WHERE market_id = ${"id"}`,
  optionsOfMarket: sql<ReadParams>`SELECT o.outcome_id, o.name, p.option_id, p.option_index, p.title, p.asset_id
     FROM market_outcomes o JOIN market_options p ON p.outcome_id = o.outcome_id
     WHERE o.market_id = ${"id"} ORDER BY o.outcome_id, p.option_index`,
  ...countedPage("openOrdersOfUser", "exchange_orders", sql`${byUser} AND ${open}`, "order_id DESC"),
  ...countedPage(
    "openOrdersOfUserInMarket",
    "exchange_orders",
    sql`${byUserInMarket} AND ${open}`,
    "order_id DESC",
  ),
  ...countedPage("positionsOfUser", "exchange_positions", byUser, "position_id"),
  ...countedPage("positionsOfUserInMarket", "exchange_positions", byUserInMarket, "position_id"),
  ...countedPage(
    "positionsOfUserByStatus",
    "exchange_positions",
    sql`${byUser} AND ${byStatus}`,
    "position_id",
  ),
  ...countedPage(
    "positionsOfUserInMarketByStatus",
    "exchange_positions",
    sql`${byUserInMarket} AND ${byStatus}`,
    "position_id",
  ),
  ...countedPage(
    "depositsOfUser",
    "exchange_deposits",
    byUser,
    sql`credited_at_ms DESC, ${depositArrival} DESC`,
  ),
  ...countedPage("withdrawals", "exchange_withdrawals", undefined, "withdrawal_id DESC"),
  ...countedPage("withdrawalsOfUser", "exchange_withdrawals", byUser, "withdrawal_id DESC"),
  ...countedPage("withdrawalsByStatus", "exchange_withdrawals", byStatus, "withdrawal_id DESC"),
  ...countedPage(
    "withdrawalsOfUserByStatus",
    "exchange_withdrawals",
    sql`${byUser} AND ${byStatus}`,
    "withdrawal_id DESC",
  ),
} as const;

/**
 * A user's orders (all of them), trades and ledger as plain queries over the user indexes, which
 * PostgreSQL runs; SQLite reads its user history index instead (src/store/sqlite/user-history-index.ts).
 */
export const userHistoryStatements = {
  ...countedPage("ordersOfUser", "exchange_orders", byUser, "order_id DESC"),
  ...countedPage("ordersOfUserInMarket", "exchange_orders", byUserInMarket, "order_id DESC"),
  ...countedPage("tradesOfUser", "exchange_trades", byUser, "trade_id DESC, role DESC"),
  ...countedPage("tradesOfUserInMarket", "exchange_trades", byUserInMarket, "trade_id DESC, role DESC"),
  ...countedPage("ledgerOfUser", "exchange_ledger", byUser, "entry_id DESC"),
  ...countedPage(
    "ledgerOfUserByType",
    "exchange_ledger",
    sql`${byUser} AND type = ${"type"}`,
    "entry_id DESC",
  ),
} as const;

type Bound = Readonly<Record<string, BoundStatement<ReadParams>>>;

/** Reads a page through `<name>Count` and `<name>Page`: a page far past the end costs the count alone. */
async function readPage<Value>(
  statements: Bound,
  name: string,
  params: ReadParams,
  request: PageRequest,
  map: (row: Row) => Value,
): Promise<Page<Value>> {
  const { limit, offset } = pageWindow(request);
  const counted = await statements[`${name}Count`]!.row<{ total: IntegerColumn }>(params);
  const total = num(counted?.total ?? 0);
  if (total <= offset) return { records: [], total };
  const rows = await statements[`${name}Page`]!.rows<Row>({ ...params, limit, offset });
  return { records: rows.map(map), total };
}

/** A user's history as a store reads it: rows, mapped here. Orders are all of them (open ones aside). */
export interface UserHistoryReads {
  orders(filter: UserFilter, page: PageRequest): Promise<Page<Row>>;
  trades(filter: UserFilter, page: PageRequest): Promise<Page<Row>>;
  ledger(userId: number, page: PageRequest, filter: LedgerFilter): Promise<Page<Row>>;
}

const same = (row: Row): Row => row;
const ofMarket = (filter: UserFilter): string => (filter.marketId === undefined ? "" : "InMarket");

/** The plain user history (PostgreSQL's): the user indexes, through userHistoryStatements. */
export function userHistoryOn(statements: BoundStatements<typeof userHistoryStatements>): UserHistoryReads {
  const bound = statements as unknown as Bound;
  const user = (filter: UserFilter): ReadParams => ({ userId: filter.userId, marketId: filter.marketId });
  return {
    orders: (filter, page) => readPage(bound, `ordersOfUser${ofMarket(filter)}`, user(filter), page, same),
    trades: (filter, page) => readPage(bound, `tradesOfUser${ofMarket(filter)}`, user(filter), page, same),
    ledger: (userId, page, { type }) =>
      type === undefined
        ? readPage(bound, "ledgerOfUser", { userId }, page, same)
        : readPage(bound, "ledgerOfUserByType", { userId, type }, page, same),
  };
}

const mapPage = <Value>(page: Page<Row>, map: (row: Row) => Value): Page<Value> => ({
  records: page.records.map(map),
  total: page.total,
});

export function exchangeReadModelsOn(
  statements: BoundStatements<typeof exchangeReadStatements>,
  history: UserHistoryReads,
): ExchangeReadModels {
  const bound = statements as unknown as Bound;
  const one = async <Value>(
    statement: BoundStatement<ReadParams>,
    id: number | string,
    map: (row: Row) => Value,
  ) => {
    const row = await statement.row<Row>({ id });
    return row === undefined ? undefined : map(row);
  };
  return {
    orderById: (orderId) => one(statements.orderById, orderId, orderOf),
    async orders(filter, page) {
      if (!filter.openOnly) return mapPage(await history.orders(filter, page), orderOf);
      const params = { userId: filter.userId, marketId: filter.marketId };
      return readPage(bound, `openOrdersOfUser${ofMarket(filter)}`, params, page, orderOf);
    },
    tradesOfOrder: async (orderId) =>
      (await statements.tradesOfOrder.rows<Row>({ id: orderId })).map(tradeOf),
    trades: async (filter, page) => mapPage(await history.trades(filter, page), tradeOf),
    ledger: async (userId, page, filter = {}) =>
      mapPage(await history.ledger(userId, page, filter), ledgerEntryOf),
    positions(filter, page) {
      const name = `positionsOfUser${ofMarket(filter)}${filter.status === undefined ? "" : "ByStatus"}`;
      const params = { userId: filter.userId, marketId: filter.marketId, status: filter.status };
      return readPage(bound, name, params, page, positionOf);
    },
    positionById: (positionId) => one(statements.positionById, positionId, positionOf),
    async pricePoints(optionId, fromMs, toMs, limit) {
      const params = { id: optionId, fromMs, toMs, limit: Math.max(0, Math.floor(limit)) };
      return (await statements.pricePoints.rows<Row>(params)).map((row) => ({
        optionId: num(row.option_id),
        marketId: num(row.market_id),
        outcomeId: num(row.outcome_id),
        price: big(row.price),
        tradeId: num(row.trade_id),
        timeMs: num(row.time_ms),
      })) satisfies PricePointRecord[];
    },
    depositByTxHash: (txHash) => one(statements.depositByTxHash, txHash, depositOf),
    deposits: (userId, page) => readPage(bound, "depositsOfUser", { userId }, page, depositOf),
    withdrawalById: (withdrawalId) => one(statements.withdrawalById, withdrawalId, withdrawalOf),
    withdrawals(filter, page) {
      const name = `withdrawals${filter.userId === undefined ? "" : "OfUser"}${filter.status === undefined ? "" : "ByStatus"}`;
      return readPage(bound, name, { userId: filter.userId, status: filter.status }, page, withdrawalOf);
    },
    async market(marketId) {
      const row = await statements.marketById.row<Row>({ id: marketId });
      if (row === undefined) return undefined;
      return catalogMarketOf(marketId, row, await statements.optionsOfMarket.rows<Row>({ id: marketId }));
    },
  };
}
