// The SQL the operator's probes and metrics run against the SQLite file: readiness (is the database
// answering) and the legacy request queue's depth. Read-only; the statements are prepared once.

import type { OperationsQueries } from "../operations-queries.js";
import type { SqliteDatabase } from "./database.js";

export type { OperationsQueries };

export function createSqliteOperationsQueries(db: SqliteDatabase): OperationsQueries {
  const ping = db.prepare("SELECT 1");
  let pending: ReturnType<typeof preparePendingCount> | undefined;
  return {
    async ping() {
      ping.get();
    },
    async engineLeader() {
      return undefined;
    },
    async legacyRequestsPending() {
      // Prepared on first use: the legacy tables exist once the legacy listener has been built.
      pending ??= preparePendingCount(db);
      return pending.get()?.count ?? 0;
    },
  };
}

function preparePendingCount(db: SqliteDatabase) {
  return db.prepare<[], { count: number }>(
    "SELECT count(*) AS count FROM legacy_requests WHERE status = 'PENDING'",
  );
}
