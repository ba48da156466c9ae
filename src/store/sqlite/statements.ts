// A shared statement (src/store/sql.ts) prepared once on a SQLite database, run synchronously:
// better-sqlite3 answers inside the caller's turn, which the SQLite projectors and transactions need.

import type Database from "better-sqlite3";
import { type BoundStatements, bind, type Params, render, type Sql } from "../sql.js";
import type { SqliteDatabase } from "./database.js";

export interface SqliteStatement<P> {
  get<Row>(params: P): Row | undefined;
  all<Row>(params: P): Row[];
  run(params: P): Database.RunResult;
}

/**
 * Renders `statement` with `?` and prepares it now, once; each call only binds and runs.
 * `safeIntegers` reads integers as bigint (money columns).
 */
export function prepareSqlite<P>(
  db: SqliteDatabase,
  statement: Sql<P>,
  options: { readonly safeIntegers?: boolean } = {},
): SqliteStatement<P> {
  const rendered = render(statement, "sqlite");
  const prepared = db.prepare(rendered.text);
  if (options.safeIntegers === true) prepared.safeIntegers(true);
  const values = (params: P) => bind(rendered, params as Params | undefined);
  return {
    get: <Row>(params: P) => prepared.get(...values(params)) as Row | undefined,
    all: <Row>(params: P) => prepared.all(...values(params)) as Row[],
    run: (params: P) => prepared.run(...values(params)),
  };
}

/** Runs shared DDL (a table definition written once, its few dialect words switched). */
export function sqliteText(statement: Sql<unknown>): string {
  const rendered = render(statement, "sqlite");
  if (rendered.names.length > 0) throw new Error("DDL binds no parameters");
  return rendered.text;
}

/**
 * A port's statements, each prepared now, answering through promises like PostgreSQL's;
 * `safeIntegers` reads every integer as bigint (as PostgreSQL's int8), for ports with money columns.
 */
export function sqliteStatements<S extends Record<string, Sql<unknown>>>(
  db: SqliteDatabase,
  statements: S,
  options: { readonly safeIntegers?: boolean } = {},
): BoundStatements<S> {
  const bound: Record<string, unknown> = {};
  for (const [key, statement] of Object.entries(statements)) {
    const prepared = prepareSqlite(db, statement as Sql<Params>, options);
    bound[key] = {
      row: async (params: Params) => prepared.get(params),
      rows: async (params: Params) => prepared.all(params),
      run: async (params: Params) => prepared.run(params).changes,
    };
  }
  return bound as BoundStatements<S>;
}

/** A port's statements, each prepared now, run synchronously (inside a projector or a transaction). */
export function prepareSqliteAll<S extends Record<string, Sql<unknown>>>(
  db: SqliteDatabase,
  statements: S,
  options: { readonly safeIntegers?: boolean } = {},
): { [K in keyof S]: S[K] extends Sql<infer P> ? SqliteStatement<P> : never } {
  const prepared: Record<string, unknown> = {};
  for (const [key, statement] of Object.entries(statements))
    prepared[key] = prepareSqlite(db, statement, options);
  return prepared as { [K in keyof S]: S[K] extends Sql<infer P> ? SqliteStatement<P> : never };
}
