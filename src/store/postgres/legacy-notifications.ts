// The legacy notification list on PostgreSQL (the SQLite twin: src/store/sqlite/legacy-notifications.ts):
// the settlement notifications table with the projector that fills it in the settling commit, and
// the list that merges them with the finished order requests of legacy_requests, newest first.

import type { ExchangeCommand } from "../../core/commands.js";
import type { ExchangeEvent } from "../../core/events.js";
import {
  type NotificationListRow,
  type NotificationReadModel,
  notificationMigrations,
  notificationOf,
  requestIndexMigrations,
  settlementNotification,
} from "../legacy-notifications.js";
import { pageWindow } from "../page-window.js";
import type { BatchStatementWriter, OneStatementRider } from "./batch-statement.js";
import type { PostgresPool } from "./database.js";
import type { PostgresProjector } from "./engine-store.js";
import { applyPostgresMigrations } from "./migrations.js";
import { postgresText } from "./statements.js";

export const postgresNotificationMigrations: readonly string[] = notificationMigrations.map(postgresText);

export async function applyPostgresNotificationMigrations(pool: PostgresPool): Promise<void> {
  await applyPostgresMigrations(pool, "legacy_notifications", postgresNotificationMigrations);
}

const statements = {
  holders: {
    name: "predex-notifications-holders",
    text: `SELECT user_id, sum(shares + frozen_shares)::bigint AS held, sum(claimable)::bigint AS claimable
           FROM exchange_positions WHERE market_id = $1 GROUP BY user_id
           HAVING sum(shares + frozen_shares) > 0 OR sum(claimable) > 0 ORDER BY user_id`,
  },
  marketTitle: {
    name: "predex-notifications-market-title",
    text: "SELECT title FROM markets WHERE market_id = $1",
  },
  optionTitles: {
    name: "predex-notifications-option-titles",
    text: "SELECT option_id, title FROM market_options WHERE option_id = ANY($1::bigint[])",
  },
  insert: {
    name: "predex-notifications-insert",
    text: `INSERT INTO legacy_notifications (user_id, type, market_id, title, content, create_time_ms)
           SELECT user_id, $2, $3, $4, content, $5
           FROM unnest($1::bigint[], $6::text[]) WITH ORDINALITY AS n(user_id, content, ordinal)
           ORDER BY ordinal
           ON CONFLICT (user_id, market_id) DO NOTHING`,
  },
} as const;

/**
 * Projected in the commit of MarketSettled / MarketVoided, after the exchange's own read models
 * (positions already show the settlement): one notification per user who held shares.
 */
export function createPostgresLegacyNotificationProjector(): PostgresProjector<
  ExchangeCommand,
  ExchangeEvent
> &
  OneStatementRider<ExchangeCommand, ExchangeEvent> {
  const projector: PostgresProjector<ExchangeCommand, ExchangeEvent> = async (client, entries) => {
    for (const entry of entries) {
      for (const event of entry.events) {
        if (event.type !== "MarketSettled" && event.type !== "MarketVoided") continue;
        const market = await client.query<{ title: string }>({
          ...statements.marketTitle,
          values: [event.marketId],
        });
        const title = market.rows[0]?.title ?? "";
        let winners: { outcomeId: number; optionId: number; optionTitle: string }[] = [];
        if (event.type === "MarketSettled" && event.winners.length > 0) {
          const titles = await client.query<{ option_id: bigint; title: string }>({
            ...statements.optionTitles,
            values: [event.winners.map((winner) => winner.optionId)],
          });
          const titleOf = new Map(titles.rows.map((row) => [Number(row.option_id), row.title]));
          winners = event.winners.map((winner) => ({
            outcomeId: winner.outcomeId,
            optionId: winner.optionId,
            optionTitle: titleOf.get(winner.optionId) ?? "",
          }));
        }
        const holders = await client.query<{ user_id: bigint; held: bigint; claimable: bigint }>({
          ...statements.holders,
          values: [event.marketId],
        });
        if (holders.rows.length === 0) continue;
        const notifications = holders.rows.map((holder) =>
          settlementNotification(event, { title, winners }, holder),
        );
        const { type, title: summary } = notifications[0]!;
        const contents = notifications.map((notification) => notification.content);
        await client.query({
          ...statements.insert,
          values: [
            holders.rows.map((holder) => holder.user_id),
            type,
            event.marketId,
            summary,
            event.atMs,
            contents,
          ],
        });
      }
    }
  };
  // Only a settlement or a void writes notifications: any other batch writes nothing here.
  const oneStatement: BatchStatementWriter<ExchangeCommand, ExchangeEvent> = {
    writesInOneStatement: (entries) =>
      entries.every((entry) =>
        entry.events.every((event) => event.type !== "MarketSettled" && event.type !== "MarketVoided"),
      ),
    prepare: async () => ({ part: undefined, committed: () => {} }),
  };
  return Object.assign(projector, { oneStatement });
}

/**
 * Needs the request queue's table (legacy_requests, the PostgreSQL legacy request store's, with
 * SQLite's column names): open it after that store.
 */
export async function openPostgresNotificationReadModel(pool: PostgresPool): Promise<NotificationReadModel> {
  await applyPostgresNotificationMigrations(pool);
  await applyPostgresMigrations(
    pool,
    "legacy_notifications_requests",
    requestIndexMigrations.map(postgresText),
  );
  return {
    async list(userId, request) {
      const counted = await pool.query<{ total: bigint }>({
        name: "predex-notifications-count",
        text: `SELECT (SELECT count(*) FROM legacy_requests WHERE user_id = $1 AND status <> 'PENDING')
                    + (SELECT count(*) FROM legacy_notifications WHERE user_id = $1) AS total`,
        values: [userId],
      });
      const total = Number(counted.rows[0]?.total ?? 0n);
      const { limit, offset } = pageWindow(request);
      if (total <= offset) return { total, records: [] };
      // Newest first; at equal times settlements before results, then the later row first.
      const page = await pool.query<NotificationListRow>({
        name: "predex-notifications-page",
        text: `SELECT id, user_id, type, ref_id, market_id, title, status, error_msg, content, time_ms FROM (
                 SELECT 'request:' || request_id AS id, user_id, 'ORDER_RESULT' AS type, request_id::text AS ref_id,
                        instruction::jsonb ->> 'marketId' AS market_id, NULL::text AS title, status::text AS status,
                        error_msg::text AS error_msg, notify_content::text AS content, update_time_ms::bigint AS time_ms,
                        0 AS source, sequence::bigint AS source_order
                 FROM legacy_requests WHERE user_id = $1 AND status <> 'PENDING'
                 UNION ALL
                 SELECT 'market:' || market_id, user_id, type, market_id::text, market_id::text, title, NULL, NULL,
                        content, create_time_ms, 1, notification_id
                 FROM legacy_notifications WHERE user_id = $1
               ) merged ORDER BY time_ms DESC, source DESC, source_order DESC LIMIT $2 OFFSET $3`,
        values: [userId, limit, offset],
      });
      return { total, records: page.rows.map(notificationOf) };
    },
  };
}
