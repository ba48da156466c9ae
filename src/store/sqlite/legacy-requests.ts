// SQLite adapter of the legacy asynchronous order requests (the store is written once in the port,
// src/store/legacy.ts): the durable queue (a row is written before its fgRequestId is returned),
// the results, and the merchant-notification state. Claims
// (QueueClaim in src/store/legacy.ts) follow the same rules as on PostgreSQL; a SQLite file has one
// process, so every claim still held when the store opens belonged to a process that has ended and
// is given back at once.

import {
  type LegacyRequestRow,
  type LegacyRequestStore,
  legacyRequestOf,
  legacyRequestStatements,
  legacyRequestStoreOn,
  type QueueClaim,
} from "../legacy.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { sqliteStatements } from "./statements.js";

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

export function createSqliteLegacyRequestStore(db: SqliteDatabase): LegacyRequestStore {
  applyMigrations(db, "legacy_requests", legacyRequestMigrations);
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
  const due = db.prepare(
    `SELECT sequence FROM legacy_requests WHERE next_notify_at_ms IS NOT NULL AND next_notify_at_ms <= ?
     ORDER BY next_notify_at_ms, sequence LIMIT ?`,
  );
  const claimDelivery = db.prepare(
    "UPDATE legacy_requests SET notify_claimed_by = ?, next_notify_at_ms = ? WHERE sequence = ? RETURNING *",
  );
  const completeAll = db.transaction((rows: readonly Record<string, string | number | null>[]) => {
    for (const row of rows) complete.run(row);
  });
  const claim = db.transaction((request: QueueClaim): LegacyRequestRow[] => {
    const sequences = claimable.pluck().all(request) as number[];
    const expiresAtMs = request.nowMs + request.leaseMs;
    return sequences.map(
      (sequence) => claimOne.get(request.claimant, expiresAtMs, sequence) as LegacyRequestRow,
    );
  });
  const claimDue = db.transaction((request: QueueClaim): LegacyRequestRow[] => {
    const sequences = due.pluck().all(request.nowMs, request.limit) as number[];
    const dueAgainAtMs = request.nowMs + request.leaseMs;
    return sequences.map(
      (sequence) => claimDelivery.get(request.claimant, dueAgainAtMs, sequence) as LegacyRequestRow,
    );
  });

  // SQLite's own: claims and results in synchronous transactions, one statement per row.
  return legacyRequestStoreOn(sqliteStatements(db, legacyRequestStatements), {
    claim: async (request) => claim(request).map(legacyRequestOf),
    async complete(completions, nowMs, claimant) {
      completeAll(completions.map((completion) => ({ ...completion, nowMs, claimant })));
    },
    claimDueNotifications: async (request) => claimDue(request).map(legacyRequestOf),
  });
}
