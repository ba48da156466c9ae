// The port of the web console's read queries, written once for both stores (the adapters,
// src/store/sqlite/console-queries.ts and src/store/postgres/console-queries.ts, only bind the
// statements): a market's recent trades for anyone, and the operator's lists of partners, users,
// markets in every status (drafts too) and deposits. Read only, no table of its own: it reads the
// exchange read models' tables and identity's, under the same names and columns on both stores.

import type { Page, PageRequest } from "./exchange-read-models.js";
import { type ListShape, type PagedList, pagedListOn, pagedListStatements } from "./paged-list.js";
import {
  type BooleanColumn,
  type BoundStatements,
  type IntegerColumn,
  perDialect,
  sql,
  toBigint,
  toNumber,
  toNumberOrNull,
} from "./sql.js";

/** One trade as the public sees it: the taker's side, price in the asked option's terms. */
export interface PublicTradeRow {
  readonly tradeId: number;
  /** Atoms, in the terms of the option the query named. */
  readonly price: bigint;
  readonly shares: bigint;
  /** The taker's side, in the terms of the option the query named. */
  readonly takerSide: "BUY" | "SELL";
  readonly timeMs: number;
  /** The taker's own order: the option it named, its side, and the trade price in that option's terms. */
  readonly taker: { readonly optionId: number; readonly side: "BUY" | "SELL"; readonly price: bigint };
}

export interface PartnerListRow {
  readonly partnerId: number;
  readonly name: string;
  readonly appKey: string;
  readonly commissionRateBps: number;
  readonly webhookUrl: string | null;
  readonly signedNonceRequired: boolean;
  readonly createdAtMs: number;
  readonly userCount: number;
}

export interface UserListRow {
  readonly userId: number;
  readonly partnerId: number;
  readonly partnerName: string;
  readonly marchantUserId: string;
  readonly email: string;
  readonly userName: string;
  readonly createdAtMs: number;
  /** Sessions neither revoked nor expired at the asked time. */
  readonly activeSessions: number;
}

export interface UserListFilter {
  /** Matches the start of the merchant's user id, the e-mail or the user name, or the user id exactly. */
  readonly keyword?: string | undefined;
  readonly partnerId?: number | undefined;
}

export interface MarketListRow {
  readonly marketId: number;
  readonly title: string;
  readonly modelType: string;
  readonly status: string;
  readonly categoryId: string | null;
  readonly startTimeMs: number | null;
  readonly endTimeMs: number | null;
  readonly createdAtMs: number;
  readonly volume: bigint;
  /** An exclusive market (DESIGN §10). */
  readonly exclusive: boolean;
}

export interface MarketListFilterAdmin {
  readonly status?: string | undefined;
  /** A substring of the title (case-insensitive for ASCII), or the market id exactly. */
  readonly keyword?: string | undefined;
}

export interface DepositListRow {
  readonly txHash: string;
  readonly userId: number;
  readonly amount: bigint;
  readonly creditedAtMs: number;
}

export interface ConsoleQueries {
  /** The newest trades of an option's outcome, newest first, priced in that option's terms. */
  recentTrades(optionId: number, limit: number): Promise<PublicTradeRow[]>;
  partners(page: PageRequest): Promise<Page<PartnerListRow>>;
  users(filter: UserListFilter, page: PageRequest, nowMs: number): Promise<Page<UserListRow>>;
  markets(filter: MarketListFilterAdmin, page: PageRequest): Promise<Page<MarketListRow>>;
  deposits(filter: { userId?: number | undefined }, page: PageRequest): Promise<Page<DepositListRow>>;
}

// ---- Written once for both adapters: the statements (one per list and set of filters:
// src/store/paged-list.ts), the rows and their mapping; the adapters only bind them.

/** Everything a list's filters may bind; each statement reads only the names it uses. */
export type ConsoleListParams = {
  readonly nowMs?: number;
  readonly partnerId?: number | undefined;
  readonly userId?: number | undefined;
  readonly status?: string | undefined;
  /** The keyword as a LIKE pattern (prefix or substring), its wildcards escaped. */
  readonly pattern?: string;
  /** The keyword as an id when it is all digits (the lists also find a row by its id), else -1. */
  readonly keywordId?: number;
};

// SQLite's LIKE ignores ASCII case already; PostgreSQL's needs ILIKE.
const like = perDialect({ sqlite: "LIKE", postgres: "ILIKE" });

