// PostgreSQL adapter of the gateway's nonce port (src/store/gateway-nonces.ts; SQLite twin:
// src/store/sqlite/gateway-nonces.ts), shared by every API node: a nonce used on one node is
// "replayed" on every other for the whole window.
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

/** Expired rows are looked for at most this often per node. */
export const postgresGatewayNoncePruneIntervalMs = 60_000;
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

interface PendingNonce {
  readonly partnerKey: string;
  readonly nonce: string;
  readonly expiresAtMs: number;
  /** The request's clock. */
  readonly nowMs: number;
  readonly resolve: (outcome: NonceOutcome) => void;
  readonly reject: (error: unknown) => void;
}

// $1 app keys, $2 nonces, $3 expiries (parallel arrays, no (app_key, nonce) twice), $4 now,
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
             WHERE nonces.expires_at_ms <= $4
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
             SELECT ctid FROM gateway_nonces WHERE expires_at_ms <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED))`,
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
  const entriesMax = options.entriesPerPartnerMax ?? nonceEntriesPerPartnerMax;
  const window = new MemoryNonceWindow(options.windowMs, entriesMax);
  const bucketMs = Math.max(1, Math.ceil(options.windowMs / usageBucketsPerWindow));
  const clock = options.nowMs ?? Date.now;
  const statementPool = options.statementPool ?? pool;
  let prunedAtMs = clock();
  let pruning = false;
  let pending: PendingNonce[] = [];
  /** Statements sent and not answered yet (or about to be sent at the next turn). */
  let statementsInFlight = 0;
  /** A statement is to be sent at the next turn: nonces asked now join it. */
  let sendScheduled = false;

  const prune = async (nowMs: number): Promise<void> => {
    for (;;) {
      const result = await pool.query({
        ...pruneStatements.nonces,
        values: [nowMs, gatewayNoncePruneBatchRowsMax],
      });
      if ((result.rowCount ?? 0) < gatewayNoncePruneBatchRowsMax) break;
    }
    await pool.query({ ...pruneStatements.usage, values: [nowMs - options.windowMs - 2 * bucketMs] });
  };

  const maybePrune = (): void => {
    const nowMs = clock();
    if (pruning || nowMs - prunedAtMs < postgresGatewayNoncePruneIntervalMs) return;
    pruning = true;
    prunedAtMs = nowMs;
    // Off the request path; a failure is retried at the next interval (expired rows are harmless:
    // the insert takes an expired row over).
    prune(nowMs)
      .catch(() => {})
      .finally(() => {
        pruning = false;
      });
  };

  /** Sends one statement with what waits now; when it is answered, the next takes what waits then. */
  const sendWaiting = async (): Promise<void> => {
    sendScheduled = false;
    try {
      const batch = pending.slice(0, gatewayNonceStatementNoncesMax);
      pending = pending.slice(batch.length);
      // The earliest clock of the batch: a row counts as expired only if it was for every request.
      let nowMs = batch[0]!.nowMs;
      for (const entry of batch) nowMs = Math.min(nowMs, entry.nowMs);
      await flush(batch, nowMs);
    } finally {
      statementsInFlight -= 1;
    }
    if (pending.length > 0) startSending();
    maybePrune();
  };

  /** A statement at the next turn, so the rest of this turn's nonces join it. */
  const startSending = (): void => {
    if (sendScheduled || statementsInFlight >= gatewayNonceStatementsInFlightMax) return;
    sendScheduled = true;
    statementsInFlight += 1;
    setImmediate(() => void sendWaiting());
  };

  const flush = async (batch: readonly PendingNonce[], nowMs: number): Promise<void> => {
    const bucketStartMs = Math.floor(nowMs / bucketMs) * bucketMs;
    let rows: { app_key: string; nonce: string; fresh: boolean; allowed: boolean }[];
    try {
      const result = await statementPool.query<{
        app_key: string;
        nonce: string;
        fresh: boolean;
        allowed: boolean;
      }>({
        ...rememberStatement,
        values: [
          batch.map((entry) => entry.partnerKey),
          batch.map((entry) => entry.nonce),
          batch.map((entry) => entry.expiresAtMs),
          nowMs,
          bucketStartMs - options.windowMs - bucketMs,
          entriesMax,
          bucketStartMs,
        ],
      });
      rows = result.rows;
    } catch (error) {
      for (const entry of batch) {
        window.forget(entry.partnerKey, entry.nonce);
        entry.reject(error);
      }
      return;
    }
    const outcomes = new Map(rows.map((row) => [`${row.app_key}\u0000${row.nonce}`, row]));
    for (const entry of batch) {
      const row = outcomes.get(`${entry.partnerKey}\u0000${entry.nonce}`);
      if (row?.fresh === true) {
        entry.resolve("fresh");
      } else if (row?.allowed === false) {
        // Not stored: the same nonce may be tried again once the partner is under its cap.
        window.forget(entry.partnerKey, entry.nonce);
        entry.resolve("full");
      } else {
        // Another node has it (the memory window keeps it, so the next replay here costs nothing).
        entry.resolve("replayed");
      }
    }
  };

  return {
    remember(partnerKey, nonce, nowMs) {
      const expiresAtMs = nowMs + options.windowMs;
      const outcome = window.rememberUntil(partnerKey, nonce, nowMs, expiresAtMs);
      if (outcome !== "fresh") return outcome;
      return new Promise<NonceOutcome>((resolve, reject) => {
        pending.push({ partnerKey, nonce, expiresAtMs, nowMs, resolve, reject });
        startSending();
      });
    },
  };
}
