// Reading the exchange read models' rows: money columns are 64-bit integers of atoms, read back as
// bigint (safeIntegers), so nothing is ever rounded through a double.

import type { Statement } from "better-sqlite3";
import type { SqliteDatabase } from "./database.js";

export type Row = Record<string, unknown>;

/** Prepares a statement whose integers come back as bigint (money never passes through a double). */
export function prepareBig<Params extends unknown[], Result = Row>(
  db: SqliteDatabase,
  sql: string,
): Statement<Params, Result> {
  return db.prepare<Params, Result>(sql).safeIntegers(true);
}

export const num = (value: unknown): number => Number(value as bigint);
export const numOrNull = (value: unknown): number | null => (value === null ? null : Number(value as bigint));
export const big = (value: unknown): bigint => value as bigint;
export const bigOrNull = (value: unknown): bigint | null => (value === null ? null : (value as bigint));
