// The web console's read queries on PostgreSQL; written once in the port (src/store/console-queries.ts).

import {
  type ConsoleQueries,
  consoleListStatements,
  consoleQueriesOn,
  consoleStatements,
} from "../console-queries.js";
import type { PostgresPool } from "./database.js";
import { postgresStatements } from "./statements.js";

export async function openPostgresConsoleQueries(pool: PostgresPool): Promise<ConsoleQueries> {
  return consoleQueriesOn(
    postgresStatements(pool, "predex-console", consoleStatements),
    postgresStatements(pool, "predex-console", consoleListStatements),
  );
}
