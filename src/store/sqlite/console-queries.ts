// The read queries of the web console (the market pages and the operator's desk) that the other
// read models do not answer: a market's recent trades for anyone, and the operator's lists of
// partners, users, markets in every status (drafts too) and deposits. All of the console's SQL is
// here; routes call these functions and shape the rows. Read only: no table or index of its own.

import type { Statement } from "better-sqlite3";
import type { ConsoleQueries } from "../console-queries.js";
import type { PageRequest } from "../exchange-read-models.js";
import { pageWindow } from "../page-window.js";
import type { SqliteDatabase } from "./database.js";

export type * from "../console-queries.js";

/** LIMIT and OFFSET of a page, through the one page translation (a huge page is an empty page). */
function limitAndOffset(page: PageRequest): [number, number] {
  const { limit, offset } = pageWindow(page);
  return [limit, offset];
}

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

export function createConsoleQueries(db: SqliteDatabase): ConsoleQueries {
  // The price points carry one row per option and trade (in that option's terms, indexed by time);
  // the trade's TAKER row, found by its primary key, adds the size and the taker's side.
  const recentTrades = db
    .prepare(
      `SELECT p.trade_id, p.price, p.time_ms, t.shares, t.side, t.option_id = p.option_id AS same_option,
              t.option_id AS taker_option_id, t.price AS taker_price
       FROM exchange_price_points p
       JOIN exchange_trades t ON t.trade_id = p.trade_id AND t.role = 'TAKER'
       WHERE p.option_id = ? ORDER BY p.time_ms DESC, p.trade_id DESC LIMIT ?`,
    )
    .safeIntegers(true);
  const partnerCount = db.prepare("SELECT count(*) FROM identity_partners").pluck();
  const partnerPage = db.prepare(
    `SELECT p.partner_id, p.name, p.app_key, p.commission_rate_bps, p.webhook_url, p.signed_nonce_required,
            p.created_at_ms,
            (SELECT count(*) FROM identity_users u WHERE u.partner_id = p.partner_id) AS user_count
     FROM identity_partners p ORDER BY p.partner_id DESC LIMIT ? OFFSET ?`,
  );
  const depositWhere = (userId: number | undefined) => (userId === undefined ? "1" : "user_id = ?");
  // The filters give a handful of WHERE clauses; each is prepared once.
  const prepared = new Map<string, Statement>();
  const statement = (sql: string, safeIntegers = false) => {
    let found = prepared.get(sql);
    if (found === undefined) {
      found = db.prepare(sql).safeIntegers(safeIntegers);
      prepared.set(sql, found);
    }
    return found;
  };

  return {
    async recentTrades(optionId, limit) {
      const rows = recentTrades.all(optionId, limit) as {
        trade_id: bigint;
        price: bigint;
        time_ms: bigint;
        shares: bigint;
        side: "BUY" | "SELL";
        same_option: bigint;
        taker_option_id: bigint;
        taker_price: bigint;
      }[];
      return rows.map((row) => {
        // In a binary outcome, buying the other option is selling this one, and the reverse.
        const takerBought = (row.side === "BUY") === (row.same_option === 1n);
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

    async partners(page) {
      const total = partnerCount.get() as number;
      const rows = partnerPage.all(...limitAndOffset(page)) as {
        partner_id: number;
        name: string;
        app_key: string;
        commission_rate_bps: number;
        webhook_url: string | null;
        signed_nonce_required: number;
        created_at_ms: number;
        user_count: number;
      }[];
      return {
        total,
        records: rows.map((row) => ({
          partnerId: row.partner_id,
          name: row.name,
          appKey: row.app_key,
          commissionRateBps: row.commission_rate_bps,
          webhookUrl: row.webhook_url,
          signedNonceRequired: row.signed_nonce_required === 1,
          createdAtMs: row.created_at_ms,
          userCount: row.user_count,
        })),
      };
    },

    async users(filter, page, nowMs) {
      const conditions: string[] = [];
      const params: (string | number)[] = [];
      if (filter.partnerId !== undefined) {
        conditions.push("u.partner_id = ?");
        params.push(filter.partnerId);
      }
      const keyword = filter.keyword?.trim();
      if (keyword !== undefined && keyword !== "") {
        const prefix = `${likeEscape(keyword)}%`;
        conditions.push(
          "(u.marchant_user_id LIKE ? ESCAPE '\\' OR u.email LIKE ? ESCAPE '\\' OR u.user_name LIKE ? ESCAPE '\\' OR u.user_id = ?)",
        );
        params.push(prefix, prefix, prefix, /^[0-9]{1,15}$/.test(keyword) ? Number(keyword) : -1);
      }
      const where = conditions.length === 0 ? "1" : conditions.join(" AND ");
      const total = statement(`SELECT count(*) FROM identity_users u WHERE ${where}`)
        .pluck()
        .get(...params);
      const rows = statement(
        `SELECT u.user_id, u.partner_id, p.name AS partner_name, u.marchant_user_id, u.email, u.user_name,
                  u.created_at_ms,
                  (SELECT count(*) FROM identity_sessions s
                   WHERE s.user_id = u.user_id AND s.revoked_at_ms IS NULL AND s.expires_at_ms > ?) AS active_sessions
           FROM identity_users u JOIN identity_partners p ON p.partner_id = u.partner_id
           WHERE ${where} ORDER BY u.user_id DESC LIMIT ? OFFSET ?`,
      ).all(nowMs, ...params, ...limitAndOffset(page)) as {
        user_id: number;
        partner_id: number;
        partner_name: string;
        marchant_user_id: string;
        email: string;
        user_name: string;
        created_at_ms: number;
        active_sessions: number;
      }[];
      return {
        total: total as number,
        records: rows.map((row) => ({
          userId: row.user_id,
          partnerId: row.partner_id,
          partnerName: row.partner_name,
          marchantUserId: row.marchant_user_id,
          email: row.email,
          userName: row.user_name,
          createdAtMs: row.created_at_ms,
          activeSessions: row.active_sessions,
        })),
      };
    },

    async markets(filter, page) {
      const conditions: string[] = [];
      const params: (string | number)[] = [];
      if (filter.status !== undefined) {
        conditions.push("status = ?");
        params.push(filter.status);
      }
      const keyword = filter.keyword?.trim();
      if (keyword !== undefined && keyword !== "") {
        conditions.push("(title LIKE ? ESCAPE '\\' OR market_id = ?)");
        params.push(`%${likeEscape(keyword)}%`, /^[0-9]{1,15}$/.test(keyword) ? Number(keyword) : -1);
      }
      const where = conditions.length === 0 ? "1" : conditions.join(" AND ");
      const total = statement(`SELECT count(*) FROM markets WHERE ${where}`)
        .pluck()
        .get(...params);
      const rows = statement(
        `SELECT market_id, title, model_type, status, category_id, start_time_ms, end_time_ms, created_at_ms, volume,
             exclusive FROM markets WHERE ${where} ORDER BY market_id DESC LIMIT ? OFFSET ?`,
        true,
      ).all(...params, ...limitAndOffset(page)) as {
        market_id: bigint;
        title: string;
        model_type: string;
        status: string;
        category_id: string | null;
        start_time_ms: bigint | null;
        end_time_ms: bigint | null;
        created_at_ms: bigint;
        volume: bigint;
        exclusive: bigint;
      }[];
      const number = (value: bigint | null) => (value === null ? null : Number(value));
      return {
        total: Number(total),
        records: rows.map((row) => ({
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
        })),
      };
    },

    async deposits(filter, page) {
      const params = filter.userId === undefined ? [] : [filter.userId];
      const where = depositWhere(filter.userId);
      const total = statement(`SELECT count(*) FROM exchange_deposits WHERE ${where}`)
        .pluck()
        .get(...params);
      const rows = statement(
        `SELECT tx_hash, user_id, amount, credited_at_ms FROM exchange_deposits WHERE ${where}
           ORDER BY credited_at_ms DESC, tx_hash LIMIT ? OFFSET ?`,
        true,
      ).all(...params, ...limitAndOffset(page)) as {
        tx_hash: string;
        user_id: bigint;
        amount: bigint;
        credited_at_ms: bigint;
      }[];
      return {
        total: Number(total),
        records: rows.map((row) => ({
          txHash: row.tx_hash,
          userId: Number(row.user_id),
          amount: row.amount,
          creditedAtMs: Number(row.credited_at_ms),
        })),
      };
    },
  };
}
