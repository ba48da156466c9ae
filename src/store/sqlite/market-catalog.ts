// The catalogue's tables in the embedded SQLite file (module "catalog"): market_stats (clicks and
// hotScore heat), market_search (FTS5 over title, description, tags and creator name), and an
// index to read holders by market. The projector keeps them in step with the journal inside each
// commit's transaction, so a market is searchable from the commit that creates it.

import type { Statement } from "better-sqlite3";
import type { ExchangeCommand, MarketDetails } from "../../core/commands.js";
import type { ExchangeEvent, MarketCreatedEvent, TradeExecutedEvent } from "../../core/events.js";
import { decodePlainData } from "../../engine/journal-codec.js";
import type { JournalEntry } from "../../engine/store.js";
import type { Page } from "../exchange-read-models.js";
import { addHeat, hotScoreUsdtPerClick } from "../hot-score.js";
import type { HolderRow, MarketCatalogStore, MarketSearchQuery, MarketStats } from "../market-catalog.js";
import { catalogDetailsOf, creatorNameOf } from "../market-details.js";
import { pageWindow } from "../page-window.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import type { SqliteProjector } from "./engine-store.js";
import { exchangeReadModelMigrations } from "./exchange-read-models.js";

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
const atomsPerUsdt = 100_000_000;

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

