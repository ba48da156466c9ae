// The legacy market list (spec 001 step 3): the catalogue's listing (every status but draft,
// hottest first) with the filters of GET /api/market/openapi/market/list. Without `keyword` it is
// the catalogue's own paged list; with one, it is the catalogue's full-text search (best match
// first), filtered by category and status over the best keywordHitsMax hits.

import type { Catalogue } from "../catalog/catalogue.js";
import type { MarketDetail } from "../catalog/market-detail.js";
import type { ExchangeReadModels, Page, PageRequest } from "../store/exchange-read-models.js";
import { readModelPageSizeMax } from "../store/exchange-read-models.js";
import { legacyMarketRecord } from "./market-views.js";

/** A keyword search with filters looks at this many best hits at most. */
export const keywordHitsMax = 1_000;
/** The statuses a listed market can have (drafts are never listed). */
export const listedMarketStatuses = ["open", "closed", "resolving", "settled", "void"] as const;

export interface LegacyMarketFilter {
  readonly categoryId?: number | undefined;
  readonly status?: string | undefined;
  readonly keyword?: string | undefined;
}

export type LegacyMarketRecord = ReturnType<typeof legacyMarketRecord>;

export async function listLegacyMarkets(
  sources: { catalogue: Catalogue; exchangeReadModels: ExchangeReadModels },
  filter: LegacyMarketFilter,
  page: PageRequest,
): Promise<Page<LegacyMarketRecord>> {
  const categoryId = filter.categoryId === undefined ? undefined : String(filter.categoryId);
  let ids: Page<number>;
  const keyword = filter.keyword?.trim() ?? "";
  if (keyword === "") {
    const listed = await sources.catalogue.list({ categoryId, status: filter.status }, page);
    ids = { total: listed.total, records: listed.records.map((record) => Number(record.marketId)) };
  } else if (categoryId === undefined && filter.status === undefined) {
    const found = await sources.catalogue.search({ keyword, searchBy: "Market" }, page);
    ids = { total: found.total, records: found.records.map((record) => Number(record.marketId)) };
  } else {
    const hits: number[] = [];
    for (let searchPage = 1; hits.length < keywordHitsMax; searchPage += 1) {
      const found = await sources.catalogue.search(
        { keyword, searchBy: "Market" },
        { page: searchPage, pageSize: readModelPageSizeMax },
      );
      for (const record of found.records) {
        const matches =
          (filter.status === undefined || record.status === filter.status) &&
          (categoryId === undefined || (await categoryOf(sources, Number(record.marketId))) === categoryId);
        if (matches) hits.push(Number(record.marketId));
      }
      if (searchPage * readModelPageSizeMax >= found.total) break;
    }
    const from = (page.page - 1) * page.pageSize;
    ids = { total: hits.length, records: hits.slice(from, from + page.pageSize) };
  }
  const records: LegacyMarketRecord[] = [];
  for (const marketId of ids.records) {
    const detail = await sources.catalogue.detail(marketId);
    if (detail !== undefined) records.push(legacyMarketRecord(detail, await categoryOf(sources, marketId)));
  }
  return { total: ids.total, records };
}

async function categoryOf(
  sources: { exchangeReadModels: ExchangeReadModels },
  marketId: number,
): Promise<string | null> {
  return (await sources.exchangeReadModels.market(marketId))?.categoryId ?? null;
}

/** The detail and its category id, or undefined for an unknown market. Counts as a view (a click). */
export async function viewLegacyMarket(
  sources: { catalogue: Catalogue; exchangeReadModels: ExchangeReadModels },
  marketId: number,
): Promise<{ detail: MarketDetail; categoryId: string | null } | undefined> {
  const viewed = await sources.catalogue.viewDetail(marketId);
  if (viewed === undefined) return undefined;
  return { detail: { ...viewed.base, ...viewed.activity }, categoryId: await categoryOf(sources, marketId) };
}
