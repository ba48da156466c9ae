// SQLite adapter of the legacy asynchronous order requests: the durable queue (a row is written
// before its fgRequestId is returned), the results, and the merchant-notification state.

import type {
  LegacyOrderInstruction,
  LegacyRequestRecord,
  LegacyRequestStatus,
  LegacyRequestStore,
  NotifyStatus,
} from "../legacy.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";

const legacyRequestMigrations = [
  `CREATE TABLE legacy_requests (
     sequence INTEGER PRIMARY KEY AUTOINCREMENT,
     request_id TEXT NOT NULL UNIQUE,
     merchant_id INTEGER NOT NULL,
     user_id INTEGER NOT NULL,
     instruction TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('PENDING', 'SUCCESS', 'FAILED')),
     error_msg TEXT,
     notify_content TEXT NOT NULL,
     notify_status INTEGER NOT NULL DEFAULT 0,
     notify_retry_times INTEGER NOT NULL DEFAULT 0,
     notify_update_time_ms INTEGER,
     next_notify_at_ms INTEGER,
     create_time_ms INTEGER NOT NULL,
     update_time_ms INTEGER NOT NULL
   );
   CREATE INDEX legacy_requests_pending ON legacy_requests (sequence) WHERE status = 'PENDING';
   CREATE INDEX legacy_requests_notify_due ON legacy_requests (next_notify_at_ms)
     WHERE next_notify_at_ms IS NOT NULL;`,
];

interface RequestRow {
  sequence: number;
  request_id: string;
  merchant_id: number;
  user_id: number;
  instruction: string;
  status: LegacyRequestStatus;
  error_msg: string | null;
  notify_content: string;
  notify_status: number;
  notify_retry_times: number;
  notify_update_time_ms: number | null;
  next_notify_at_ms: number | null;
  create_time_ms: number;
  update_time_ms: number;
}

export function createSqliteLegacyRequestStore(db: SqliteDatabase): LegacyRequestStore {
  applyMigrations(db, "legacy_requests", legacyRequestMigrations);
  const insert = db.prepare(
    `INSERT INTO legacy_requests (request_id, merchant_id, user_id, instruction, status, notify_content,
       create_time_ms, update_time_ms)
     VALUES (?, ?, ?, ?, 'PENDING', ?, ?, ?)`,
  );
  const byId = db.prepare("SELECT * FROM legacy_requests WHERE request_id = ?");
  const pending = db.prepare(
    "SELECT * FROM legacy_requests WHERE status = 'PENDING' ORDER BY sequence LIMIT ?",
  );
  const complete = db.prepare(
    `UPDATE legacy_requests SET status = @status, error_msg = @errorMsg, notify_content = @notifyContent,
       notify_status = @notifyStatus, next_notify_at_ms = @nextNotifyAtMs, update_time_ms = @nowMs
     WHERE request_id = @requestId AND status = 'PENDING'`,
  );
  const due = db.prepare(
    `SELECT * FROM legacy_requests WHERE next_notify_at_ms IS NOT NULL AND next_notify_at_ms <= ?
     ORDER BY next_notify_at_ms, sequence LIMIT ?`,
  );
  const attempt = db.prepare(
    `UPDATE legacy_requests SET notify_status = @notifyStatus, notify_retry_times = @notifyRetryTimes,
       next_notify_at_ms = @nextNotifyAtMs, notify_update_time_ms = @nowMs
     WHERE request_id = @requestId`,
  );
  const completeAll = db.transaction((rows: readonly Record<string, string | number | null>[]) => {
    for (const row of rows) complete.run(row);
  });

  return {
    async enqueue(request) {
      insert.run(
        request.requestId,
        request.merchantId,
        request.userId,
        JSON.stringify(request.instruction),
        request.notifyContent,
        request.nowMs,
        request.nowMs,
      );
      return fromRow(byId.get(request.requestId) as RequestRow);
    },
    async find(requestId) {
      const row = byId.get(requestId) as RequestRow | undefined;
      return row === undefined ? undefined : fromRow(row);
    },
    async pending(limit) {
      return (pending.all(limit) as RequestRow[]).map(fromRow);
    },
    async complete(completions, nowMs) {
      completeAll(completions.map((completion) => ({ ...completion, nowMs })));
    },
    async dueNotifications(nowMs, limit) {
      return (due.all(nowMs, limit) as RequestRow[]).map(fromRow);
    },
    async recordNotifyAttempt(record, nowMs) {
      attempt.run({ ...record, nowMs });
    },
  };
}

function fromRow(row: RequestRow): LegacyRequestRecord {
  return {
    requestId: row.request_id,
    sequence: row.sequence,
    merchantId: row.merchant_id,
    userId: row.user_id,
    instruction: JSON.parse(row.instruction) as LegacyOrderInstruction,
    status: row.status,
    errorMsg: row.error_msg,
    notifyContent: row.notify_content,
    notifyStatus: row.notify_status as NotifyStatus,
    notifyRetryTimes: row.notify_retry_times,
    notifyUpdateTimeMs: row.notify_update_time_ms,
    nextNotifyAtMs: row.next_notify_at_ms,
    createTimeMs: row.create_time_ms,
    updateTimeMs: row.update_time_ms,
  };
}
