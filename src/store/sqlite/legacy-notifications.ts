// SQLite adapter of the legacy notification list (src/legacy/notifications.ts): the settlement
// notifications table with the projector that fills it in the settling commit, and the list that
// merges them with the finished order requests of legacy_requests, newest first.

import type { ExchangeCommand } from "../../core/commands.js";
import type { ExchangeEvent } from "../../core/events.js";
import type { JournalEntry } from "../../engine/store.js";
import {
  type NotificationListRow,
  type NotificationReadModel,
  notificationMigrations,
  notificationOf,
  requestIndexMigrations,
  settlementNotification,
} from "../legacy-notifications.js";
import { pageWindow } from "../page-window.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import type { SqliteProjector } from "./engine-store.js";
import { sqliteText } from "./statements.js";

const migrations = notificationMigrations.map(sqliteText);

interface HolderRow {
  user_id: number;
  held: bigint;
  claimable: bigint;
}

/**
 * Projected in the commit of MarketSettled / MarketVoided, after the exchange's own read models
 * (positions already show the settlement): one notification per user who held shares.
 */
export function createSqliteLegacyNotificationProjector(
  db: SqliteDatabase,
): SqliteProjector<ExchangeCommand, ExchangeEvent> {
  applyMigrations(db, "legacy_notifications", migrations);
  const holders = db
    .prepare<[number], HolderRow>(
      `SELECT user_id, SUM(shares + frozen_shares) AS held, SUM(claimable) AS claimable
       FROM exchange_positions WHERE market_id = ? GROUP BY user_id
       HAVING SUM(shares + frozen_shares) > 0 OR SUM(claimable) > 0 ORDER BY user_id`,
    )
    .safeIntegers(true);
  const marketTitle = db.prepare<[number], { title: string }>(
    "SELECT title FROM markets WHERE market_id = ?",
  );
  const optionTitle = db.prepare<[number], { title: string }>(
    "SELECT title FROM market_options WHERE option_id = ?",
  );
  const insert = db.prepare(
    `INSERT OR IGNORE INTO legacy_notifications (user_id, type, market_id, title, content, create_time_ms)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  return (_db, entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]) => {
    for (const entry of entries) {
      for (const event of entry.events) {
        if (event.type !== "MarketSettled" && event.type !== "MarketVoided") continue;
        const title = marketTitle.get(event.marketId)?.title ?? "";
        const winners =
          event.type === "MarketSettled"
            ? event.winners.map((winner) => ({
                outcomeId: winner.outcomeId,
                optionId: winner.optionId,
                optionTitle: optionTitle.get(winner.optionId)?.title ?? "",
              }))
            : [];
        for (const holder of holders.all(event.marketId)) {
          const notification = settlementNotification(event, { title, winners }, holder);
          const { type, title: summary, content } = notification;
          insert.run(Number(holder.user_id), type, event.marketId, summary, content, event.atMs);
        }
      }
    }
  };
}

/** Needs the request queue's table: create it after createSqliteLegacyRequestStore. */
export function createSqliteLegacyNotifications(db: SqliteDatabase): NotificationReadModel {
  applyMigrations(db, "legacy_notifications", migrations);
  applyMigrations(db, "legacy_notifications_requests", requestIndexMigrations.map(sqliteText));
  const count = db.prepare<[number, number], { total: number }>(
    `SELECT (SELECT count(*) FROM legacy_requests WHERE user_id = ? AND status <> 'PENDING')
          + (SELECT count(*) FROM legacy_notifications WHERE user_id = ?) AS total`,
  );
  // Newest first; at equal times settlements before results, then the later row first.
  const page = db.prepare<[number, number, number, number], NotificationListRow>(
    `SELECT * FROM (
       SELECT 'request:' || request_id AS id, user_id, 'ORDER_RESULT' AS type, request_id AS ref_id,
              json_extract(instruction, '$.marketId') AS market_id, NULL AS title, status, error_msg,
              notify_content AS content, update_time_ms AS time_ms, 0 AS source, sequence AS source_order
       FROM legacy_requests WHERE user_id = ? AND status <> 'PENDING'
       UNION ALL
       SELECT 'market:' || market_id, user_id, type, CAST(market_id AS TEXT), market_id, title, NULL, NULL,
              content, create_time_ms, 1, notification_id
       FROM legacy_notifications WHERE user_id = ?
     ) ORDER BY time_ms DESC, source DESC, source_order DESC LIMIT ? OFFSET ?`,
  );
  return {
    async list(userId, request) {
      const total = count.get(userId, userId)?.total ?? 0;
      const { limit, offset } = pageWindow(request);
      const rows = total <= offset ? [] : page.all(userId, userId, limit, offset);
      return { total, records: rows.map(notificationOf) };
    },
  };
}
