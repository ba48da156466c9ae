// The web console's read queries on the SQLite file; written once in the port
// (src/store/console-queries.ts). Safe integers: money columns arrive as bigint, as on PostgreSQL.

import {
  type ConsoleQueries,
  consoleListStatements,
  consoleQueriesOn,
  consoleStatements,
} from "../console-queries.js";
import type { SqliteDatabase } from "./database.js";
import { sqliteStatements } from "./statements.js";

export type * from "../console-queries.js";

export function createConsoleQueries(db: SqliteDatabase): ConsoleQueries {
  const options = { safeIntegers: true };
  return consoleQueriesOn(
    sqliteStatements(db, consoleStatements, options),
    sqliteStatements(db, consoleListStatements, options),
  );
}
