// The SQL the operator's probes and metrics run against the SQLite file (the statements are the
// port's, src/store/operations-queries.ts): readiness (is the database answering) and the legacy
// request queue's depth. Read-only; the statements are prepared once.

import { type OperationsQueries, operationsStatements } from "../operations-queries.js";
import type { SqliteDatabase } from "./database.js";
import { prepareSqlite, type SqliteStatement } from "./statements.js";

export type { OperationsQueries };

export function createSqliteOperationsQueries(db: SqliteDatabase): OperationsQueries {
  const ping = prepareSqlite(db, operationsStatements.ping);
  let pending: SqliteStatement<void> | undefined;
  return {
    async ping() {
      ping.get();
    },
    async engineLeader() {
      return undefined;
    },
    async legacyRequestsPending() {
      // Prepared on first use: the legacy tables exist once the legacy listener has been built.
      pending ??= prepareSqlite(db, operationsStatements.legacyRequestsPending);
      return pending.get<{ count: number }>()?.count ?? 0;
    },
  };
}
