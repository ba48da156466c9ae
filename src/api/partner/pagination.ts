// Pagination of the current interface (spec 000 "Limits", DESIGN §8): `page` ≥ 1 and `pageSize` ≥ 1,
// both optional (1 and 10); a pageSize above 100 is truncated to 100, never refused. Where the
// fields go depends on the operation: beside `data` for trades, open orders and search.

import { type PageRequest, readModelPageSizeMax } from "../../store/exchange-read-models.js";
import { badRequest, type ServiceError } from "./errors.js";

export { PageFields, PageFieldsSchema } from "../../contract/partner/pagination.js";

export const defaultPage = 1;
export const defaultPageSize = 10;
export const pageSizeMax = readModelPageSizeMax;

export type PageResult = { ok: true; value: PageRequest } | { ok: false; error: ServiceError };

export function resolvePage(page: number | undefined, pageSize: number | undefined): PageResult {
  const current = page ?? defaultPage;
  const size = pageSize ?? defaultPageSize;
  if (current < 1) return { ok: false, error: badRequest("page must be >= 1") };
  if (size < 1) return { ok: false, error: badRequest("pageSize must be >= 1") };
  return { ok: true, value: { page: current, pageSize: Math.min(size, pageSizeMax) } };
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
    pages: Math.ceil(total / request.pageSize),
  };
}
