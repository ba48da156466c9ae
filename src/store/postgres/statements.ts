// A shared statement (src/store/sql.ts) as a named prepared statement on PostgreSQL: node-postgres
// parses and plans a named statement once per connection and then only sends its values. Names are
// checked unique across the process, since one name with two texts fails on the server.

import type pg from "pg";
import { type BoundStatements, bind, kebabCase, type Params, render, type Sql } from "../sql.js";

/** A pool, a pooled connection (inside a transaction) or a dedicated connection. */
export type Queryable = pg.Pool | pg.ClientBase;

export interface PostgresStatement<P> {
  readonly name: string;
  readonly text: string;
  query<Row extends pg.QueryResultRow>(on: Queryable, params: P): Promise<pg.QueryResult<Row>>;
  /** The first row, or undefined. */
  row<Row extends pg.QueryResultRow>(on: Queryable, params: P): Promise<Row | undefined>;
}

const textsByName = new Map<string, string>();

/** Renders `statement` with `$n` once, under `name` (unique in the process: `predex-<port>-<what>`). */
export function preparePostgres<P>(name: string, statement: Sql<P>): PostgresStatement<P> {
  const rendered = render(statement, "postgres");
  const known = textsByName.get(name);
  if (known !== undefined && known !== rendered.text) throw new Error(`two statements named ${name}`);
  textsByName.set(name, rendered.text);
  const query = <Row extends pg.QueryResultRow>(on: Queryable, params: P): Promise<pg.QueryResult<Row>> =>
    (on as pg.ClientBase).query<Row>({
      name,
      text: rendered.text,
      values: bind(rendered, params as Params | undefined),
    });
  return {
    name,
    text: rendered.text,
    query,
    async row<Row extends pg.QueryResultRow>(on: Queryable, params: P): Promise<Row | undefined> {
      const result = await query<Row>(on, params);
      return result.rows[0];
    },
  };
}

/** Shared DDL as PostgreSQL runs it. */
export function postgresText(statement: Sql<unknown>): string {
  const rendered = render(statement, "postgres");
  if (rendered.names.length > 0) throw new Error("DDL binds no parameters");
  return rendered.text;
}

/** A port's statements as named prepared statements (`<prefix>-<key in kebab case>`) on `on`. */
export function postgresStatements<S extends Record<string, Sql<unknown>>>(
  on: Queryable,
  prefix: string,
  statements: S,
): BoundStatements<S> {
  const bound: Record<string, unknown> = {};
  for (const [key, statement] of Object.entries(statements)) {
    const prepared = preparePostgres(`${prefix}-${kebabCase(key)}`, statement as Sql<Params>);
    bound[key] = {
      row: (params: Params) => prepared.row(on, params),
      rows: async (params: Params) => (await prepared.query(on, params)).rows,
      run: async (params: Params) => (await prepared.query(on, params)).rowCount ?? 0,
    };
  }
  return bound as BoundStatements<S>;
}

/** A port's statements, each named `<prefix>-<key in kebab case>`, to run on a pool or a transaction's client. */
export function preparePostgresAll<S extends Record<string, Sql<unknown>>>(
  prefix: string,
  statements: S,
): { [K in keyof S]: S[K] extends Sql<infer P> ? PostgresStatement<P> : never } {
  const prepared: Record<string, unknown> = {};
  for (const [key, statement] of Object.entries(statements))
    prepared[key] = preparePostgres(`${prefix}-${kebabCase(key)}`, statement);
  return prepared as { [K in keyof S]: S[K] extends Sql<infer P> ? PostgresStatement<P> : never };
}
