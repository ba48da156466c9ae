// The desk's lists, built one way: a paged-list hook owns the page and the filters (a filter that
// changes goes back to page 1) and loads through the admin API; one filter form renders a list's
// search boxes and status selects; one table renders rows by columns; a paged table adds the
// pager and the "nothing here" line.

import type { ComponentChildren, CSSProperties } from "preact";
import { useState } from "preact/hooks";
import { query } from "../shared/api.js";
import { admin, type Paged } from "./admin-api.js";
import { LoadError, Pager, useLoad } from "./ui.js";

/** Rows per page of every desk list. */
export const listPageSize = 20;

/** One page of a list, as the pager needs it. */
export interface ListPage<Row> {
  readonly records: readonly Row[];
  readonly total: number;
  readonly pages: number;
}

export type Filters = Readonly<Record<string, string>>;

export interface PagedList<Row, Filter extends Filters> {
  readonly page: number;
  readonly setPage: (page: number) => void;
  readonly filters: Filter;
  /** Sets one filter and goes back to the first page. */
  readonly setFilter: (name: keyof Filter & string, value: string) => void;
  readonly data: ListPage<Row> | null;
  readonly error: string | null;
  readonly reload: () => void;
}

export interface PagedListOptions<Row> {
  /** Reloads the page this often (a list that changes under the operator's eyes). */
  readonly pollMs?: number;
  /** The route's answer as a page, for a route that does not answer the admin API's Paged shape. */
  readonly toPage?: (answer: unknown) => ListPage<Row>;
}

/** A paged admin list at `path` (GET, with the filters, page and pageSize as query parameters). */
export function usePagedList<Row, Filter extends Filters>(
  path: string,
  initialFilters: Filter,
  options: PagedListOptions<Row> = {},
): PagedList<Row, Filter> {
  const [page, setPage] = useState(1);
  const [filters, setFilters] = useState<Filter>(initialFilters);
  const loaded = useLoad(
    async (): Promise<ListPage<Row>> => {
      const answer = await admin<unknown>(
        "GET",
        `${path}${query({ ...filters, page, pageSize: listPageSize })}`,
      );
      return options.toPage === undefined ? (answer as Paged<Row>) : options.toPage(answer);
    },
    [path, page, ...Object.values(filters)],
    options.pollMs,
  );
  return {
    page,
    setPage,
    filters,
    setFilter: (name, value) => {
      setFilters((current) => ({ ...current, [name]: value }));
      setPage(1);
    },
    data: loaded.data,
    error: loaded.error,
    reload: loaded.reload,
  };
}

/** A filter of a list: a search box, or a select of statuses ("" reads "any"). */
export type FilterField<Filter extends Filters> =
  | {
      readonly kind: "search";
      readonly name: keyof Filter & string;
      readonly label: string;
      readonly inputMode?: "numeric";
      /** Spaces around what is typed do not count. */
      readonly trim?: boolean;
      readonly wide?: boolean;
    }
  | {
      readonly kind: "status";
      readonly name: keyof Filter & string;
      readonly label: string;
      readonly statuses: readonly string[];
    };

/** A list's filters, each applied as it changes. */
export function ListFilters<Row, Filter extends Filters>(props: {
  list: PagedList<Row, Filter>;
  fields: readonly FilterField<Filter>[];
}) {
  const { list } = props;
  return (
    <form class="fields" onSubmit={(event) => event.preventDefault()}>
      {props.fields.map((field) =>
        field.kind === "status" ? (
          <label key={field.name}>
            {field.label}
            <select
              value={list.filters[field.name]}
              onChange={(event) => list.setFilter(field.name, event.currentTarget.value)}
            >
              {field.statuses.map((each) => (
                <option key={each} value={each}>
                  {each === "" ? "any" : each}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <label key={field.name} style={field.wide === true ? { flex: "1 1 280px" } : undefined}>
            {field.label}
            <input
              type="search"
              {...(field.inputMode === undefined ? {} : { inputMode: field.inputMode })}
              value={list.filters[field.name]}
              onInput={(event) => {
                const value = event.currentTarget.value;
                list.setFilter(field.name, field.trim === true ? value.trim() : value);
              }}
            />
          </label>
        ),
      )}
    </form>
  );
}

/** Attributes of a table row: the data-* a test or a script finds it by. */
export type RowAttributes = Readonly<Record<`data-${string}`, string>>;

/** One column of a table: its header and what each row shows in it. */
export interface Column<Row> {
  readonly header: string;
  /** Right-aligned figures. */
  readonly numeric?: boolean;
  /** The cell's class (besides `num` for a numeric column). */
  readonly cellClass?: string | ((row: Row) => string);
  /** The cell's style, where it depends on the row (a tree's indent). */
  readonly cellStyle?: (row: Row) => CSSProperties;
  readonly cell: (row: Row) => ComponentChildren;
}

export function DataTable<Row>(props: {
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => string;
  rowAttributes?: (row: Row) => RowAttributes;
  testId?: string;
}) {
  return (
    <div class="table-wrap">
      <table {...(props.testId === undefined ? {} : { "data-testid": props.testId })}>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th key={column.header} scope="col" {...(column.numeric === true ? { class: "num" } : {})}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)} {...props.rowAttributes?.(row)}>
              {props.columns.map((column) => {
                const cellClass =
                  typeof column.cellClass === "function" ? column.cellClass(row) : column.cellClass;
                const classes = [column.numeric === true ? "num" : undefined, cellClass].filter(Boolean);
                return (
                  <td
                    key={column.header}
                    {...(classes.length === 0 ? {} : { class: classes.join(" ") })}
                    {...(column.cellStyle === undefined ? {} : { style: column.cellStyle(row) })}
                  >
                    {column.cell(row)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A paged list's table: what failed to load, the rows (or `empty` when a loaded page has none and
 * it is given), and the pager.
 */
export function PagedTable<Row, Filter extends Filters>(props: {
  list: PagedList<Row, Filter>;
  columns: readonly Column<Row>[];
  rowKey: (row: Row) => string;
  rowAttributes?: (row: Row) => RowAttributes;
  testId?: string;
  empty?: ComponentChildren;
}) {
  const { list } = props;
  const rows = list.data?.records ?? [];
  return (
    <>
      <LoadError error={list.error} />
      {list.data !== null && rows.length === 0 && props.empty !== undefined ? (
        <p class="muted">{props.empty}</p>
      ) : (
        <DataTable
          columns={props.columns}
          rows={rows}
          rowKey={props.rowKey}
          {...(props.rowAttributes === undefined ? {} : { rowAttributes: props.rowAttributes })}
          {...(props.testId === undefined ? {} : { testId: props.testId })}
        />
      )}
      {list.data !== null && (
        <Pager page={list.page} pages={list.data.pages} total={list.data.total} onPage={list.setPage} />
      )}
    </>
  );
}
