// Pagination of the legacy reads (spec 001 "Envelope", "Limits"): 1-based pages, a page size above
// 100 capped at 100 (never refused), the counts beside `data`.

import { legacyPageSizeMax } from "../../contract/legacy/envelope.js";
import type { Page, PageRequest } from "../../store/exchange-read-models.js";
import { pageCount } from "../../store/page-window.js";
import { resolvePageRequest } from "../shared/pagination.js";
import { type LegacyError, parameterError } from "./errors.js";

export function resolveLegacyPage(
  page: number | undefined,
  pageSize: number | undefined,
): { ok: true; value: PageRequest } | { ok: false; error: LegacyError } {
  const resolved = resolvePageRequest(page, pageSize);
  if (!resolved.ok) return { ok: false, error: parameterError(resolved.field, resolved.reason) };
  // Spec 001 caps at 100 as spec 000 does; the legacy constant says so in its own schema.
  return {
    ok: true,
    value: { ...resolved.value, pageSize: Math.min(resolved.value.pageSize, legacyPageSizeMax) },
  };
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
    pages: pageCount(page.total, request.pageSize),
    totalRow: page.total,
    empty: page.records.length === 0,
  };
}
