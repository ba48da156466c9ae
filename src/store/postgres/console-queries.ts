// PostgreSQL adapter of the web console's read queries (port: src/store/console-queries.ts; SQLite
// twin: src/store/sqlite/console-queries.ts). Read only, no table of its own: it reads the exchange
// read models (markets, exchange_trades, exchange_price_points, exchange_deposits: the exchange
// projector's tables) and identity (identity_partners, identity_users, identity_sessions: the
// identity adapter's), under the same names and columns as on SQLite.
//
// A page and its total come back in one round trip: the total rides on every row as a window count
// (count(*) OVER ()); only a page past the end, which has no rows to carry it, costs a second count.

import type { ConsoleQueries, PublicTradeRow } from "../console-queries.js";
import type { Page, PageRequest } from "../exchange-read-models.js";
import { pageWindow } from "../page-window.js";
import type { PostgresPool } from "./database.js";

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);
/** The keyword as an id when it is all digits (the lists also find a row by its id), else none. */
const idOf = (keyword: string) => (/^[0-9]{1,15}$/.test(keyword) ? Number(keyword) : -1);

interface Paged {
  readonly total: bigint;
}

export async function openPostgresConsoleQueries(pool: PostgresPool): Promise<ConsoleQueries> {
  /**
   * Runs the page query (whose rows carry `total`) and, when the page is past the end, the count.
   * `where` and `params` are the filter; the page's LIMIT and OFFSET are appended as the last two.
   */
  const paged = async <Row extends Paged, Record>(
    statement: { name: string; select: string; from: string; where: string; orderBy: string },
    params: unknown[],
    page: PageRequest,
    shape: (row: Row) => Record,
  ): Promise<Page<Record>> => {
    const { limit, offset } = pageWindow(page);
    const last = params.length;
    const result = await pool.query<Row>({
      name: `${statement.name}-page`,
      text: `SELECT ${statement.select}, count(*) OVER () AS total FROM ${statement.from}
             WHERE ${statement.where} ORDER BY ${statement.orderBy} LIMIT $${last + 1} OFFSET $${last + 2}`,
      values: [...params, limit, offset],
    });
    const first = result.rows[0];
    if (first !== undefined) return { total: Number(first.total), records: result.rows.map(shape) };
    const counted = await pool.query<{ total: bigint }>({
      name: `${statement.name}-count`,
      text: `SELECT count(*) AS total FROM ${statement.from} WHERE ${statement.where}`,
      values: params,
    });
    return { total: Number(counted.rows[0]?.total ?? 0n), records: [] };
  };

  return {
    async recentTrades(optionId, limit): Promise<PublicTradeRow[]> {
      // The price points carry one row per option and trade (in that option's terms, indexed by
      // time); the trade's TAKER row, found by its primary key, adds the size and the taker's side.
      const result = await pool.query<{
        trade_id: bigint;
        price: bigint;
        time_ms: bigint;
        shares: bigint;
        side: "BUY" | "SELL";
        same_option: boolean;
        taker_option_id: bigint;
        taker_price: bigint;
      }>({
        name: "predex-console-recent-trades",
        text: `SELECT p.trade_id, p.price, p.time_ms, t.shares, t.side, t.option_id = p.option_id AS same_option,
                      t.option_id AS taker_option_id, t.price AS taker_price
               FROM exchange_price_points p
               JOIN exchange_trades t ON t.trade_id = p.trade_id AND t.role = 'TAKER'
               WHERE p.option_id = $1 ORDER BY p.time_ms DESC, p.trade_id DESC LIMIT $2`,
        values: [optionId, limit],
      });
      return result.rows.map((row) => {
        // In a binary outcome, buying the other option is selling this one, and the reverse.
        const takerBought = (row.side === "BUY") === row.same_option;
        return {
          tradeId: Number(row.trade_id),
          price: row.price,
          shares: row.shares,
          takerSide: takerBought ? "BUY" : "SELL",
          timeMs: Number(row.time_ms),
          taker: { optionId: Number(row.taker_option_id), side: row.side, price: row.taker_price },
        };
      });
    },

    partners(page) {
      return paged(
        {
          name: "predex-console-partners",
          select: `p.partner_id, p.name, p.app_key, p.commission_rate_bps, p.webhook_url,
                   p.signed_nonce_required, p.created_at_ms,
                   (SELECT count(*) FROM identity_users u WHERE u.partner_id = p.partner_id) AS user_count`,
          from: "identity_partners p",
          where: "true",
          orderBy: "p.partner_id DESC",
        },
        [],
        page,
        (row: {
          total: bigint;
          partner_id: bigint;
          name: string;
          app_key: string;
          commission_rate_bps: number;
          webhook_url: string | null;
          signed_nonce_required: boolean;
          created_at_ms: bigint;
          user_count: bigint;
        }) => ({
          partnerId: Number(row.partner_id),
          name: row.name,
          appKey: row.app_key,
          commissionRateBps: Number(row.commission_rate_bps),
          webhookUrl: row.webhook_url,
          signedNonceRequired: row.signed_nonce_required,
          createdAtMs: Number(row.created_at_ms),
          userCount: Number(row.user_count),
        }),
      );
    },

    users(filter, page, nowMs) {
      // $1 is the time sessions are counted at; the filter's parameters follow.
      const conditions: string[] = [];
      const params: unknown[] = [nowMs];
      const names: string[] = [];
      if (filter.partnerId !== undefined) {
        params.push(filter.partnerId);
        conditions.push(`u.partner_id = $${params.length}`);
        names.push("partner");
      }
      const keyword = filter.keyword?.trim();
      if (keyword !== undefined && keyword !== "") {
        params.push(`${likeEscape(keyword)}%`, idOf(keyword));
        const prefix = `$${params.length - 1}`;
        conditions.push(
          `(u.marchant_user_id ILIKE ${prefix} OR u.email ILIKE ${prefix} OR u.user_name ILIKE ${prefix} OR u.user_id = $${params.length})`,
        );
        names.push("keyword");
      }
      // The session count's time appears in the count query only as an unused parameter: cast it so
      // the count statement still knows its type.
      const where = [`$1::bigint IS NOT NULL`, ...conditions].join(" AND ");
      return paged(
        {
          name: `predex-console-users-${names.join("-") || "all"}`,
          select: `u.user_id, u.partner_id, p.name AS partner_name, u.marchant_user_id, u.email, u.user_name,
                   u.created_at_ms,
                   (SELECT count(*) FROM identity_sessions s
                    WHERE s.user_id = u.user_id AND s.revoked_at_ms IS NULL AND s.expires_at_ms > $1) AS active_sessions`,
          from: "identity_users u JOIN identity_partners p ON p.partner_id = u.partner_id",
          where,
          orderBy: "u.user_id DESC",
        },
        params,
        page,
        (row: {
          total: bigint;
          user_id: bigint;
          partner_id: bigint;
          partner_name: string;
          marchant_user_id: string;
          email: string;
          user_name: string;
          created_at_ms: bigint;
          active_sessions: bigint;
        }) => ({
          userId: Number(row.user_id),
          partnerId: Number(row.partner_id),
          partnerName: row.partner_name,
          marchantUserId: row.marchant_user_id,
          email: row.email,
          userName: row.user_name,
          createdAtMs: Number(row.created_at_ms),
          activeSessions: Number(row.active_sessions),
        }),
      );
    },

    markets(filter, page) {
      const conditions: string[] = [];
      const params: unknown[] = [];
      const names: string[] = [];
      if (filter.status !== undefined) {
        params.push(filter.status);
        conditions.push(`status = $${params.length}`);
        names.push("status");
      }
      const keyword = filter.keyword?.trim();
      if (keyword !== undefined && keyword !== "") {
        params.push(`%${likeEscape(keyword)}%`, idOf(keyword));
        conditions.push(`(title ILIKE $${params.length - 1} OR market_id = $${params.length})`);
        names.push("keyword");
      }
      const number = (value: bigint | null) => (value === null ? null : Number(value));
      return paged(
        {
          name: `predex-console-markets-${names.join("-") || "all"}`,
          select:
            "market_id, title, model_type, status, category_id, start_time_ms, end_time_ms, created_at_ms, volume, exclusive",
          from: "markets",
          where: conditions.length === 0 ? "true" : conditions.join(" AND "),
          orderBy: "market_id DESC",
        },
        params,
        page,
        (row: {
          total: bigint;
          market_id: bigint;
          title: string;
          model_type: string;
          status: string;
          category_id: string | null;
          start_time_ms: bigint | null;
          end_time_ms: bigint | null;
          created_at_ms: bigint;
          volume: bigint;
          exclusive: number;
        }) => ({
          marketId: Number(row.market_id),
          title: row.title,
          modelType: row.model_type,
          status: row.status,
          categoryId: row.category_id,
          startTimeMs: number(row.start_time_ms),
          endTimeMs: number(row.end_time_ms),
          createdAtMs: Number(row.created_at_ms),
          volume: row.volume,
          exclusive: Number(row.exclusive) === 1,
        }),
      );
    },

    deposits(filter, page) {
      const byUser = filter.userId !== undefined;
      return paged(
        {
          name: `predex-console-deposits-${byUser ? "user" : "all"}`,
          select: "tx_hash, user_id, amount, credited_at_ms",
          from: "exchange_deposits",
          where: byUser ? "user_id = $1" : "true",
          orderBy: "credited_at_ms DESC, tx_hash",
        },
        byUser ? [filter.userId] : [],
        page,
        (row: {
          total: bigint;
          tx_hash: string;
          user_id: bigint;
          amount: bigint;
          credited_at_ms: bigint;
        }) => ({
          txHash: row.tx_hash,
          userId: Number(row.user_id),
          amount: row.amount,
          creditedAtMs: Number(row.credited_at_ms),
        }),
      );
    },
  };
}
