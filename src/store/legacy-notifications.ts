// The notification list of spec 001 (`GET /api/user/notification/list`, step 11; its record is
// "not shown", so it is ours: docs/decisions.md). A user is notified of two things:
//
// - ORDER_RESULT: each of the user's order requests that reached SUCCESS or FAILED. The finished
//   row of the request queue (legacy_requests) is the notification, read as it is: no copy that
//   could disagree with the result endpoint.
// - MARKET_SETTLED / MARKET_VOIDED: a market in which the user held a position was settled or
//   voided. Written by a projector in the commit that settles it (legacy_notifications), so the
//   notification exists exactly when the settlement does, also across a crash.

import type { MarketSettledEvent, MarketVoidedEvent } from "../core/events.js";
import { atomsToNumber } from "../core/money.js";
import type { Page, PageRequest } from "./exchange-read-models.js";
import { ddl, type IntegerColumn, perDialect, type Sql, sql, toNumber } from "./sql.js";

export const notificationTypes = ["ORDER_RESULT", "MARKET_SETTLED", "MARKET_VOIDED"] as const;
export type NotificationType = (typeof notificationTypes)[number];

export interface NotificationRecord {
  /** `request:<fgRequestId>` or `market:<marketId>`: unique per user and stable. */
  readonly id: string;
  readonly userId: number;
  readonly type: NotificationType;
  /** The fgRequestId (ORDER_RESULT) or the market id (settlements), as a string. */
  readonly refId: string;
  readonly marketId: number | null;
  /** A one-line summary a partner may show as it is. */
  readonly title: string;
  /** JSON text with the details (see docs/decisions.md). */
  readonly content: string;
  readonly createTimeMs: number;
}

export interface NotificationReadModel {
  /** The user's notifications, newest first. */
  list(userId: number, page: PageRequest): Promise<Page<NotificationRecord>>;
}

// ---- What both adapters share: the table, the notification a settlement writes for each holder,
// and the mapping of the merged list's rows. The list's query stays each dialect's (JSON and casts).

export const notificationMigrations: readonly Sql[] = [
  sql`CREATE TABLE legacy_notifications (
     notification_id ${perDialect({
       sqlite: "INTEGER PRIMARY KEY AUTOINCREMENT",
       postgres: "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
     })},
     user_id ${ddl.int64} NOT NULL,
     type text NOT NULL CHECK (type IN ('MARKET_SETTLED', 'MARKET_VOIDED')),
     market_id ${ddl.int64} NOT NULL,
     title text NOT NULL,
     content text NOT NULL,
     create_time_ms ${ddl.int64} NOT NULL,
     UNIQUE (user_id, market_id)
   )${ddl.strict};
   CREATE INDEX legacy_notifications_by_user ON legacy_notifications (user_id, create_time_ms);`,
];

// The list reads legacy_requests by user; that table is the request queue's, so its index is added
// here, by the one reader that needs it, once the queue's own migration has run.
export const requestIndexMigrations: readonly Sql[] = [
  sql`CREATE INDEX legacy_requests_finished_by_user ON legacy_requests (user_id, update_time_ms) WHERE status <> 'PENDING';`,
];

export interface SettledMarket {
  readonly title: string;
  readonly winners: readonly { outcomeId: number; optionId: number; optionTitle: string }[];
}

/** The notification a settlement or a void writes for one holder of the market's shares. */
export function settlementNotification(
  event: MarketSettledEvent | MarketVoidedEvent,
  market: SettledMarket,
  holder: { readonly held: bigint; readonly claimable: bigint },
): { type: NotificationType; title: string; content: string } {
  const settled = event.type === "MarketSettled";
  const content = JSON.stringify({
    marketId: event.marketId,
    title: market.title,
    status: settled ? "settled" : "void",
    winners: market.winners,
    shares: atomsToNumber(holder.held),
    claimable: atomsToNumber(holder.claimable),
    time: new Date(event.atMs).toISOString(),
  });
  return {
    type: settled ? "MARKET_SETTLED" : "MARKET_VOIDED",
    title: `${settled ? "Market settled" : "Market voided"}: ${market.title}`,
    content,
  };
}

/** A row of the merged list (finished requests and settlement notifications). */
export interface NotificationListRow {
  id: string;
  user_id: IntegerColumn;
  type: NotificationType;
  ref_id: string;
  market_id: string | IntegerColumn | null;
  title: string | null;
  status: string | null;
  error_msg: string | null;
  content: string;
  time_ms: IntegerColumn;
}

export function notificationOf(row: NotificationListRow): NotificationRecord {
  const title =
    row.title ?? (row.status === "SUCCESS" ? "Order executed" : `Order failed: ${row.error_msg ?? ""}`);
  return {
    id: row.id,
    userId: toNumber(row.user_id),
    type: row.type,
    refId: row.ref_id,
    marketId: row.market_id === null ? null : Number(row.market_id),
    title,
    content: row.content,
    createTimeMs: toNumber(row.time_ms),
  };
}
