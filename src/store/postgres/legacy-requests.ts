// PostgreSQL adapter of the legacy asynchronous order requests (the store and its claims' statements
// are written once in the port, src/store/legacy.ts; SQLite twin: src/store/sqlite/legacy-requests.ts),
// shared by every API node.
//
// Exactly once across nodes: a request is executed by the claimant that holds it. Claims are
// `UPDATE … WHERE sequence IN (SELECT … FOR UPDATE SKIP LOCKED LIMIT n) RETURNING *` with a lease,
// taken under a transaction-scoped advisory lock so that claims are made one after another: the
// "no older request of this user is held by someone else" condition then always sees the claims
// committed before it, and each user's requests keep their submission order across nodes. Results
// are recorded only by the request's current holder; a claim that lapsed (its node died) is taken
// over, and the engine's idempotency (the clientOrderId derived from the fgRequestId) makes the
// second run find the first run's order instead of placing another.
//
// Deliveries: claiming a due delivery moves its due time to the end of the lease and names the
// claimant; the attempt's record (guarded by the claimant) sets the real next time. A node that
// dies mid-delivery leaves the delivery due again when the lease ends, retry count kept.

import {
  claimedRequests,
  claimParams,
  type LegacyRequestRow,
  type LegacyRequestStore,
  legacyClaimStatement,
  legacyRequestStatements,
  legacyRequestStoreOn,
} from "../legacy.js";
import { inTransaction, type PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";
import { postgresStatements, preparePostgres } from "./statements.js";

export const legacyRequestMigrations: readonly string[] = [
  `CREATE TABLE legacy_requests (
     sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     request_id text NOT NULL UNIQUE,
     merchant_id bigint NOT NULL,
     user_id bigint NOT NULL,
     instruction text NOT NULL,
     status text NOT NULL CHECK (status IN ('PENDING', 'SUCCESS', 'FAILED')),
     error_msg text,
     notify_content text NOT NULL,
     notify_status integer NOT NULL DEFAULT 0,
     notify_retry_times integer NOT NULL DEFAULT 0,
     notify_update_time_ms bigint,
     next_notify_at_ms bigint,
     create_time_ms bigint NOT NULL,
     update_time_ms bigint NOT NULL,
     claimed_by text,
     claim_expires_at_ms bigint,
     notify_claimed_by text
   );
   CREATE INDEX legacy_requests_pending ON legacy_requests (sequence) WHERE status = 'PENDING';
   CREATE INDEX legacy_requests_pending_by_user ON legacy_requests (user_id, sequence) WHERE status = 'PENDING';
   CREATE INDEX legacy_requests_notify_due ON legacy_requests (next_notify_at_ms, sequence)
     WHERE next_notify_at_ms IS NOT NULL;`,
];

/** The advisory-lock key claims are taken under, one at a time (ASCII "pdxclaim"). */
export const legacyClaimLockKey = 0x706478636c61696dn;

const statements = {
  claimLock: { name: "predex-legacy-requests-claim-lock", text: "SELECT pg_advisory_xact_lock($1)" },
  claim: preparePostgres("predex-legacy-requests-claim", legacyClaimStatement),
  complete: {
    name: "predex-legacy-requests-complete",
    text: `UPDATE legacy_requests AS r SET status = c.status, error_msg = c.error_msg,
             notify_content = c.notify_content, notify_status = c.notify_status,
             next_notify_at_ms = c.next_notify_at_ms, update_time_ms = $7,
             claimed_by = NULL, claim_expires_at_ms = NULL
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::bigint[])
             AS c(request_id, status, error_msg, notify_content, notify_status, next_notify_at_ms)
           WHERE r.request_id = c.request_id AND r.status = 'PENDING' AND r.claimed_by = $8`,
  },
} as const;

export async function openPostgresLegacyRequestStore(pool: PostgresPool): Promise<LegacyRequestStore> {
  await applyPostgresMigrations(pool, "legacy_requests", legacyRequestMigrations);
  // PostgreSQL's own: claims with SKIP LOCKED under the advisory lock, results in one statement.
  return legacyRequestStoreOn(postgresStatements(pool, "predex-legacy-requests", legacyRequestStatements), {
    async claim(request) {
      const rows = await inTransaction(pool, async (client) => {
        await client.query({ ...statements.claimLock, values: [legacyClaimLockKey] });
        return (await statements.claim.query<LegacyRequestRow>(client, claimParams(request))).rows;
      });
      return claimedRequests(rows);
    },
    async complete(completions, nowMs, claimant) {
      if (completions.length === 0) return;
      await pool.query({
        ...statements.complete,
        values: [
          completions.map((completion) => completion.requestId),
          completions.map((completion) => completion.status),
          completions.map((completion) => completion.errorMsg),
          completions.map((completion) => completion.notifyContent),
          completions.map((completion) => completion.notifyStatus),
          completions.map((completion) => completion.nextNotifyAtMs),
          nowMs,
          claimant,
        ],
      });
    },
  });
}
