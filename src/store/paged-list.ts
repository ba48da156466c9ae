// A paginated list with optional filters, written once for both stores. Each set of filters is its
// own statement (prepared once, named on PostgreSQL), so no plan serves a filter it was not made
// for. A page and its total come back from one statement: the total rides on every row as a window
// count (count(*) OVER ()); only a page past the end, which has no rows to carry it, costs a second
// statement, the count.

import type { Page, PageRequest } from "./exchange-read-models.js";
import { pageWindow } from "./page-window.js";
import { type BoundStatements, type IntegerColumn, type Params, type Sql, sql, toNumber } from "./sql.js";

/** What every list statement binds besides its filters' parameters. */
export type PageParams = { readonly limit: number; readonly offset: number };

export interface ListShape<P> {
  readonly select: Sql<P> | Sql;
  readonly from: Sql;
  readonly orderBy: Sql;
  /** Each filter's condition, by its name; the conditions a page uses are joined with AND. */
  readonly filters: Readonly<Record<string, Sql<P>>>;
}

/** `usersKeywordPartner`: a list's statement for a set of filters (`usersAll` for none), names sorted. */
function listKey(list: string, filters: readonly string[]): string {
  const words = filters.length === 0 ? ["all"] : [...filters].sort();
  return list + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");
}

/** Every subset of the names: `[]`, `["a"]`, `["b"]`, `["a", "b"]`. */
function subsets(names: readonly string[]): string[][] {
  const sets: string[][] = [[]];
  for (const name of names) sets.push(...sets.map((set) => [...set, name]));
  return sets;
}

/** Each list's page and count statement for every set of its filters (`<key>Page`, `<key>Count`). */
export function pagedListStatements<P extends Params>(
  lists: Readonly<Record<string, ListShape<P>>>,
): Readonly<Record<string, Sql<P & PageParams>>> {
  const statements: Record<string, Sql<P & PageParams>> = {};
  for (const [list, shape] of Object.entries(lists)) {
    for (const filters of subsets(Object.keys(shape.filters))) {
      const where = filters
        .map((name) => shape.filters[name]!)
        .reduce<Sql<P> | undefined>(
          (all, condition) => (all === undefined ? sql`WHERE ${condition}` : sql`${all} AND ${condition}`),
          undefined,
        );
      const filter = where ?? sql``;
      const key = listKey(list, filters);
      statements[`${key}Page`] = sql<P & PageParams>`SELECT ${shape.select}, count(*) OVER () AS total
        FROM ${shape.from} ${filter} ORDER BY ${shape.orderBy} LIMIT ${"limit"} OFFSET ${"offset"}`;
      statements[`${key}Count`] = sql<P & PageParams>`SELECT count(*) AS total FROM ${shape.from} ${filter}`;
    }
  }
  return statements;
}

/** Reads a page of a list: `filters` names the filters set, `params` binds their parameters. */
export type PagedList<P> = <Row, Value>(
  list: string,
  filters: readonly string[],
  params: P,
  request: PageRequest,
  shape: (row: Row) => Value,
) => Promise<Page<Value>>;

export function pagedListOn<P extends Params>(
  statements: BoundStatements<Readonly<Record<string, Sql<P & PageParams>>>>,
): PagedList<P> {
  return async <Row, Value>(
    list: string,
    filters: readonly string[],
    params: P,
    request: PageRequest,
    shape: (row: Row) => Value,
  ): Promise<Page<Value>> => {
    const key = listKey(list, filters);
    const { limit, offset } = pageWindow(request);
    const bound = { ...params, limit, offset };
    const rows = await statements[`${key}Page`]!.rows<Row & { total: IntegerColumn }>(bound);
    const first = rows[0];
    if (first !== undefined) return { total: toNumber(first.total), records: rows.map(shape) };
    const counted = await statements[`${key}Count`]!.row<{ total: IntegerColumn }>(bound);
    return { total: toNumber(counted?.total ?? 0), records: [] };
  };
}
