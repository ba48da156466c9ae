// Reading the exchange read models' rows: money columns are 64-bit integers of atoms, read back as
// bigint (safeIntegers), so nothing is ever rounded through a double.

import type { Statement } from "better-sqlite3";
import type { Row } from "../exchange-read-model-rows.js";
import type { SqliteDatabase } from "./database.js";

export { big, bigOrNull, num, numOrNull, type Row } from "../exchange-read-model-rows.js";

/** Prepares a statement whose integers come back as bigint (money never passes through a double). */
export function prepareBig<Params extends unknown[], Result = Row>(
  db: SqliteDatabase,
  sql: string,
): Statement<Params, Result> {
  return db.prepare<Params, Result>(sql).safeIntegers(true);
}
