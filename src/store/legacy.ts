// What the earlier interface keeps beside the exchange: the authorize nonces it has seen, and the
// asynchronous order requests with their results and merchant-notification state. Asynchronous
// so a PostgreSQL adapter fits as it is; the SQLite adapters answer synchronously inside. The queue
// is claimed, not just read, so that several API nodes sharing it execute each request once and
// deliver each notification from one node at a time (docs/decisions.md, "Legacy interface (spec 001)": "Queue (also on PostgreSQL)").

import {
  type BoundStatement,
  type BoundStatements,
  ddl,
  type IntegerColumn,
  mapped,
  perDialect,
  type Sql,
  sql,
  toNumber,
  toNumberOrNull,
} from "./sql.js";

export interface LegacyNonceStore {
  /**
   * Remembers a partner's nonce until `expiresAtMs`. Resolves false when the nonce is already
   * remembered, which is a reuse. Atomic: of two concurrent calls with one nonce, one gets true.
   */
  remember(partnerId: number, nonce: string, nowMs: number, expiresAtMs: number): Promise<boolean>;
}

// ---- The nonces, written once: a nonce is a primary key per partner, so "seen before" is one
// statement (the INSERT wins, or the conflicting row had expired and is taken over; a live row makes
// it return nothing), and of two concurrent uses exactly one wins. Pruning expired rows is each
// store's own (SQLite one DELETE, PostgreSQL bounded batches off the request's path).

const text = perDialect({ sqlite: "TEXT", postgres: "text" });

/** Renders to the exact texts each database first ran (pinned in test/store/legacy-stores.test.ts). */
export const legacyNonceMigrations: readonly Sql[] = [
  sql`CREATE TABLE legacy_nonces (
     partner_id ${ddl.int64} NOT NULL,
     nonce ${text} NOT NULL,
     expires_at_ms ${ddl.int64} NOT NULL,
     PRIMARY KEY (partner_id, nonce)
   )${ddl.withoutRowid};
   CREATE INDEX legacy_nonces_by_expiry ON legacy_nonces (expires_at_ms);`,
];

/** Expired nonces are deleted at most this often per process, off the per-request path. */
export const legacyNoncePruneIntervalMs = 60_000;

type RememberParams = { partnerId: number; nonce: string; nowMs: number; expiresAtMs: number };

export const legacyNonceStatements = {
  remember: sql<RememberParams>`INSERT INTO legacy_nonces AS nonces (partner_id, nonce, expires_at_ms)
     VALUES (${"partnerId"}, ${"nonce"}, ${"expiresAtMs"})
     ON CONFLICT (partner_id, nonce) DO UPDATE SET expires_at_ms = EXCLUDED.expires_at_ms
       WHERE nonces.expires_at_ms < ${"nowMs"}
     RETURNING 1`,
};

/**
 * The store on the bound statement; `pruneExpired` starts the store's own housekeeping (a
 * synchronous delete, or one the request does not wait for).
 */
export function legacyNonceStoreOn(
  remember: BoundStatement<RememberParams>,
  pruneExpired: (nowMs: number) => void,
): LegacyNonceStore {
  let prunedAtMs = 0;
  return {
    async remember(partnerId, nonce, nowMs, expiresAtMs) {
      if (nowMs - prunedAtMs >= legacyNoncePruneIntervalMs) {
        pruneExpired(nowMs);
        prunedAtMs = nowMs;
      }
      return (await remember.row({ partnerId, nonce, nowMs, expiresAtMs })) !== undefined;
    },
  };
}

export type LegacyRequestStatus = "PENDING" | "SUCCESS" | "FAILED";

/** `notifyStatus` of the result record (ours: spec 001 does not define the values). */
export const notifyStatuses = {
  /** Not sent yet: the request is still executing, or a delivery is due or being retried. */
  pending: 0,
  /** The merchant's webhook answered 2xx. */
  delivered: 1,
  /** Every attempt failed; no more are made. */
  failed: 2,
  /** The merchant has no webhookUrl: nothing is sent. */
  noWebhook: 3,
} as const;
export type NotifyStatus = (typeof notifyStatuses)[keyof typeof notifyStatuses];

