// What the catalogue keeps beside the exchange's read models: which markets are listed and in what
// order, full-text search, each market's clicks and hotScore heat, and holders by option.
// Asynchronous for the PostgreSQL adapter; the SQLite one answers synchronously inside. What both
// adapters share is written once below (what a batch changes, the heat it adds, the common
// statements and mappers); full text is each database's own (FTS5 on SQLite, tsvector on
// PostgreSQL), and so are their schemas.

import type { ExchangeCommand, MarketDetails } from "../core/commands.js";
import type { ExchangeEvent } from "../core/events.js";
import { decodePlainData } from "../engine/journal-codec.js";
import type { JournalEntry } from "../engine/store.js";
import type { Page, PageRequest } from "./exchange-read-models.js";
import { addHeat, hotScoreUsdtPerClick } from "./hot-score.js";
import { catalogDetailsOf, creatorNameOf } from "./market-details.js";
import { type BoundStatements, type IntegerColumn, type Sql, sql, toNumber, toNumberOrNull } from "./sql.js";

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

// ---- Written once for both adapters (src/store/sqlite/market-catalog.ts with FTS5,
// src/store/postgres/market-catalog.ts with tsvector).

const atomsPerUsdt = 100_000_000;

/** A market as the catalogue indexes it. */
export interface IndexedMarket {
  readonly marketId: number;
  readonly title: string;
  readonly creatorId: number | null;
  readonly details: MarketDetails | null;
}

/** The texts a market is found by: Market searches the first three, Creator the creator's name. */
export function searchableTextsOf(market: IndexedMarket) {
  const described = catalogDetailsOf(market.details);
  return {
    title: market.title,
    description: described.description,
    tags: described.tags,
    creatorName: creatorNameOf(market.creatorId, described),
  };
}

/** One addition to a market's heat: `weight` USDT-equivalents at `atMs`. */
export interface HeatAdded {
  readonly weight: number;
  readonly atMs: number;
}

/** What a batch changes in the catalogue. */
export interface CatalogChanges {
  /** Every market an event names (its cached views are stale). */
  readonly touched: ReadonlySet<number>;
  /** Markets created, in journal order. */
  readonly created: readonly IndexedMarket[];
  /** The heat added per market, in journal order. */
  readonly heatAdded: ReadonlyMap<number, readonly HeatAdded[]>;
}

export function catalogChangesOf(
  entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[],
): CatalogChanges {
  const touched = new Set<number>();
  const created: IndexedMarket[] = [];
  const heatAdded = new Map<number, HeatAdded[]>();
  const heat = (marketId: number, weight: number, atMs: number) => {
    const added = heatAdded.get(marketId);
    if (added === undefined) heatAdded.set(marketId, [{ weight, atMs }]);
    else added.push({ weight, atMs });
  };
  for (const entry of entries) {
    for (const event of entry.events) {
      if ("marketId" in event && typeof event.marketId === "number") touched.add(event.marketId);
      // Only these change the catalogue's tables; every other event only invalidates views.
      if (event.type === "MarketCreated") {
        const { marketId, title, creatorId } = event;
        created.push({ marketId, title, creatorId, details: event.details ?? null });
      } else if (event.type === "TradeExecuted") {
        // The same USDT as the market's volume: one notional in a transfer, both in a mint or merge.
        const notional =
          event.cross === "TRANSFER" ? event.makerNotional : event.makerNotional + event.takerNotional;
        heat(event.marketId, Number(notional) / atomsPerUsdt, event.atMs);
      } else if (event.type === "PoolTradeExecuted") {
        // A pool trade heats its market by the USDT into or out of the pool, as its volume counts it.
        heat(event.marketId, Number(event.amount) / atomsPerUsdt, event.atMs);
      }
    }
  }
  return { touched, created, heatAdded };
}

/**
 * The heat after a batch's additions, in their order: the same values in the same order on both
 * databases, so the stored doubles are bit for bit the same.
 */
export function foldHeat(heat: number | null, added: readonly HeatAdded[]): number | null {
  let folded = heat;
  for (const { weight, atMs } of added) folded = addHeat(folded, weight, atMs);
  return folded;
}

/** A market's heat after `clicks` detail views at `atMs`. */
export function clickedHeat(heat: number | null, clicks: number, atMs: number): number | null {
  return addHeat(heat, clicks * hotScoreUsdtPerClick, atMs);
}