export function createSqliteMarketCatalog(db: SqliteDatabase): SqliteMarketCatalog {
  // The catalogue indexes the exchange's tables, so those must exist first (the call is idempotent).
  applyMigrations(db, "exchange", exchangeReadModelMigrations);
  applyMigrations(db, "catalog", catalogMigrations);
  const statements = {
    insertStats: db.prepare("INSERT OR IGNORE INTO market_stats (market_id) VALUES (?)"),
    insertSearch: db.prepare(
      "INSERT INTO market_search (title, description, tags, creator_name, market_id) VALUES (?, ?, ?, ?, ?)",
    ),
    heatOf: db.prepare<[number], number | null>("SELECT heat FROM market_stats WHERE market_id = ?").pluck(),
    setHeat: db.prepare("UPDATE market_stats SET heat = ? WHERE market_id = ?"),
    addClicks: db.prepare("UPDATE market_stats SET clicks = clicks + ?, heat = ? WHERE market_id = ?"),
    stats: db.prepare<[number], { clicks: number; heat: number | null }>(
      "SELECT clicks, heat FROM market_stats WHERE market_id = ?",
    ),
    unindexedMarkets: db.prepare<
      [],
      {
        market_id: number;
        title: string;
        description: string;
        tags: string;
        creator_id: number | null;
        details: string | null;
      }
    >(
      `SELECT market_id, title, description, tags, creator_id, details FROM markets
       WHERE market_id NOT IN (SELECT market_id FROM market_stats)`,
    ),
    holders: db
      .prepare<[number, number], { option_id: bigint; user_id: bigint; held: bigint }>(
        `SELECT option_id, user_id, held FROM (
           SELECT option_id, user_id, shares + frozen_shares AS held,
             row_number() OVER (PARTITION BY option_id ORDER BY shares + frozen_shares DESC, user_id) AS place
           FROM exchange_positions WHERE market_id = ? AND shares + frozen_shares > 0)
         WHERE place <= ? ORDER BY option_id, place`,
      )
      .safeIntegers(true),
  };
  const listeners: MarketsChangedListener[] = [];

  const indexMarket = (
    marketId: number,
    title: string,
    creatorId: number | null,
    details: MarketDetails | null,
  ): void => {
    const described = catalogDetailsOf(details);
    statements.insertStats.run(marketId);
    statements.insertSearch.run(
      title,
      described.description,
      described.tags,
      creatorNameOf(creatorId, described),
      marketId,
    );
  };
  // A batch's heat per market, read on first use and written once at the batch's end: addHeat runs
  // over the same values in the same order as one UPDATE per trade would, so the result is the same.
  const batchHeats = new Map<number, number | null>();
  const addHeatAt = (marketId: number, weight: number, atMs: number): void => {
    const heat = batchHeats.has(marketId)
      ? batchHeats.get(marketId)!
      : (statements.heatOf.get(marketId) ?? null);
    batchHeats.set(marketId, addHeat(heat, weight, atMs));
  };
  const onMarketCreated = (event: MarketCreatedEvent): void =>
    indexMarket(event.marketId, event.title, event.creatorId, event.details ?? null);
  const onTrade = (event: TradeExecutedEvent): void => {
    // The same USDT as the market's volume: one notional in a transfer, both in a mint or merge.
    const notional =
      event.cross === "TRANSFER" ? event.makerNotional : event.makerNotional + event.takerNotional;
    addHeatAt(event.marketId, Number(notional) / atomsPerUsdt, event.atMs);
  };

  // Markets created before this module existed (an older data dir) are indexed once, at start.
  db.transaction(() => {
    for (const row of statements.unindexedMarkets.all()) {
      const details = row.details === null ? null : decodePlainData<MarketDetails>(row.details);
      indexMarket(row.market_id, row.title, row.creator_id, details);
    }
  })();

  const projector: SqliteProjector<ExchangeCommand, ExchangeEvent> = (
    _db,
    entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[],
  ) => {
    const touched = new Set<number>();
    try {
      for (const entry of entries) {
        for (const event of entry.events) {
          if ("marketId" in event && typeof event.marketId === "number") touched.add(event.marketId);
          // Only these change the catalogue's tables; every other event only invalidates views.
          if (event.type === "MarketCreated") onMarketCreated(event);
          else if (event.type === "TradeExecuted") onTrade(event);
          // A pool trade heats its market by the USDT into or out of the pool, as its volume counts it.
          else if (event.type === "PoolTradeExecuted")
            addHeatAt(event.marketId, Number(event.amount) / atomsPerUsdt, event.atMs);
        }
      }
      for (const [marketId, heat] of batchHeats) statements.setHeat.run(heat, marketId);
    } finally {
      // A failed batch rolls back; its heats must not reach a later one.
      batchHeats.clear();
    }
    if (touched.size > 0) for (const listener of listeners) listener(touched);
  };

  const listPages = new Map<string, { count: Statement; page: Statement }>();
  const listedWhere = (filter: { categoryId?: string | undefined; status?: string | undefined }) => {
    const clauses = ["m.status <> 'draft'"];
    const params: unknown[] = [];
    if (filter.categoryId !== undefined) {
      clauses.push("m.category_id = ?");
      params.push(filter.categoryId);
    }
    if (filter.status !== undefined) {
      clauses.push("m.status = ?");
      params.push(filter.status);
    }
    return { where: clauses.join(" AND "), params };
  };
  const searchStatements = {
    count: db
      .prepare<[string], number>(
        `SELECT count(*) FROM market_search f JOIN markets m ON m.market_id = f.market_id
       WHERE market_search MATCH ? AND m.status <> 'draft'`,
      )
      .pluck(),
    page: db.prepare<[string, number, number], { market_id: number }>(
      `SELECT f.market_id FROM (
         SELECT market_id, bm25(market_search, ${bm25Weights}) AS score FROM market_search WHERE market_search MATCH ?
       ) f JOIN markets m ON m.market_id = f.market_id
       WHERE m.status <> 'draft' ORDER BY f.score, f.market_id DESC LIMIT ? OFFSET ?`,
    ),
  };

  const store: MarketCatalogStore = {
    async listedMarketIds(filter, page) {
      const { where, params } = listedWhere(filter);
      let prepared = listPages.get(where);
      if (prepared === undefined) {
        prepared = {
          count: db.prepare(`SELECT count(*) FROM markets m WHERE ${where}`).pluck(),
          page: db
            .prepare(
              // SQLite sorts NULL lowest, so DESC puts markets without activity last; ordering by
              // market_stats' own columns lets the heat index drive the scan instead of a sort.
              `SELECT m.market_id FROM market_stats s JOIN markets m ON m.market_id = s.market_id
               WHERE ${where} ORDER BY s.heat DESC, s.market_id DESC LIMIT ? OFFSET ?`,
            )
            .pluck(),
        };
        listPages.set(where, prepared);
      }
      const { limit, offset } = pageWindow(page);
      const total = prepared.count.get(...params) as number;
      const records = total <= offset ? [] : (prepared.page.all(...params, limit, offset) as number[]);
      return { records, total } satisfies Page<number>;
    },
    async search(query, page) {
      const match = ftsQueryOf(query);
      if (match === undefined) return { records: [], total: 0 };
      const { limit, offset } = pageWindow(page);
      const total = searchStatements.count.get(match) ?? 0;
      const rows = total <= offset ? [] : searchStatements.page.all(match, limit, offset);
      return { records: rows.map((row) => Number(row.market_id)), total };
    },
    async stats(marketId): Promise<MarketStats> {
      return statements.stats.get(marketId) ?? { clicks: 0, heat: null };
    },
    async addClicks(clicksByMarket, atMs) {
      db.transaction(() => {
        for (const [marketId, clicks] of clicksByMarket) {
          const heat = statements.heatOf.get(marketId);
          statements.addClicks.run(
            clicks,
            addHeat(heat ?? null, clicks * hotScoreUsdtPerClick, atMs),
            marketId,
          );
        }
      })();
    },
    async topHolders(marketId, perOptionMax): Promise<HolderRow[]> {
      return statements.holders.all(marketId, perOptionMax).map((row) => ({
        optionId: Number(row.option_id),
        userId: Number(row.user_id),
        shares: row.held,
      }));
    },
  };

  return {
    store,
    projector,
    onMarketsChanged(listener) {
      listeners.push(listener);
    },
  };
}