/** The order a request asks for, as validated at submission; decimals as strings (exact). */
export interface LegacyOrderInstruction {
  readonly marketId: number;
  readonly outcomeId: number;
  readonly optionId: number;
  readonly direction: "BUY" | "SELL";
  /** The legacy order type the partner sent. */
  readonly orderType: "MARKET" | "LIMIT" | "PARIMUTUEL";
  /** The core's order type it runs as. */
  readonly coreOrderType: "MARKET" | "LIMIT";
  readonly price: string | null;
  readonly amount: string | null;
  readonly shares: string | null;
}

export interface LegacyRequestRecord {
  /** The `fgRequestId`. */
  readonly requestId: string;
  /** Submission order; requests execute in it. */
  readonly sequence: number;
  readonly merchantId: number;
  readonly userId: number;
  readonly instruction: LegacyOrderInstruction;
  readonly status: LegacyRequestStatus;
  readonly errorMsg: string | null;
  /** JSON text with the transaction details (the result record's `notifyContent`). */
  readonly notifyContent: string;
  readonly notifyStatus: NotifyStatus;
  /** Delivery attempts that failed so far. */
  readonly notifyRetryTimes: number;
  readonly notifyUpdateTimeMs: number | null;
  /** When the next delivery attempt is due; null when none is. */
  readonly nextNotifyAtMs: number | null;
  readonly createTimeMs: number;
  readonly updateTimeMs: number;
}

export interface NewLegacyRequest {
  readonly requestId: string;
  readonly merchantId: number;
  readonly userId: number;
  readonly instruction: LegacyOrderInstruction;
  readonly notifyContent: string;
  readonly nowMs: number;
}

export interface LegacyRequestCompletion {
  readonly requestId: string;
  readonly status: "SUCCESS" | "FAILED";
  readonly errorMsg: string | null;
  readonly notifyContent: string;
  readonly notifyStatus: NotifyStatus;
  readonly nextNotifyAtMs: number | null;
}

export interface NotifyAttemptRecord {
  readonly requestId: string;
  readonly notifyStatus: NotifyStatus;
  readonly notifyRetryTimes: number;
  readonly nextNotifyAtMs: number | null;
}

/**
 * One node's claim on queued work. Several API nodes may share one queue (PostgreSQL): a claim
 * gives each request, or each due delivery, to one claimant at a time, and lapses after `leaseMs`
 * so the work of a node that died returns to the queue.
 */
export interface QueueClaim {
  /** Who claims: one executor or notifier (unique per process, e.g. a random id). */
  readonly claimant: string;
  readonly limit: number;
  readonly nowMs: number;
  readonly leaseMs: number;
}

export interface LegacyRequestStore {
  enqueue(request: NewLegacyRequest): Promise<LegacyRequestRecord>;
  find(requestId: string): Promise<LegacyRequestRecord | undefined>;
  /** PENDING requests in submission order, at most `limit` (to look at the queue; claims ignored). */
  pending(limit: number): Promise<LegacyRequestRecord[]>;
  /**
   * Claims at most `limit` PENDING requests, oldest first, for `claimant` until `nowMs + leaseMs`:
   * those nobody holds, those whose claim lapsed, and the claimant's own. A request waits while an
   * older PENDING request of the same user is held by another claimant, so each user's requests
   * still execute in submission order across nodes. Atomic: two claimants never get one request.
   * Answers in submission order.
   */
  claim(claim: QueueClaim): Promise<LegacyRequestRecord[]>;
  /**
   * Records results in one transaction, for the requests `claimant` still holds (a lapsed claim no
   * other claimant has taken over is still held); any other request, or one no longer PENDING, is
   * left as it is.
   */
  complete(completions: readonly LegacyRequestCompletion[], nowMs: number, claimant: string): Promise<void>;
  /** Gives back the claimant's PENDING requests at once (a clean stop), so another node need not wait for the lease. */
  releaseClaims(claimant: string): Promise<void>;
  /**
   * Claims finished requests whose notification is due at nowMs, oldest due first: each goes to one
   * claimant and is not due again before `nowMs + leaseMs` (its retry count is kept), so a
   * delivery is attempted by one node at a time and resumes elsewhere if that node dies.
   */
  claimDueNotifications(claim: QueueClaim): Promise<LegacyRequestRecord[]>;
  /** Records an attempt of a delivery `claimant` holds; false (nothing written) when another claimant took it over. */
  recordNotifyAttempt(attempt: NotifyAttemptRecord, nowMs: number, claimant: string): Promise<boolean>;
}

