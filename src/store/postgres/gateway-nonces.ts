// PostgreSQL adapter of the gateway's nonce port (src/store/gateway-nonces.ts; SQLite's:
// src/store/sqlite/gateway-nonces.ts; the batching both share: gateway-nonces-batching.ts), shared
// by every API node: a nonce used on one node is "replayed" on every other for the whole window.
//
// The database decides: `INSERT … ON CONFLICT DO UPDATE … WHERE expired` gives a row back only to
// the first use (or to the first use after the row expired), whichever node asks. A small
// in-memory window per node sits in front only to answer a replay seen by this node without a
// round trip; a "fresh" from it is never trusted alone. Nonces are group-committed: at most two
// statements (each one round trip, one durable commit) in flight per node, the next carrying every
// nonce asked since the one before was sent, and each request is answered once its nonce is
// committed. The statement costs the server several hundred µs of CPU whatever it carries (its
// synchronous commit above all; 5 nonces, 120 µs each, 60 nonces, 14 µs each: docs/performance.md,
// "Issue #31: PostgreSQL's commit path"), and two statements of one node for one partner cannot run
// side by side anyway: both update the partner's usage row, so the second waits for the first's
// commit. An API node runs them on a pool of their own that plans the statement once per connection
// (openGatewayNoncePool): planned for each batch, it cost a third more ("Issue #31: PostgreSQL CPU
// per durable order, by statement").
//
// The per-partner cap (250,000 live nonces) bounds the table against one partner's flood. Live
// counts are kept per partner per tenth of the window (gateway_nonce_usage, updated in the same
// statement as the insert), so the check is a few rows' sum, not a count over the partner's rows;
// the sum covers one bucket more than the window, so it errs on the side of refusing. Nodes check
// it concurrently, so it can be passed by at most the nonces committed in one concurrent batch.
// Expired rows are deleted in small batches by whichever node's timer is due.
//
// Lock order (issue #27: batches of two nodes deadlocked). A batch locks rows of two tables: the
// nonce rows it inserts or finds (a replay locks the row it finds), then one usage row per partner.
// Both are taken in a fixed order, sorted by key: nonces by (app_key, nonce), usage rows by
// app_key, and every nonce before any usage row (the usage insert aggregates the nonce insert's
// whole output first). PostgreSQL inserts the rows of INSERT … SELECT … ORDER BY in that order, so
// two batches that want the same rows queue for them and never hold one each of two. The order
// cannot be left to the plan: a hash aggregate lists partners in an order that depends on the
// batch's estimated size, which a custom plan takes from the batch. The prune takes no part: it
// skips rows another transaction holds (SKIP LOCKED) and never waits for one.

import {
  MemoryNonceWindow,
  type NonceOutcome,
  type NonceStore,
  nonceEntriesPerPartnerMax,
} from "../gateway-nonces.js";
import {
  NonceBatchQueue,
  type NonceBatchWrite,
  type PendingNonce,
  pruneIsDue,
} from "../gateway-nonces-batching.js";
import { openPostgresPool, type PostgresPool } from "./database.js";
import { applyPostgresMigrations } from "./migrations.js";

export const gatewayNonceMigrations: readonly string[] = [
  `CREATE TABLE gateway_nonces (
     app_key text NOT NULL,
     nonce text NOT NULL,
     expires_at_ms bigint NOT NULL,
     PRIMARY KEY (app_key, nonce)
   );
   CREATE INDEX gateway_nonces_by_expiry ON gateway_nonces (expires_at_ms);
   CREATE TABLE gateway_nonce_usage (
     app_key text NOT NULL,
     bucket_start_ms bigint NOT NULL,
     count integer NOT NULL,
     PRIMARY KEY (app_key, bucket_start_ms)
   );`,
];

/** Rows one prune statement deletes at most: short statements, few locks, no long vacuum debt at once. */
export const gatewayNoncePruneBatchRowsMax = 5_000;
/** The live-count buckets per window. */
const usageBucketsPerWindow = 10;
/** Nonces one statement carries at most; the rest go in the next, at once. */
export const gatewayNonceStatementNoncesMax = 2_048;
/**
 * Statements a node has in flight at most: the one PostgreSQL runs and one queued right behind it
 * (on another connection, waiting for the usage row), so the server never waits for this process's
 * event loop between two; nonces asked meanwhile wait and go together in the next.
 */
