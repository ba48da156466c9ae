// PostgreSQL adapter of the operator's probe and metric queries (port: src/store/operations-queries.ts;
// SQLite twin: src/store/sqlite/operations-queries.ts): is the database answering, and how deep the
// legacy request queue is. Read only; legacy_requests belongs to the legacy queue's adapter.

import type { OperationsQueries } from "../operations-queries.js";
import type { PostgresPool } from "./database.js";
import { readReplicationStatus } from "./replication-status.js";

/** A readiness probe must answer, not hang: a database that takes longer is reported unreachable. */
export const pingTimeoutMs = 2_000;

/** PostgreSQL's undefined_table. */
const undefinedTableCode = "42P01";

export async function openPostgresOperationsQueries(pool: PostgresPool): Promise<OperationsQueries> {
  return {
    async ping() {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the database did not answer within ${pingTimeoutMs} ms`)),
          pingTimeoutMs,
        );
      });
      try {
        await Promise.race([pool.query({ name: "predex-operations-ping", text: "SELECT 1" }), timedOut]);
      } finally {
        clearTimeout(timer);
      }
    },
    replication: () => readReplicationStatus(pool),
    async legacyRequestsPending() {
      try {
        const result = await pool.query<{ count: bigint }>({
          name: "predex-operations-legacy-pending",
          text: "SELECT count(*) AS count FROM legacy_requests WHERE status = 'PENDING'",
        });
        return Number(result.rows[0]?.count ?? 0n);
      } catch (error) {
        // The legacy tables exist once the legacy queue's adapter has migrated (as on SQLite, where
        // the count is prepared on first use): before that the queue is empty.
        if ((error as { code?: string }).code === undefinedTableCode) return 0;
        throw error;
      }
    },
  };
}