const lists: Record<"partners" | "users" | "markets" | "deposits", ListShape<ConsoleListParams>> = {
  partners: {
    select: sql`p.partner_id, p.name, p.app_key, p.commission_rate_bps, p.webhook_url,
      p.signed_nonce_required, p.created_at_ms,
      (SELECT count(*) FROM identity_users u WHERE u.partner_id = p.partner_id) AS user_count`,
    from: sql`identity_partners p`,
    orderBy: sql`p.partner_id DESC`,
    filters: {},
  },
  users: {
    select: sql<ConsoleListParams>`u.user_id, u.partner_id, p.name AS partner_name, u.marchant_user_id,
      u.email, u.user_name, u.created_at_ms,
      (SELECT count(*) FROM identity_sessions s
       WHERE s.user_id = u.user_id AND s.revoked_at_ms IS NULL AND s.expires_at_ms > ${"nowMs"}) AS active_sessions`,
    from: sql`identity_users u JOIN identity_partners p ON p.partner_id = u.partner_id`,
    orderBy: sql`u.user_id DESC`,
    filters: {
      partner: sql<ConsoleListParams>`u.partner_id = ${"partnerId"}`,
      keyword: sql<ConsoleListParams>`(u.marchant_user_id ${like} ${"pattern"} ESCAPE '\\'
        OR u.email ${like} ${"pattern"} ESCAPE '\\' OR u.user_name ${like} ${"pattern"} ESCAPE '\\'
        OR u.user_id = ${"keywordId"})`,
    },
  },
  markets: {
    select: sql`market_id, title, model_type, status, category_id, start_time_ms, end_time_ms,
      created_at_ms, volume, exclusive`,
    from: sql`markets`,
    orderBy: sql`market_id DESC`,
    filters: {
      status: sql<ConsoleListParams>`status = ${"status"}`,
      keyword: sql<ConsoleListParams>`(title ${like} ${"pattern"} ESCAPE '\\' OR market_id = ${"keywordId"})`,
    },
  },
  deposits: {
    select: sql`tx_hash, user_id, amount, credited_at_ms`,
    from: sql`exchange_deposits`,
    orderBy: sql`credited_at_ms DESC, tx_hash`,
    filters: { user: sql<ConsoleListParams>`user_id = ${"userId"}` },
  },
};

export const consoleStatements = {
  // The price points carry one row per option and trade (in that option's terms, indexed by time);
  // the trade's TAKER row, found by its primary key, adds the size and the taker's side.
  recentTrades: sql<{ optionId: number; limit: number }>`SELECT p.trade_id, p.price, p.time_ms, t.shares,
      t.side, t.option_id = p.option_id AS same_option, t.option_id AS taker_option_id, t.price AS taker_price
    FROM exchange_price_points p
    JOIN exchange_trades t ON t.trade_id = p.trade_id AND t.role = 'TAKER'
    WHERE p.option_id = ${"optionId"} ORDER BY p.time_ms DESC, p.trade_id DESC LIMIT ${"limit"}`,
};

export const consoleListStatements = pagedListStatements(lists);

interface TradeRow {
  trade_id: IntegerColumn;
  price: IntegerColumn;
  time_ms: IntegerColumn;
  shares: IntegerColumn;
  side: "BUY" | "SELL";
  same_option: BooleanColumn | bigint;
  taker_option_id: IntegerColumn;
  taker_price: IntegerColumn;
}

interface PartnerListDbRow {
  partner_id: IntegerColumn;
  name: string;
  app_key: string;
  commission_rate_bps: IntegerColumn;
  webhook_url: string | null;
  signed_nonce_required: BooleanColumn | bigint;
  created_at_ms: IntegerColumn;
  user_count: IntegerColumn;
}

interface UserListDbRow {
  user_id: IntegerColumn;
  partner_id: IntegerColumn;
  partner_name: string;
  marchant_user_id: string;
  email: string;
  user_name: string;
  created_at_ms: IntegerColumn;
  active_sessions: IntegerColumn;
}

interface MarketListDbRow {
  market_id: IntegerColumn;
  title: string;
  model_type: string;
  status: string;
  category_id: string | null;
  start_time_ms: IntegerColumn | null;
  end_time_ms: IntegerColumn | null;
  created_at_ms: IntegerColumn;
  volume: IntegerColumn;
  exclusive: IntegerColumn;
}

interface DepositListDbRow {
  tx_hash: string;
  user_id: IntegerColumn;
  amount: IntegerColumn;
  credited_at_ms: IntegerColumn;
}