// ---- The request queue, written once where both stores do the same: the row and its mapping, the
// statements, the claims' statements (one UPDATE of the rows a subquery picks; PostgreSQL's picks
// SKIP LOCKED rows, under an advisory lock for requests). What is each store's own stays in its
// adapter, named: the tables (their migrations grew apart: SQLite added the claim columns in a
// second step), the advisory lock, and recording results (PostgreSQL's one statement over column
// arrays, SQLite's loop in a transaction).

export interface LegacyRequestRow {
  sequence: IntegerColumn;
  request_id: string;
  merchant_id: IntegerColumn;
  user_id: IntegerColumn;
  instruction: string;
  status: LegacyRequestStatus;
  error_msg: string | null;
  notify_content: string;
  notify_status: number;
  notify_retry_times: number;
  notify_update_time_ms: IntegerColumn | null;
  next_notify_at_ms: IntegerColumn | null;
  create_time_ms: IntegerColumn;
  update_time_ms: IntegerColumn;
}

export function legacyRequestOf(row: LegacyRequestRow): LegacyRequestRecord {
  return {
    requestId: row.request_id,
    sequence: toNumber(row.sequence),
    merchantId: toNumber(row.merchant_id),
    userId: toNumber(row.user_id),
    instruction: JSON.parse(row.instruction) as LegacyOrderInstruction,
    status: row.status,
    errorMsg: row.error_msg,
    notifyContent: row.notify_content,
    notifyStatus: row.notify_status as NotifyStatus,
    notifyRetryTimes: row.notify_retry_times,
    notifyUpdateTimeMs: toNumberOrNull(row.notify_update_time_ms),
    nextNotifyAtMs: toNumberOrNull(row.next_notify_at_ms),
    createTimeMs: toNumber(row.create_time_ms),
    updateTimeMs: toNumber(row.update_time_ms),
  };
}

type RequestInsert = Omit<NewLegacyRequest, "instruction"> & { instruction: string };
type AttemptRecord = NotifyAttemptRecord & { nowMs: number; claimant: string };

type ClaimParams = { claimant: string; nowMs: number; limit: number; expiresAtMs: number };

/** The row's parameters for a claim: held (or not due again) until `nowMs + leaseMs`. */
export const claimParams = ({ claimant, limit, nowMs, leaseMs }: QueueClaim): ClaimParams => ({
  claimant,
  nowMs,
  limit,
  expiresAtMs: nowMs + leaseMs,
});

/** Several nodes claim at once on PostgreSQL: a row another claim holds locked is passed over. */
const skipLocked = perDialect({ sqlite: "", postgres: "\n       FOR UPDATE SKIP LOCKED" });