export interface UnindexedMarketRow {
  market_id: IntegerColumn;
  title: string;
  creator_id: IntegerColumn | null;
  details: string | null;
}

export function unindexedMarketOf(row: UnindexedMarketRow): IndexedMarket {
  return {
    marketId: toNumber(row.market_id),
    title: row.title,
    creatorId: toNumberOrNull(row.creator_id),
    details: row.details === null ? null : decodePlainData<MarketDetails>(row.details),
  };
}

interface StatsRow {
  clicks: IntegerColumn;
  heat: number | null;
}

function statsOf(row: StatsRow | undefined): MarketStats {
  return row === undefined ? { clicks: 0, heat: null } : { clicks: toNumber(row.clicks), heat: row.heat };
}

interface HolderDatabaseRow {
  option_id: IntegerColumn;
  user_id: IntegerColumn;
  held: bigint;
}

function holderOf(row: HolderDatabaseRow): HolderRow {
  return { optionId: toNumber(row.option_id), userId: toNumber(row.user_id), shares: row.held };
}

/** A listing's parameters as bound: a filter's absent field is not in its statement at all. */
export type ListedParams = {
  categoryId?: string | undefined;
  status?: string | undefined;
  limit: number;
  offset: number;
};

/** The listing's count and page for one combination of filters, and the name of that combination. */
export interface ListedStatements {
  /** "", "-category", "-status" or "-category-status". */
  readonly key: string;
  readonly count: Sql<ListedParams>;
  readonly page: Sql<ListedParams>;
}

const listedByKey = new Map<string, ListedStatements>();

/**
 * Four combinations of filters, each its own statement so each is planned for what it filters.
 * SQLite sorts NULL lowest already; PostgreSQL needs NULLS LAST to put markets without activity
 * last, and both walk market_stats_by_heat.
 */
export function listedStatements(filter: MarketListFilter): ListedStatements {
  const key = `${filter.categoryId === undefined ? "" : "-category"}${filter.status === undefined ? "" : "-status"}`;
  const known = listedByKey.get(key);
  if (known !== undefined) return known;
  const none = sql<ListedParams>``;
  const byCategory = sql<ListedParams>` AND m.category_id = ${"categoryId"}`;
  const byStatus = sql<ListedParams>` AND m.status = ${"status"}`;
  const where = sql<ListedParams>`m.status <> 'draft'${filter.categoryId === undefined ? none : byCategory}${
    filter.status === undefined ? none : byStatus
  }`;
  const statements: ListedStatements = {
    key,
    count: sql`SELECT count(*) AS total FROM markets m WHERE ${where}`,
    page: sql`SELECT m.market_id FROM market_stats s JOIN markets m ON m.market_id = s.market_id
     WHERE ${where} ORDER BY s.heat DESC NULLS LAST, s.market_id DESC LIMIT ${"limit"} OFFSET ${"offset"}`,
  };
  listedByKey.set(key, statements);
  return statements;
}

export const catalogStatements = {
  stats: sql<{ marketId: number }>`SELECT clicks, heat FROM market_stats WHERE market_id = ${"marketId"}`,
  topHolders: sql<{ marketId: number; perOptionMax: number }>`SELECT option_id, user_id, held FROM (
       SELECT option_id, user_id, shares + frozen_shares AS held,
         row_number() OVER (PARTITION BY option_id ORDER BY shares + frozen_shares DESC, user_id) AS place
       FROM exchange_positions WHERE market_id = ${"marketId"} AND shares + frozen_shares > 0
     ) ranked
     WHERE place <= ${"perOptionMax"} ORDER BY option_id, place`,
  /** Markets without catalogue rows (created before the catalogue existed): indexed once, at start. */
  unindexedMarkets: sql`SELECT market_id, title, creator_id, details FROM markets m
     WHERE NOT EXISTS (SELECT 1 FROM market_stats s WHERE s.market_id = m.market_id)`,
};

/** The reads both adapters answer alike: a market's stats and its top holders. */
export function catalogReadsOn(
  statements: BoundStatements<typeof catalogStatements>,
): Pick<MarketCatalogStore, "stats" | "topHolders"> {
  return {
    stats: async (marketId) => statsOf(await statements.stats.row<StatsRow>({ marketId })),
    topHolders: async (marketId, perOptionMax) =>
      (await statements.topHolders.rows<HolderDatabaseRow>({ marketId, perOptionMax })).map(holderOf),
  };
}
