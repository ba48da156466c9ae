// The one translation of a page request into SQL's LIMIT and OFFSET, for every paginated query.
// A page far past the end (page=1e20, 1e308) is simply empty: the offset is capped at the largest
// integer SQLite takes losslessly, since a larger JS number would be bound as a REAL and make
// SQLite refuse the statement ("datatype mismatch").

import { type PageRequest, readModelPageSizeMax } from "./exchange-read-models.js";

export interface PageWindow {
  /** Rows to return: 1 to readModelPageSizeMax. */
  readonly limit: number;
  /** Rows to skip: a safe integer, Number.MAX_SAFE_INTEGER at most. */
  readonly offset: number;
}

export function pageWindow(page: PageRequest): PageWindow {
  const limit = Math.min(Math.max(1, Math.floor(page.pageSize)), readModelPageSizeMax);
  const pageNumber = Math.max(1, Math.floor(page.page));
  const offset = (pageNumber - 1) * limit;
  return { limit, offset: Number.isSafeInteger(offset) ? offset : Number.MAX_SAFE_INTEGER };
}

/** Pages needed for `total` rows. */
export function pageCount(total: number, pageSize: number): number {
  return Math.ceil(total / pageSize);
}
