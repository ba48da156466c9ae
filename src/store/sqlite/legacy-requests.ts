// SQLite adapter of the legacy asynchronous order requests (the store and its claims are written
// once in the port, src/store/legacy.ts): the durable queue (a row is written before its
// fgRequestId is returned), the results, and the merchant-notification state. A SQLite file has one
// process, so every claim still held when the store opens belonged to a process that has ended and
// is given back at once.

import {
  claimedRequests,
  claimParams,
  type LegacyRequestCompletion,
  type LegacyRequestRow,
  type LegacyRequestStore,
  legacyClaimStatement,
  legacyRequestStatements,
  legacyRequestStoreOn,
} from "../legacy.js";
import { sql } from "../sql.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { prepareSqlite, sqliteStatements } from "./statements.js";

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

type CompleteParams = LegacyRequestCompletion & { nowMs: number; claimant: string };

const completeOne = sql<CompleteParams>`UPDATE legacy_requests SET status = ${"status"}, error_msg = ${"errorMsg"},
       notify_content = ${"notifyContent"}, notify_status = ${"notifyStatus"}, next_notify_at_ms = ${"nextNotifyAtMs"},
       update_time_ms = ${"nowMs"}, claimed_by = NULL, claim_expires_at_ms = NULL
     WHERE request_id = ${"requestId"} AND status = 'PENDING' AND claimed_by = ${"claimant"}`;

export function createSqliteLegacyRequestStore(db: SqliteDatabase): LegacyRequestStore {
  applyMigrations(db, "legacy_requests", legacyRequestMigrations);
  // The process that held these claims has ended (one process per file): due at once again.
  db.exec(
    `UPDATE legacy_requests SET claimed_by = NULL, claim_expires_at_ms = NULL
     WHERE status = 'PENDING' AND claimed_by IS NOT NULL;
     UPDATE legacy_requests SET notify_claimed_by = NULL, next_notify_at_ms = 0
     WHERE notify_claimed_by IS NOT NULL AND next_notify_at_ms IS NOT NULL;`,
  );
  const complete = prepareSqlite(db, completeOne);
  const completeAll = db.transaction((rows: readonly CompleteParams[]) => {
    for (const row of rows) complete.run(row);
  });
  const { claim } = sqliteStatements(db, { claim: legacyClaimStatement });
  // SQLite's own: results recorded in a synchronous transaction, one statement per row.
  return legacyRequestStoreOn(sqliteStatements(db, legacyRequestStatements), {
    claim: async (request) => claimedRequests(await claim.rows<LegacyRequestRow>(claimParams(request))),
    async complete(completions, nowMs, claimant) {
      completeAll(completions.map((completion) => ({ ...completion, nowMs, claimant })));
    },
  });
}
