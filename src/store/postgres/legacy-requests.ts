// PostgreSQL adapter of the legacy asynchronous order requests (the store is written once in the
// port, src/store/legacy.ts; SQLite twin: src/store/sqlite/legacy-requests.ts), shared by every API node.
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
  type LegacyRequestRow,
  type LegacyRequestStore,
  legacyRequestOf,
  legacyRequestStatements,
  legacyRequestStoreOn,
} from "../legacy.js";
import { inTransaction, type PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";
import { postgresStatements } from "./statements.js";

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
  // $1 claimant, $2 now, $3 lease, $4 limit.
  claim: {
    name: "predex-legacy-requests-claim",
    text: `UPDATE legacy_requests SET claimed_by = $1, claim_expires_at_ms = $2::bigint + $3::bigint
           WHERE sequence IN (
             SELECT p.sequence FROM legacy_requests AS p
             WHERE p.status = 'PENDING'
               AND (p.claimed_by IS NULL OR p.claimed_by = $1 OR p.claim_expires_at_ms <= $2)
               AND NOT EXISTS (
                 SELECT 1 FROM legacy_requests AS q
                 WHERE q.status = 'PENDING' AND q.user_id = p.user_id AND q.sequence < p.sequence
                   AND q.claimed_by <> $1 AND q.claim_expires_at_ms > $2)
             ORDER BY p.sequence LIMIT $4
             FOR UPDATE SKIP LOCKED)
           RETURNING *`,
  },
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
  // $1 claimant, $2 now, $3 lease, $4 limit.
  claimDue: {
    name: "predex-legacy-requests-claim-due",
    text: `UPDATE legacy_requests SET notify_claimed_by = $1, next_notify_at_ms = $2::bigint + $3::bigint
           WHERE sequence IN (
             SELECT sequence FROM legacy_requests
             WHERE next_notify_at_ms IS NOT NULL AND next_notify_at_ms <= $2
             ORDER BY next_notify_at_ms, sequence LIMIT $4
             FOR UPDATE SKIP LOCKED)
           RETURNING *`,
  },
} as const;

const bySequence = (a: LegacyRequestRow, b: LegacyRequestRow): number => (a.sequence < b.sequence ? -1 : 1);

export async function openPostgresLegacyRequestStore(pool: PostgresPool): Promise<LegacyRequestStore> {
  await applyPostgresMigrations(pool, "legacy_requests", legacyRequestMigrations);
  // PostgreSQL's own: claims with SKIP LOCKED under the advisory lock, results in one statement.
  return legacyRequestStoreOn(postgresStatements(pool, "predex-legacy-requests", legacyRequestStatements), {
    async claim({ claimant, limit, nowMs, leaseMs }) {
      const rows = await inTransaction(pool, async (client) => {
        await client.query({ ...statements.claimLock, values: [legacyClaimLockKey] });
        const result = await client.query<LegacyRequestRow>({
          ...statements.claim,
          values: [claimant, nowMs, leaseMs, limit],
        });
        return result.rows;
      });
      return rows.sort(bySequence).map(legacyRequestOf);
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
    async claimDueNotifications({ claimant, limit, nowMs, leaseMs }) {
      const result = await pool.query<LegacyRequestRow>({
        ...statements.claimDue,
        values: [claimant, nowMs, leaseMs, limit],
      });
      // RETURNING has no order; every claimed row now has the same due time, so sequence orders them.
      return result.rows.sort(bySequence).map(legacyRequestOf);
    },
  });
}
