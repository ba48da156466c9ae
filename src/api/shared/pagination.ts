// The page rules every paginated route of the four listeners shares (spec 000 "Limits", spec 001
// "Limits"): `page` and `pageSize` are optional (1 and 10), both at least 1, and a `pageSize` above
// 100 is truncated to 100, never refused. `page` is at most pageNumberMax (2,147,483,647), so the
// `current` a page answers with is always the exact integer asked for; a page past the end, up to
// that, is an empty page (the store's pageWindow keeps the offset one SQLite accepts). The route
// schemas carry the same maximum (a query string's larger page is a deserialization failure
// there); this check holds it for every caller. Each surface wraps a problem in its own envelope.

import { pageNumberMax } from "../../contract/partner/pagination.js";
import { type PageRequest, readModelPageSizeMax } from "../../store/exchange-read-models.js";

export { pageNumberMax };
export const defaultPage = 1;
export const defaultPageSize = 10;
export const pageSizeMax = readModelPageSizeMax;

export type PageResolution =
  | { readonly ok: true; readonly value: PageRequest }
  | { readonly ok: false; readonly field: "page" | "pageSize"; readonly reason: string };

export function resolvePageRequest(page: number | undefined, pageSize: number | undefined): PageResolution {
  const current = page ?? defaultPage;
  const size = pageSize ?? defaultPageSize;
  if (!(current >= 1)) return { ok: false, field: "page", reason: "must be >= 1" };
  if (!(current <= pageNumberMax)) return { ok: false, field: "page", reason: `must be <= ${pageNumberMax}` };
  if (!(size >= 1)) return { ok: false, field: "pageSize", reason: "must be >= 1" };
  return { ok: true, value: { page: current, pageSize: Math.min(size, pageSizeMax) } };
}