export const gatewayNonceStatementsInFlightMax = 2;

/**
 * The pool an API node's nonce statements run on (statementPool): as many connections as statements
 * may be in flight, each planning the statement once (generic plan). Ended by its opener.
 */
export function openGatewayNoncePool(options: { url: string; applicationName: string }): PostgresPool {
  return openPostgresPool({
    url: options.url,
    applicationName: options.applicationName,
    poolConnectionsMax: gatewayNonceStatementsInFlightMax,
    genericPlansOnly: true,
  });
}

export interface PostgresGatewayNonceOptions {
  readonly windowMs: number;
  /**
   * Where the remember statements run: a pool of gatewayNonceStatementsInFlightMax connections
   * opened with genericPlansOnly (openGatewayNoncePool), so the statement is planned once per
   * connection instead of for every batch (planning it was about a third of its CPU at 5 nonces a
   * statement). Default: the store's pool, planned as that pool plans. Housekeeping always runs on
   * the store's pool.
   */
  readonly statementPool?: PostgresPool;
  readonly entriesPerPartnerMax?: number;
  /** The clock housekeeping runs on (requests carry their own time). */
  readonly nowMs?: () => number;
}

// $1 app keys, $2 nonces, $3 expiries (parallel arrays, no (app_key, nonce) twice), $4 the window
// (a nonce's own request clock is its expiry less the window: a row is taken over only if it had
// expired by that clock, not by the batch's earliest),
// $5 the newest usage bucket no longer counted (every nonce of a later bucket may still be live),
// $6 the cap, $7 this batch's bucket.
const rememberStatement = {
  name: "predex-gateway-nonces-remember",
  text: `WITH asked AS (
           SELECT app_key, nonce, expires_at_ms
           FROM unnest($1::text[], $2::text[], $3::bigint[]) AS asked(app_key, nonce, expires_at_ms)
         ),
         allowed AS (
           SELECT partners.app_key FROM (SELECT app_key, count(*) AS wanted FROM asked GROUP BY app_key) AS partners
           WHERE partners.wanted + coalesce((
             SELECT sum(usage.count) FROM gateway_nonce_usage AS usage
             WHERE usage.app_key = partners.app_key AND usage.bucket_start_ms > $5), 0) <= $6
         ),
         inserted AS (
           INSERT INTO gateway_nonces AS nonces (app_key, nonce, expires_at_ms)
           SELECT app_key, nonce, expires_at_ms FROM asked WHERE app_key IN (SELECT app_key FROM allowed)
           ORDER BY app_key, nonce
           ON CONFLICT (app_key, nonce) DO UPDATE SET expires_at_ms = EXCLUDED.expires_at_ms
             WHERE nonces.expires_at_ms < EXCLUDED.expires_at_ms - $4::bigint
           RETURNING app_key, nonce
         ),
         counted AS (
           INSERT INTO gateway_nonce_usage AS usage (app_key, bucket_start_ms, count)
           SELECT app_key, $7, count(*) FROM inserted GROUP BY app_key ORDER BY app_key
           ON CONFLICT (app_key, bucket_start_ms) DO UPDATE SET count = usage.count + EXCLUDED.count
         )
         SELECT asked.app_key, asked.nonce,
                (inserted.nonce IS NOT NULL) AS fresh,
                (asked.app_key IN (SELECT app_key FROM allowed)) AS allowed
         FROM asked LEFT JOIN inserted USING (app_key, nonce)`,
};

// Rows another transaction holds (a batch taking an expired nonce over) are skipped, not waited
// for: they are either live again when it commits or deleted by a later prune.
const pruneStatements = {
  nonces: {
    name: "predex-gateway-nonces-prune",
    text: `DELETE FROM gateway_nonces WHERE ctid = ANY (ARRAY(
             SELECT ctid FROM gateway_nonces WHERE expires_at_ms < $1 LIMIT $2 FOR UPDATE SKIP LOCKED))`,
  },
  usage: {
    name: "predex-gateway-nonces-prune-usage",
    text: `DELETE FROM gateway_nonce_usage WHERE ctid = ANY (ARRAY(
             SELECT ctid FROM gateway_nonce_usage WHERE bucket_start_ms < $1 FOR UPDATE SKIP LOCKED))`,
  },
} as const;

