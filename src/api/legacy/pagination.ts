// Pagination of the legacy reads (spec 001 "Envelope", "Limits"): 1-based pages, a page size above
// 100 capped at 100 (never refused), the counts beside `data`.

import { legacyPageSizeMax } from "../../contract/legacy/envelope.js";
import type { Page, PageRequest } from "../../store/exchange-read-models.js";
import { type LegacyError, parameterError } from "./errors.js";

export const defaultLegacyPage = 1;
export const defaultLegacyPageSize = 10;

export function resolveLegacyPage(
  page: number | undefined,
  pageSize: number | undefined,
): { ok: true; value: PageRequest } | { ok: false; error: LegacyError } {
  const current = page ?? defaultLegacyPage;
  const size = pageSize ?? defaultLegacyPageSize;
  if (current < 1) return { ok: false, error: parameterError("page", "must be >= 1") };
  if (size < 1) return { ok: false, error: parameterError("pageSize", "must be >= 1") };
  return { ok: true, value: { page: current, pageSize: Math.min(size, legacyPageSizeMax) } };
}

export function pagedSuccess<Record, Item>(
  request: PageRequest,
  page: Page<Record>,
  view: (record: Record) => Item,
) {
  return {
    code: 200 as const,
    msg: "success" as const,
    data: page.records.map(view),
    current: request.page,
    size: request.pageSize,
    total: page.total,
    pages: Math.ceil(page.total / request.pageSize),
    totalRow: page.total,
    empty: page.records.length === 0,
  };
}
