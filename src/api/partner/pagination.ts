// Pagination of the current interface (spec 000 "Limits", DESIGN §8): `page` ≥ 1 and `pageSize` ≥ 1,
// both optional (1 and 10); a pageSize above 100 is truncated to 100, never refused. Where the
// fields go depends on the operation: beside `data` for trades, open orders and search.

import type { PageRequest } from "../../store/exchange-read-models.js";
import { pageCount } from "../../store/page-window.js";
import { resolvePageRequest } from "../shared/pagination.js";
import { badRequest, type ServiceError } from "./errors.js";

export { PageFields, PageFieldsSchema } from "../../contract/partner/pagination.js";
export { defaultPage, defaultPageSize, pageSizeMax } from "../shared/pagination.js";

export type PageResult = { ok: true; value: PageRequest } | { ok: false; error: ServiceError };

export function resolvePage(page: number | undefined, pageSize: number | undefined): PageResult {
  const resolved = resolvePageRequest(page, pageSize);
  if (!resolved.ok) return { ok: false, error: badRequest(`${resolved.field} ${resolved.reason}`) };
  return resolved;
}

/** The fields that go beside (or inside) `data`. */
export interface PageFieldsOut {
  readonly current: number;
  readonly size: number;
  readonly total: number;
  readonly pages: number;
}

export function pageFields(request: PageRequest, total: number): PageFieldsOut {
  return {
    current: request.page,
    size: request.pageSize,
    total,
    pages: pageCount(total, request.pageSize),
  };
}