export async function openPostgresGatewayNonceStore(
  pool: PostgresPool,
  options: PostgresGatewayNonceOptions,
): Promise<NonceStore> {
  await applyPostgresMigrations(pool, "gateway_nonces", gatewayNonceMigrations);
  const limits: NonceLimits = {
    windowMs: options.windowMs,
    entriesMax: options.entriesPerPartnerMax ?? nonceEntriesPerPartnerMax,
    bucketMs: Math.max(1, Math.ceil(options.windowMs / usageBucketsPerWindow)),
  };
  const rememberBatch = rememberStatementOn(options.statementPool ?? pool, limits);
  const pruneWhenDue = expiredNoncePruner(pool, limits, options.nowMs ?? Date.now);
  const write: NonceBatchWrite = async (batch, nowMs) => {
    try {
      return await rememberBatch(batch, nowMs);
    } finally {
      pruneWhenDue();
    }
  };
  return new NonceBatchQueue(new MemoryNonceWindow(options.windowMs, limits.entriesMax), write, {
    batchesInFlightMax: gatewayNonceStatementsInFlightMax,
    batchNoncesMax: gatewayNonceStatementNoncesMax,
    // At the next turn, so the rest of this turn's nonces join the statement.
    nextBatchAtOnceAfterSettled: false,
  });
}

interface NonceLimits {
  readonly windowMs: number;
  /** Live nonces per partner at most. */
  readonly entriesMax: number;
  /** The width of a live-count bucket. */
  readonly bucketMs: number;
}

interface RememberRow {
  readonly app_key: string;
  readonly nonce: string;
  readonly fresh: boolean;
  readonly allowed: boolean;
}

/** One batch in one statement (one round trip, one commit): each nonce's outcome, in batch order. */
function rememberStatementOn(
  statementPool: PostgresPool,
  limits: NonceLimits,
): (batch: readonly PendingNonce[], nowMs: number) => Promise<NonceOutcome[]> {
  return async (batch, nowMs) => {
    const bucketStartMs = Math.floor(nowMs / limits.bucketMs) * limits.bucketMs;
    const result = await statementPool.query<RememberRow>({
      ...rememberStatement,
      values: [
        batch.map((entry) => entry.partnerKey),
        batch.map((entry) => entry.nonce),
        batch.map((entry) => entry.expiresAtMs),
        limits.windowMs,
        bucketStartMs - limits.windowMs - limits.bucketMs,
        limits.entriesMax,
        bucketStartMs,
      ],
    });
    const rows = new Map(result.rows.map((row) => [`${row.app_key}\u0000${row.nonce}`, row]));
    return batch.map((entry) => outcomeOfRow(rows.get(`${entry.partnerKey}\u0000${entry.nonce}`)));
  };
}

function outcomeOfRow(row: RememberRow | undefined): NonceOutcome {
  if (row?.fresh === true) return "fresh";
  // Not stored: the partner is at its cap.
  if (row?.allowed === false) return "full";
  // Another node has it.
  return "replayed";
}

/**
 * Starts a prune of the expired rows when one is due and none runs, off the request path; a
 * failure is retried at the next interval (expired rows are harmless: the insert takes an expired
 * row over).
 */
function expiredNoncePruner(pool: PostgresPool, limits: NonceLimits, clock: () => number): () => void {
  let prunedAtMs = clock();
  let pruning = false;
  const prune = async (nowMs: number): Promise<void> => {
    for (;;) {
      const result = await pool.query({
        ...pruneStatements.nonces,
        values: [nowMs, gatewayNoncePruneBatchRowsMax],
      });
      if ((result.rowCount ?? 0) < gatewayNoncePruneBatchRowsMax) break;
    }
    await pool.query({ ...pruneStatements.usage, values: [nowMs - limits.windowMs - 2 * limits.bucketMs] });
  };
  return () => {
    const nowMs = clock();
    if (pruning || !pruneIsDue(prunedAtMs, nowMs)) return;
    pruning = true;
    prunedAtMs = nowMs;
    prune(nowMs)
      .catch(() => {})
      .finally(() => {
        pruning = false;
      });
  };
}