/** 1, 1n or true: a boolean as either driver hands it back (SQLite's safe integers give 1n). */
const isTrue = (value: BooleanColumn | bigint) => Number(value) === 1;

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);
const idOf = (keyword: string) => (/^[0-9]{1,15}$/.test(keyword) ? Number(keyword) : -1);

function publicTradeOf(row: TradeRow): PublicTradeRow {
  // In a binary outcome, buying the other option is selling this one, and the reverse.
  const takerBought = (row.side === "BUY") === isTrue(row.same_option);
  return {
    tradeId: toNumber(row.trade_id),
    price: toBigint(row.price),
    shares: toBigint(row.shares),
    takerSide: takerBought ? "BUY" : "SELL",
    timeMs: toNumber(row.time_ms),
    taker: {
      optionId: toNumber(row.taker_option_id),
      side: row.side,
      price: toBigint(row.taker_price),
    },
  };
}

const partnerListRowOf = (row: PartnerListDbRow): PartnerListRow => ({
  partnerId: toNumber(row.partner_id),
  name: row.name,
  appKey: row.app_key,
  commissionRateBps: toNumber(row.commission_rate_bps),
  webhookUrl: row.webhook_url,
  signedNonceRequired: isTrue(row.signed_nonce_required),
  createdAtMs: toNumber(row.created_at_ms),
  userCount: toNumber(row.user_count),
});

const userListRowOf = (row: UserListDbRow): UserListRow => ({
  userId: toNumber(row.user_id),
  partnerId: toNumber(row.partner_id),
  partnerName: row.partner_name,
  marchantUserId: row.marchant_user_id,
  email: row.email,
  userName: row.user_name,
  createdAtMs: toNumber(row.created_at_ms),
  activeSessions: toNumber(row.active_sessions),
});

const marketListRowOf = (row: MarketListDbRow): MarketListRow => ({
  marketId: toNumber(row.market_id),
  title: row.title,
  modelType: row.model_type,
  status: row.status,
  categoryId: row.category_id,
  startTimeMs: toNumberOrNull(row.start_time_ms),
  endTimeMs: toNumberOrNull(row.end_time_ms),
  createdAtMs: toNumber(row.created_at_ms),
  volume: toBigint(row.volume),
  exclusive: toNumber(row.exclusive) === 1,
});

const depositListRowOf = (row: DepositListDbRow): DepositListRow => ({
  txHash: row.tx_hash,
  userId: toNumber(row.user_id),
  amount: toBigint(row.amount),
  creditedAtMs: toNumber(row.credited_at_ms),
});

/**
 * The queries on a database's bound statements (SQLite's with safe integers, so integer columns
 * arrive as bigint on both).
 */
export function consoleQueriesOn(
  statements: BoundStatements<typeof consoleStatements>,
  listStatements: BoundStatements<typeof consoleListStatements>,
): ConsoleQueries {
  const paged: PagedList<ConsoleListParams> = pagedListOn(listStatements);
  const keywordOf = (keyword: string | undefined) => {
    const trimmed = keyword?.trim();
    return trimmed === undefined || trimmed === "" ? undefined : trimmed;
  };

  return {
    recentTrades: async (optionId, limit) =>
      (await statements.recentTrades.rows<TradeRow>({ optionId, limit })).map(publicTradeOf),

    partners: (page) => paged("partners", [], {}, page, partnerListRowOf),

    users(filter, page, nowMs) {
      const keyword = keywordOf(filter.keyword);
      const filters = [
        ...(filter.partnerId === undefined ? [] : ["partner"]),
        ...(keyword === undefined ? [] : ["keyword"]),
      ];
      const params = {
        nowMs,
        partnerId: filter.partnerId,
        ...(keyword === undefined ? {} : { pattern: `${likeEscape(keyword)}%`, keywordId: idOf(keyword) }),
      };
      return paged("users", filters, params, page, userListRowOf);
    },

    markets(filter, page) {
      const keyword = keywordOf(filter.keyword);
      const filters = [
        ...(filter.status === undefined ? [] : ["status"]),
        ...(keyword === undefined ? [] : ["keyword"]),
      ];
      const params = {
        status: filter.status,
        ...(keyword === undefined ? {} : { pattern: `%${likeEscape(keyword)}%`, keywordId: idOf(keyword) }),
      };
      return paged("markets", filters, params, page, marketListRowOf);
    },

    deposits: (filter, page) =>
      paged(
        "deposits",
        filter.userId === undefined ? [] : ["user"],
        { userId: filter.userId },
        page,
        depositListRowOf,
      ),
  };
}