export const legacyRequestStatements = {
  insert: sql<RequestInsert>`INSERT INTO legacy_requests (request_id, merchant_id, user_id, instruction,
      status, notify_content, create_time_ms, update_time_ms)
    VALUES (${"requestId"}, ${"merchantId"}, ${"userId"}, ${"instruction"}, 'PENDING', ${"notifyContent"},
      ${"nowMs"}, ${"nowMs"})
    RETURNING *`,
  byId: sql<{ requestId: string }>`SELECT * FROM legacy_requests WHERE request_id = ${"requestId"}`,
  pending: sql<{
    limit: number;
  }>`SELECT * FROM legacy_requests WHERE status = 'PENDING' ORDER BY sequence LIMIT ${"limit"}`,
  release: sql<{ claimant: string }>`UPDATE legacy_requests SET claimed_by = NULL, claim_expires_at_ms = NULL
    WHERE status = 'PENDING' AND claimed_by = ${"claimant"}`,
  // Moves each due delivery's due time to the end of the lease and names the claimant; the
  // attempt's record (guarded by the claimant) sets the real next time.
  claimDue: sql<ClaimParams>`UPDATE legacy_requests
    SET notify_claimed_by = ${"claimant"}, next_notify_at_ms = ${"expiresAtMs"}
    WHERE sequence IN (
      SELECT sequence FROM legacy_requests
      WHERE next_notify_at_ms IS NOT NULL AND next_notify_at_ms <= ${"nowMs"}
      ORDER BY next_notify_at_ms, sequence LIMIT ${"limit"}${skipLocked})
    RETURNING *`,
  attempt: sql<AttemptRecord>`UPDATE legacy_requests SET notify_status = ${"notifyStatus"},
      notify_retry_times = ${"notifyRetryTimes"}, next_notify_at_ms = ${"nextNotifyAtMs"},
      notify_update_time_ms = ${"nowMs"}, notify_claimed_by = NULL
    WHERE request_id = ${"requestId"} AND notify_claimed_by = ${"claimant"}`,
};

/**
 * The requests a claim takes (QueueClaim): PENDING, not held by another claimant, and no older
 * PENDING request of the same user held by another claimant.
 */
export const legacyClaimStatement = sql<ClaimParams>`UPDATE legacy_requests
     SET claimed_by = ${"claimant"}, claim_expires_at_ms = ${"expiresAtMs"}
     WHERE sequence IN (
       SELECT p.sequence FROM legacy_requests AS p
       WHERE p.status = 'PENDING'
         AND (p.claimed_by IS NULL OR p.claimed_by = ${"claimant"} OR p.claim_expires_at_ms <= ${"nowMs"})
         AND NOT EXISTS (
           SELECT 1 FROM legacy_requests AS q
           WHERE q.status = 'PENDING' AND q.user_id = p.user_id AND q.sequence < p.sequence
             AND q.claimed_by <> ${"claimant"} AND q.claim_expires_at_ms > ${"nowMs"})
       ORDER BY p.sequence LIMIT ${"limit"}${skipLocked})
     RETURNING *`;

/** Claimed rows in submission order: RETURNING has none. */
export function claimedRequests(rows: LegacyRequestRow[]): LegacyRequestRecord[] {
  return rows.sort((a, b) => (a.sequence < b.sequence ? -1 : 1)).map(legacyRequestOf);
}

/** The store on bound statements; claiming requests and recording results are the adapter's. */
export function legacyRequestStoreOn(
  statements: BoundStatements<typeof legacyRequestStatements>,
  own: Pick<LegacyRequestStore, "claim" | "complete">,
): LegacyRequestStore {
  return {
    async enqueue(request) {
      const row = await statements.insert.row<LegacyRequestRow>({
        ...request,
        instruction: JSON.stringify(request.instruction),
      });
      return legacyRequestOf(row!);
    },
    find: async (requestId) =>
      mapped(await statements.byId.row<LegacyRequestRow>({ requestId }), legacyRequestOf),
    pending: async (limit) =>
      (await statements.pending.rows<LegacyRequestRow>({ limit })).map(legacyRequestOf),
    ...own,
    async releaseClaims(claimant) {
      await statements.release.run({ claimant });
    },
    // Every claimed row now has the same due time, so sequence orders them.
    claimDueNotifications: async (claim) =>
      claimedRequests(await statements.claimDue.rows<LegacyRequestRow>(claimParams(claim))),
    recordNotifyAttempt: async (attempt, nowMs, claimant) =>
      (await statements.attempt.run({ ...attempt, nowMs, claimant })) === 1,
  };
}
