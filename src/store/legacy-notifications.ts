// The notification list of spec 001 (`GET /api/user/notification/list`, step 11; its record is
// "not shown", so it is ours: docs/decisions.md). A user is notified of two things:
//
// - ORDER_RESULT: each of the user's order requests that reached SUCCESS or FAILED. The finished
//   row of the request queue (legacy_requests) is the notification, read as it is: no copy that
//   could disagree with the result endpoint.
// - MARKET_SETTLED / MARKET_VOIDED: a market in which the user held a position was settled or
//   voided. Written by a projector in the commit that settles it (legacy_notifications), so the
//   notification exists exactly when the settlement does, also across a crash.

import type { Page, PageRequest } from "./exchange-read-models.js";

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
