// SQLite adapter of the legacy asynchronous order requests: the durable queue (a row is written
// before its fgRequestId is returned), the results, and the merchant-notification state. Claims
// (QueueClaim in src/store/legacy.ts) follow the same rules as on PostgreSQL; a SQLite file has one
// process, so every claim still held when the store opens belonged to a process that has ended and
// is given back at once.

import type {
  LegacyOrderInstruction,
  LegacyRequestRecord,
  LegacyRequestStatus,
  LegacyRequestStore,
  NotifyStatus,
  QueueClaim,
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
  // Claims: each request is executed by one executor, each due delivery attempted by one notifier.
  `ALTER TABLE legacy_requests ADD COLUMN claimed_by TEXT;
   ALTER TABLE legacy_requests ADD COLUMN claim_expires_at_ms INTEGER;
   ALTER TABLE legacy_requests ADD COLUMN notify_claimed_by TEXT;
   CREATE INDEX legacy_requests_pending_by_user ON legacy_requests (user_id, sequence) WHERE status = 'PENDING';`,
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
  // The process that held these claims has ended (one process per file): due at once again.
  db.exec(
    `UPDATE legacy_requests SET claimed_by = NULL, claim_expires_at_ms = NULL
     WHERE status = 'PENDING' AND claimed_by IS NOT NULL;
     UPDATE legacy_requests SET notify_claimed_by = NULL, next_notify_at_ms = 0
     WHERE notify_claimed_by IS NOT NULL AND next_notify_at_ms IS NOT NULL;`,
  );
  const claimable = db.prepare(
    `SELECT sequence FROM legacy_requests AS p
     WHERE status = 'PENDING'
       AND (claimed_by IS NULL OR claimed_by = @claimant OR claim_expires_at_ms <= @nowMs)
       AND NOT EXISTS (
         SELECT 1 FROM legacy_requests AS q
         WHERE q.status = 'PENDING' AND q.user_id = p.user_id AND q.sequence < p.sequence
           AND q.claimed_by <> @claimant AND q.claim_expires_at_ms > @nowMs)
     ORDER BY sequence LIMIT @limit`,
  );
  const claimOne = db.prepare(
    "UPDATE legacy_requests SET claimed_by = ?, claim_expires_at_ms = ? WHERE sequence = ? RETURNING *",
  );
  const complete = db.prepare(
    `UPDATE legacy_requests SET status = @status, error_msg = @errorMsg, notify_content = @notifyContent,
       notify_status = @notifyStatus, next_notify_at_ms = @nextNotifyAtMs, update_time_ms = @nowMs,
       claimed_by = NULL, claim_expires_at_ms = NULL
     WHERE request_id = @requestId AND status = 'PENDING' AND claimed_by = @claimant`,
  );
  const release = db.prepare(
    `UPDATE legacy_requests SET claimed_by = NULL, claim_expires_at_ms = NULL
     WHERE status = 'PENDING' AND claimed_by = ?`,
  );
  const due = db.prepare(
    `SELECT sequence FROM legacy_requests WHERE next_notify_at_ms IS NOT NULL AND next_notify_at_ms <= ?
     ORDER BY next_notify_at_ms, sequence LIMIT ?`,
  );
  const claimDelivery = db.prepare(
    "UPDATE legacy_requests SET notify_claimed_by = ?, next_notify_at_ms = ? WHERE sequence = ? RETURNING *",
  );
  const attempt = db.prepare(
    `UPDATE legacy_requests SET notify_status = @notifyStatus, notify_retry_times = @notifyRetryTimes,
       next_notify_at_ms = @nextNotifyAtMs, notify_update_time_ms = @nowMs, notify_claimed_by = NULL
     WHERE request_id = @requestId AND notify_claimed_by = @claimant`,
  );
  const completeAll = db.transaction((rows: readonly Record<string, string | number | null>[]) => {
    for (const row of rows) complete.run(row);
  });
  const claim = db.transaction((request: QueueClaim): RequestRow[] => {
    const sequences = claimable.pluck().all(request) as number[];
    const expiresAtMs = request.nowMs + request.leaseMs;
    return sequences.map((sequence) => claimOne.get(request.claimant, expiresAtMs, sequence) as RequestRow);
  });
  const claimDue = db.transaction((request: QueueClaim): RequestRow[] => {
    const sequences = due.pluck().all(request.nowMs, request.limit) as number[];
    const dueAgainAtMs = request.nowMs + request.leaseMs;
    return sequences.map(
      (sequence) => claimDelivery.get(request.claimant, dueAgainAtMs, sequence) as RequestRow,
    );
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
    async claim(request) {
      return claim(request).map(fromRow);
    },
    async complete(completions, nowMs, claimant) {
      completeAll(completions.map((completion) => ({ ...completion, nowMs, claimant })));
    },
    async releaseClaims(claimant) {
      release.run(claimant);
    },
    async claimDueNotifications(request) {
      return claimDue(request).map(fromRow);
    },
    async recordNotifyAttempt(record, nowMs, claimant) {
      return attempt.run({ ...record, nowMs, claimant }).changes === 1;
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
