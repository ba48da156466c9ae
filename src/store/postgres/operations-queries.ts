// PostgreSQL adapter of the operator's probe and metric queries (port: src/store/operations-queries.ts;
// SQLite twin: src/store/sqlite/operations-queries.ts): is the database answering, and how deep the
// legacy request queue is. Read only; legacy_requests belongs to the legacy queue's adapter.

import { type OperationsQueries, operationsStatements } from "../operations-queries.js";
import type { PostgresPool } from "./database.js";
import { leadershipLockKey } from "./leadership.js";
import { readReplicationStatus } from "./replication-status.js";
import { preparePostgres } from "./statements.js";

/** A readiness probe must answer, not hang: a database that takes longer is reported unreachable. */
export const pingTimeoutMs = 2_000;

/** PostgreSQL's undefined_table. */
const undefinedTableCode = "42P01";

/** The answer of `query`, or an error once pingTimeoutMs has passed without one. */
async function withinPingTimeout<T>(query: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the database did not answer within ${pingTimeoutMs} ms`)),
      pingTimeoutMs,
    );
  });
  try {
    return await Promise.race([query, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

// Live: the leader advertised its command port under the current epoch, renewed its lease, and the
// session that took the epoch still holds the leadership lock (pg_locks: a bigint advisory key is
// classid = high 32 bits, objid = low 32 bits, objsubid = 1). The lock is what a restart, a crash
// or a failover takes away at once, while the row's lease would still look live for a while.
const engineLeaderStatement = {
  name: "predex-operations-engine-leader",
  text: `SELECT leader.epoch,
                leader.advertised_url IS NOT NULL
                AND coalesce(leader.lease_expires_at > now(), false)
                AND EXISTS (
                  SELECT 1 FROM pg_locks lock
                  WHERE lock.locktype = 'advisory' AND lock.granted
                    AND lock.classid = $1::bigint::oid AND lock.objid = $2::bigint::oid AND lock.objsubid = 1
                    AND lock.pid = leader.lock_backend_pid
                    AND lock.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                ) AS live
         FROM engine_leader leader`,
};
const leadershipLockParts = [leadershipLockKey >> 32n, leadershipLockKey & 0xffffffffn];
const ping = preparePostgres("predex-operations-ping", operationsStatements.ping);
const legacyPending = preparePostgres(
  "predex-operations-legacy-pending",
  operationsStatements.legacyRequestsPending,
);

export async function openPostgresOperationsQueries(pool: PostgresPool): Promise<OperationsQueries> {
  return {
    async ping() {
      await withinPingTimeout(ping.query(pool, undefined));
    },
    async engineLeader() {
      try {
        const result = await withinPingTimeout(
          pool.query<{ epoch: bigint; live: boolean }>({
            ...engineLeaderStatement,
            values: leadershipLockParts,
          }),
        );
        const row = result.rows[0];
        return { epoch: row?.epoch ?? 0n, live: row?.live === true };
      } catch (error) {
        // No engine node has created its tables yet: nobody leads.
        if ((error as { code?: string }).code === undefinedTableCode) return { epoch: 0n, live: false };
        throw error;
      }
    },
    replication: () => readReplicationStatus(pool),
    async legacyRequestsPending() {
      try {
        const row = await legacyPending.row<{ count: bigint }>(pool, undefined);
        return Number(row?.count ?? 0n);
      } catch (error) {
        // The legacy tables exist once the legacy queue's adapter has migrated (as on SQLite, where
        // the count is prepared on first use): before that the queue is empty.
        if ((error as { code?: string }).code === undefinedTableCode) return 0;
        throw error;
      }
    },
  };
}
