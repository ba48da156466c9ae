// What the catalogue keeps beside the exchange's read models: which markets are listed and in what
// order, full-text search, each market's clicks and hotScore heat, and holders by option. Behind
// this interface so PostgreSQL can bring its own full text (tsvector) later; the SQLite adapter
// uses FTS5. Asynchronous for that adapter; the SQLite one answers synchronously inside.

import type { Page, PageRequest } from "./exchange-read-models.js";

export interface MarketListFilter {
  /** Only markets filed under this category id (exactly; subcategories are their own). */
  readonly categoryId?: string | undefined;
  readonly status?: string | undefined;
}

export type SearchBy = "Market" | "Creator";

export interface MarketSearchQuery {
  /** The caller's text as typed; the adapter turns it into its own query syntax safely. */
  readonly keyword: string;
  /** Market: title, description and tags. Creator: the creator's name. */
  readonly searchBy: SearchBy;
}

export interface MarketStats {
  /** Detail views recorded so far. */
  readonly clicks: number;
  /** log2 of the decayed activity at the heat epoch (src/catalog/hot-score.ts); null before any. */
  readonly heat: number | null;
}

export interface HolderRow {
  readonly optionId: number;
  readonly userId: number;
  /** Free and frozen shares together: shares in resting SELL orders are still held. */
  readonly shares: bigint;
}

export interface MarketCatalogStore {
  /** Listed markets (every status but draft), hottest first, then newest first. */
  listedMarketIds(filter: MarketListFilter, page: PageRequest): Promise<Page<number>>;
  /** Listed markets matching the query, best match first (then newest first). */
  search(query: MarketSearchQuery, page: PageRequest): Promise<Page<number>>;
  stats(marketId: number): Promise<MarketStats>;
  /** Adds detail views counted since the last call, all at `atMs`, in one transaction. */
  addClicks(clicksByMarket: ReadonlyMap<number, number>, atMs: number): Promise<void>;
  /** The top `perOptionMax` holders of every option of the market, by shares held, by option. */
  topHolders(marketId: number, perOptionMax: number): Promise<HolderRow[]>;
}
