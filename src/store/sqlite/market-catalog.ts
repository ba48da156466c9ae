// The catalogue's tables in the embedded SQLite file (module "catalog"): market_stats (clicks and
// hotScore heat), market_search (FTS5 over title, description, tags and creator name), and an
// index to read holders by market. The projector keeps them in step with the journal inside each
// commit's transaction, so a market is searchable from the commit that creates it. What both
// adapters share is in the port (src/store/market-catalog.ts); here are SQLite's own schema, its
// full text (FTS5) and its synchronous writes.

import type { ExchangeCommand } from "../../core/commands.js";
import type { ExchangeEvent } from "../../core/events.js";
import type { JournalEntry } from "../../engine/store.js";
import {
  catalogChangesOf,
  catalogReadsOn,
  catalogStatements,
  clickedHeat,
  foldHeat,
  type IndexedMarket,
  type ListedParams,
  listedStatements,
  type MarketCatalogStore,
  type MarketListFilter,
  type MarketSearchQuery,
  searchableTextsOf,
  type UnindexedMarketRow,
  unindexedMarketOf,
} from "../market-catalog.js";
import { pageWindow } from "../page-window.js";
import { raw, sql } from "../sql.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import type { SqliteProjector } from "./engine-store.js";
import { exchangeReadModelMigrations } from "./exchange-read-models.js";
import { prepareSqlite, prepareSqliteAll, type SqliteStatement, sqliteStatements } from "./statements.js";

export const catalogMigrations: readonly string[] = [
  `CREATE TABLE market_stats (
     market_id INTEGER PRIMARY KEY,
     clicks INTEGER NOT NULL DEFAULT 0,
     heat REAL
   ) STRICT;
   CREATE INDEX market_stats_by_heat ON market_stats (heat DESC, market_id DESC);
   CREATE VIRTUAL TABLE market_search USING fts5(
     title, description, tags, creator_name, market_id UNINDEXED,
     tokenize = 'unicode61 remove_diacritics 2'
   );
   CREATE INDEX catalog_positions_by_market ON exchange_positions (market_id, option_id);`,
];

/** Words of a search taken into account; the rest of a long query is ignored. */
export const searchTokensMax = 16;
/** Characters of one search word kept. */
const searchTokenLengthMax = 64;
/**
 * bm25 column weights (title, description, tags, creator_name, market_id): a word in the title
 * counts ten times one in the description, a tag five times.
 */
const bm25Weights = "10.0, 1.0, 5.0, 1.0, 0.0";

/**
 * The caller's keyword as an FTS5 query that cannot be a syntax error: only runs of letters and
 * digits are kept, each quoted as a prefix term ("rai"* finds rain), all required (AND). Undefined
 * when nothing searchable is left.
 */
export function ftsQueryOf(query: MarketSearchQuery): string | undefined {
  const tokens = (query.keyword.match(/[\p{L}\p{N}]+/gu) ?? [])
    .slice(0, searchTokensMax)
    .map((token) => `"${token.slice(0, searchTokenLengthMax)}"*`);
  if (tokens.length === 0) return undefined;
  const columns = query.searchBy === "Creator" ? "{creator_name}" : "{title description tags}";
  return `${columns} : (${tokens.join(" AND ")})`;
}

/** Listeners the projector calls with the markets a commit touched (to drop cached views). */
export type MarketsChangedListener = (marketIds: ReadonlySet<number>) => void;

export interface SqliteMarketCatalog {
  readonly store: MarketCatalogStore;
  readonly projector: SqliteProjector<ExchangeCommand, ExchangeEvent>;
  onMarketsChanged(listener: MarketsChangedListener): void;
}

// SQLite's own: FTS5 rows, ranked by bm25; a market's heat read and written one row at a time.
const ownStatements = {
  insertStats: sql<{
    marketId: number;
  }>`INSERT OR IGNORE INTO market_stats (market_id) VALUES (${"marketId"})`,
  insertSearch: sql<
    ReturnType<typeof searchableTextsOf> & { marketId: number }
  >`INSERT INTO market_search (title, description, tags, creator_name, market_id)
     VALUES (${"title"}, ${"description"}, ${"tags"}, ${"creatorName"}, ${"marketId"})`,
  heatOf: sql<{ marketId: number }>`SELECT heat FROM market_stats WHERE market_id = ${"marketId"}`,
  setHeat: sql<{ marketId: number; heat: number | null }>`UPDATE market_stats SET heat = ${"heat"}
     WHERE market_id = ${"marketId"}`,
  addClicks: sql<{ marketId: number; clicks: number; heat: number | null }>`UPDATE market_stats
     SET clicks = clicks + ${"clicks"}, heat = ${"heat"} WHERE market_id = ${"marketId"}`,
  searchCount: sql<{ match: string }>`SELECT count(*) AS total FROM market_search f
     JOIN markets m ON m.market_id = f.market_id WHERE market_search MATCH ${"match"} AND m.status <> 'draft'`,
  searchPage: sql<{ match: string; limit: number; offset: number }>`SELECT f.market_id FROM (
       SELECT market_id, bm25(market_search, ${raw(bm25Weights)}) AS score FROM market_search
       WHERE market_search MATCH ${"match"}
     ) f JOIN markets m ON m.market_id = f.market_id
     WHERE m.status <> 'draft' ORDER BY f.score, f.market_id DESC LIMIT ${"limit"} OFFSET ${"offset"}`,
};

