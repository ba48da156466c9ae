// Whether the database acknowledges a commit only once a standby has it (synchronous replication).
// predex's own failover protects against losing an engine machine; losing the database machine is
// PostgreSQL's: promoted from an asynchronous replica, the new primary lacks whatever the old one
// acknowledged and had not shipped yet, acknowledged orders included (issue 27: 5 lost, their ids
// reissued). The journal's hash chain makes every node notice such a fork and reload instead of
// serving it (src/engine/journal-chain.ts), but what was lost stays lost. So every node says at
// start, on /readyz and on /metrics which one it runs with.
//
// Read from the primary: synchronous_standby_names and synchronous_commit as this session sees
// them (predex sets synchronous_commit=on in its startup packet), and pg_stat_replication for the
// standbys connected and whether they count as synchronous. pg_stat_replication shows its details
// only to superusers and members of pg_read_all_stats; without them the count is unknown and only
// the configuration is reported.

import type { ReplicationStatus } from "../operations-queries.js";
import type { PostgresPool } from "./database.js";

/** synchronous_commit values under which a commit waits for the synchronous standbys. */
const waitingCommitLevels: ReadonlySet<string> = new Set(["on", "remote_write", "remote_apply"]);

const replicationStatement = {
  name: "predex-replication-status",
  text: `SELECT current_setting('synchronous_standby_names') AS standby_names,
                current_setting('synchronous_commit') AS synchronous_commit,
                pg_is_in_recovery() AS in_recovery,
                pg_has_role(current_user, 'pg_read_all_stats', 'USAGE') AS sees_standbys,
                (SELECT count(*) FROM pg_stat_replication) AS standbys,
                (SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum'))
                  AS synchronous_standbys`,
};

interface ReplicationRow {
  standby_names: string;
  synchronous_commit: string;
  in_recovery: boolean;
  sees_standbys: boolean;
  standbys: bigint;
  synchronous_standbys: bigint;
}

export const asynchronousReplicationWarning =
  "PostgreSQL runs without synchronous replication (synchronous_standby_names is empty, or synchronous_commit does not wait for it): a failover of the database to a replica may lose acknowledged orders. Set synchronous_standby_names on the primary (docs/deployment.md).";

/** What a node logs at start: at warn with the warning when there is one, else at info. */
export async function reportReplicationAtStart(
  pool: PostgresPool,
  log: {
    info(details: object, message: string): void;
    warn(details: object, message: string): void;
  },
): Promise<ReplicationStatus | undefined> {
  let status: ReplicationStatus;
  try {
    status = await readReplicationStatus(pool);
  } catch (error) {
    log.warn({ err: error }, "could not read the database's replication settings");
    return undefined;
  }
  if (status.warning !== undefined) log.warn({ replication: status }, status.warning);
  else
    log.info(
      { replication: status },
      "PostgreSQL replicates synchronously: an acknowledged commit is on a standby too",
    );
  return status;
}

export async function readReplicationStatus(pool: PostgresPool): Promise<ReplicationStatus> {
  const row = (await pool.query<ReplicationRow>(replicationStatement)).rows[0]!;
  const standbyNames = row.standby_names.trim();
  const synchronous = standbyNames !== "" && waitingCommitLevels.has(row.synchronous_commit);
  const synchronousStandbys = row.sees_standbys ? Number(row.synchronous_standbys) : undefined;
  let warning: string | undefined;
  if (row.in_recovery) {
    warning = "The database is a standby in recovery: it takes no writes.";
  } else if (!synchronous) {
    warning = asynchronousReplicationWarning;
  } else if (synchronousStandbys === 0) {
    warning =
      "synchronous_standby_names is set but no synchronous standby is connected: commits wait until one is.";
  }
  return {
    synchronous,
    synchronousStandbyNames: standbyNames,
    synchronousCommit: row.synchronous_commit,
    standbys: row.sees_standbys ? Number(row.standbys) : undefined,
    synchronousStandbys,
    ...(warning === undefined ? {} : { warning }),
  };
}