type OwnStatements = ReturnType<typeof prepareOwn>;
const prepareOwn = (db: SqliteDatabase) => prepareSqliteAll(db, ownStatements);

export function createSqliteMarketCatalog(db: SqliteDatabase): SqliteMarketCatalog {
  // The catalogue indexes the exchange's tables, so those must exist first (the call is idempotent).
  applyMigrations(db, "exchange", exchangeReadModelMigrations);
  applyMigrations(db, "catalog", catalogMigrations);
  const own = prepareOwn(db);
  // Markets created before this module existed (an older data dir) are indexed once, at start.
  const unindexed = prepareSqlite(db, catalogStatements.unindexedMarkets);
  db.transaction(() => {
    for (const row of unindexed.all<UnindexedMarketRow>({})) indexMarket(own, unindexedMarketOf(row));
  })();
  const listeners: MarketsChangedListener[] = [];
  return {
    store: sqliteCatalogStore(db, own),
    projector: catalogProjector(own, listeners),
    onMarketsChanged(listener) {
      listeners.push(listener);
    },
  };
}

function indexMarket(own: OwnStatements, market: IndexedMarket): void {
  own.insertStats.run({ marketId: market.marketId });
  own.insertSearch.run({ ...searchableTextsOf(market), marketId: market.marketId });
}

const heatOf = (own: OwnStatements, marketId: number) =>
  own.heatOf.get<{ heat: number | null }>({ marketId })?.heat ?? null;

function catalogProjector(
  own: OwnStatements,
  listeners: readonly MarketsChangedListener[],
): SqliteProjector<ExchangeCommand, ExchangeEvent> {
  return (_db, entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]) => {
    const { touched, created, heatAdded } = catalogChangesOf(entries);
    for (const market of created) indexMarket(own, market);
    // A batch's heat per market, written once: its additions folded in journal order, as one
    // UPDATE per trade would.
    for (const [marketId, added] of heatAdded)
      own.setHeat.run({ marketId, heat: foldHeat(heatOf(own, marketId), added) });
    if (touched.size > 0) for (const listener of listeners) listener(touched);
  };
}

function sqliteCatalogStore(db: SqliteDatabase, own: OwnStatements): MarketCatalogStore {
  const listPages = new Map<string, Record<"count" | "page", SqliteStatement<ListedParams>>>();
  const listed = (filter: MarketListFilter) => {
    const { key, count, page } = listedStatements(filter);
    let found = listPages.get(key);
    if (found === undefined) {
      found = { count: prepareSqlite(db, count), page: prepareSqlite(db, page) };
      listPages.set(key, found);
    }
    return found;
  };
  return {
    // Shares are money: read as bigint.
    ...catalogReadsOn(sqliteStatements(db, catalogStatements, { safeIntegers: true })),
    async listedMarketIds(filter, page) {
      const statements = listed(filter);
      const params = { ...filter, ...pageWindow(page) };
      const total = statements.count.get<{ total: number }>(params)!.total;
      const records =
        total <= params.offset
          ? []
          : statements.page.all<{ market_id: number }>(params).map((row) => row.market_id);
      return { records, total };
    },
    async search(query, page) {
      const match = ftsQueryOf(query);
      if (match === undefined) return { records: [], total: 0 };
      const { limit, offset } = pageWindow(page);
      const total = own.searchCount.get<{ total: number }>({ match })?.total ?? 0;
      const rows = total <= offset ? [] : own.searchPage.all<{ market_id: number }>({ match, limit, offset });
      return { records: rows.map((row) => Number(row.market_id)), total };
    },
    async addClicks(clicksByMarket, atMs) {
      db.transaction(() => {
        for (const [marketId, clicks] of clicksByMarket) {
          own.addClicks.run({ marketId, clicks, heat: clickedHeat(heatOf(own, marketId), clicks, atMs) });
        }
      })();
    },
  };
}
