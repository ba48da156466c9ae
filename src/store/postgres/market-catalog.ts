// The catalogue's tables on PostgreSQL (port: src/store/market-catalog.ts; SQLite twin with FTS5:
// src/store/sqlite/market-catalog.ts), module "catalog": market_stats (clicks and hotScore heat) and
// market_search (full text as tsvector columns with GIN indexes). The projector keeps them in step
// with the journal inside the engine's batch transaction, so a market is searchable from the commit
// that creates it; it reads the exchange projector's `markets` and `exchange_positions` tables.
//
// Full text. The words are cut and folded here, in TypeScript, by the same function for the index and
// for the query, with the SQLite catalogue's rules (FTS5 unicode61, remove_diacritics): a word is a
// run of letters and digits, case and accents folded; a query word matches as a prefix; every query
// word is required. The tsvector is built from those words (title weight A, tags B, description C,
// with positions, so ts_rank weighs them) instead of a generated to_tsvector() column, because
// PostgreSQL's parser cuts differently (hosts, paths, e-mails, hyphenated words are tokens of their
// own), depends on the database's locale, and unaccent() is not immutable: the same market would be
// found by different keywords on SQLite and on PostgreSQL. Chinese, Japanese and Thai have no spaces,
// so a run of their characters is one word, found by its beginning — exactly as on SQLite
// (docs/decisions.md, "Catalogue: categories, lists, search, hotScore").
//
// Heat. As on SQLite, a batch's heat per market is written once, and addHeat runs over the same values
// in the same order, so the stored doubles are bit for bit those of SQLite. Several API nodes flush
// clicks into the same rows while the engine heats them: a click flush reads the heat FOR UPDATE
// (markets in ascending order, so they never deadlock) and writes it in the same transaction; the
// projector writes from the heat it wrote last, only where the row still holds that heat (the UPDATE
// rechecks it after waiting for a lock), and reads locked only the markets that missed — one round
// trip per batch instead of two while the engine alone heats a market.
//
// Changes. The projector tells this process's listeners at once (as SQLite does) and every node
// through NOTIFY predex_markets_changed, which PostgreSQL delivers at commit; each node that
// registers a listener LISTENs on a connection of its own, and after a reconnection tells its
// listeners that anything may have changed (a notification may have been lost meanwhile).

import type pg from "pg";
import type { ExchangeCommand, MarketDetails } from "../../core/commands.js";
import type { ExchangeEvent } from "../../core/events.js";
import { decodePlainData } from "../../engine/journal-codec.js";
import type { JournalEntry } from "../../engine/store.js";
import type { Page } from "../exchange-read-models.js";
import { addHeat, hotScoreUsdtPerClick } from "../hot-score.js";
import type { HolderRow, MarketCatalogStore, MarketSearchQuery, MarketStats } from "../market-catalog.js";
import { catalogDetailsOf, creatorNameOf } from "../market-details.js";
import { pageWindow } from "../page-window.js";
import type { BatchStatementWriter, StatementPart } from "./batch-statement.js";
import { inTransaction, newPostgresClient, type PostgresClient, type PostgresPool } from "./database.js";
import type { PostgresProjector } from "./engine-store.js";
import { applyPostgresMigrations } from "./migrations.js";

export const catalogMigrations: readonly string[] = [
  `CREATE TABLE market_stats (
     market_id bigint PRIMARY KEY,
     clicks bigint NOT NULL DEFAULT 0,
     heat double precision
   );
   -- SQLite sorts NULL lowest; here NULLS LAST says the same: markets without activity come last.
   CREATE INDEX market_stats_by_heat ON market_stats (heat DESC NULLS LAST, market_id DESC);
   CREATE TABLE market_search (
     market_id bigint PRIMARY KEY,
     words tsvector NOT NULL,
     creator_words tsvector NOT NULL
   );
   CREATE INDEX market_search_by_words ON market_search USING gin (words);
   CREATE INDEX market_search_by_creator ON market_search USING gin (creator_words);`,
];

/** The channel every node LISTENs on for the markets a commit touched. */
export const marketsChangedChannel = "predex_markets_changed";
/** Market ids per notification: a NOTIFY payload must stay under 8,000 bytes. */
const notifyMarketIdsMax = 400;

/** Words of a search taken into account; the rest of a long query is ignored (as on SQLite). */
export const searchWordsMax = 16;
/** Characters of one search word kept (as on SQLite). */
const searchWordLengthMax = 64;
/** Characters of one indexed word kept: a lexeme must stay under 2 KB. */
const indexedWordLengthMax = 256;
/** tsvector positions stop at 16,383; later words are indexed at the last position. */
const positionMax = 16_383;
/** ts_rank's weights for D, C, B, A: title (A) ten times a description word (C), tags (B) five times. */
const rankWeights = "{0, 0.1, 0.5, 1.0}";
const atomsPerUsdt = 100_000_000;

/** Case and accents folded: "Ôslo" and "oslo" are one word, as FTS5's remove_diacritics makes them. */
export function foldSearchText(text: string): string {
  return text.normalize("NFKD").replace(/\p{M}/gu, "").normalize("NFC").toLowerCase();
}

/** The words of a text as the index and the query both cut them: runs of letters and digits. */
export function searchWordsOf(text: string): string[] {
  return foldSearchText(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The caller's keyword as a tsquery that cannot be a syntax error: only letters and digits are
 * kept, each word a required prefix ('rai':* finds rain). Undefined when nothing searchable is left.
 */
export function tsQueryOf(query: MarketSearchQuery): string | undefined {
  const words = searchWordsOf(query.keyword)
    .slice(0, searchWordsMax)
    .map((word) => `'${[...word].slice(0, searchWordLengthMax).join("")}':*`);
  return words.length === 0 ? undefined : words.join(" & ");
}

/**
 * A tsvector literal of weighted fields, each word at its position (so ts_rank counts and weighs
 * it). Words hold letters and digits only, so quoting them cannot break out of the literal.
 */
export function tsVectorOf(fields: readonly { text: string; weight: "A" | "B" | "C" | "D" }[]): string {
  const positions = new Map<string, string[]>();
  let position = 0;
  for (const field of fields) {
    for (const word of searchWordsOf(field.text)) {
      position = Math.min(position + 1, positionMax);
      const lexeme = [...word].slice(0, indexedWordLengthMax).join("");
      let found = positions.get(lexeme);
      if (found === undefined) {
        found = [];
        positions.set(lexeme, found);
      }
      found.push(`${position}${field.weight}`);
    }
  }
  return [...positions].map(([lexeme, at]) => `'${lexeme}':${at.join(",")}`).join(" ");
}

/** Listeners told of the markets a commit touched (to drop cached views); undefined: maybe all. */
export type MarketsChangedListener = (marketIds: ReadonlySet<number> | undefined) => void;

export interface PostgresMarketCatalog {
  readonly store: MarketCatalogStore;
  readonly projector: PostgresProjector<ExchangeCommand, ExchangeEvent>;
  /** Every node's listener hears every commit's markets (NOTIFY), the engine's own at once. */
  onMarketsChanged(listener: MarketsChangedListener): void;
  /** Stops listening for other nodes' changes. */
  close(): Promise<void>;
}

export interface PostgresMarketCatalogOptions {
  /** Pause before listening again after the listening connection fails. */
  readonly reconnectDelayMs?: number;
  /** Called when the listening connection fails (it is reopened); must not throw. */
  readonly onListenError?: (error: unknown) => void;
}

interface IndexedMarket {
  readonly marketId: number;
  readonly title: string;
  readonly creatorId: number | null;
  readonly details: MarketDetails | null;
}

/** One statement for a batch's new markets: their stats rows and their search rows. */
async function indexMarkets(client: PostgresClient | PostgresPool, markets: readonly IndexedMarket[]) {
  if (markets.length === 0) return;
  const words: string[] = [];
  const creatorWords: string[] = [];
  for (const market of markets) {
    const described = catalogDetailsOf(market.details);
    words.push(
      tsVectorOf([
        { text: market.title, weight: "A" },
        { text: described.tags, weight: "B" },
        { text: described.description, weight: "C" },
      ]),
    );
    creatorWords.push(tsVectorOf([{ text: creatorNameOf(market.creatorId, described), weight: "A" }]));
  }
  await client.query({
    name: "predex-catalog-index-markets",
    text: `WITH stats AS (
             INSERT INTO market_stats (market_id) SELECT unnest($1::bigint[]) ON CONFLICT DO NOTHING
           )
           INSERT INTO market_search (market_id, words, creator_words)
           SELECT * FROM unnest($1::bigint[], $2::tsvector[], $3::tsvector[])
           ON CONFLICT DO NOTHING`,
    values: [markets.map((market) => market.marketId), words, creatorWords],
  });
}

/** Markets whose last written heat the projector remembers, at most (then it forgets them all). */
const lastWrittenHeatsMax = 100_000;

/** The heats of these markets, locked until the transaction ends, in ascending order. */
async function lockedHeats(client: PostgresClient, marketIds: readonly number[]) {
  const result = await client.query<{ market_id: bigint; heat: number | null }>({
    name: "predex-catalog-lock-heats",
    text: `SELECT market_id, heat FROM market_stats WHERE market_id = ANY($1::bigint[])
           ORDER BY market_id FOR UPDATE`,
    values: [[...marketIds].sort((a, b) => a - b)],
  });
  return new Map(result.rows.map((row) => [Number(row.market_id), row.heat]));
}

export async function openPostgresMarketCatalog(
  pool: PostgresPool,
  options: PostgresMarketCatalogOptions = {},
): Promise<PostgresMarketCatalog> {
  await applyPostgresMigrations(pool, "catalog", catalogMigrations);
  await indexUnindexedMarkets(pool);

  const listeners: MarketsChangedListener[] = [];
  const tell = (marketIds: ReadonlySet<number> | undefined) => {
    for (const listener of listeners) listener(marketIds);
  };
  const listening = listenForMarketChanges(pool, tell, options);
  // The heat this projector last wrote per market: only a guess, checked by the UPDATE itself (a
  // batch rolled back or clicks flushed meanwhile make it miss, and the heat is then read locked).
  const lastWrittenHeats = new Map<number, number | null>();

  /** What a batch changes in the catalogue: markets touched, markets created, heat added per market. */
  const scanBatch = (entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]) => {
    const touched = new Set<number>();
    const created: IndexedMarket[] = [];
    // The batch's heat additions per market, in journal order.
    const heatAdded = new Map<number, { weight: number; atMs: number }[]>();
    const heatAt = (marketId: number, weight: number, atMs: number) => {
      let added = heatAdded.get(marketId);
      if (added === undefined) {
        added = [];
        heatAdded.set(marketId, added);
      }
      added.push({ weight, atMs });
    };
    for (const entry of entries) {
      for (const event of entry.events) {
        if ("marketId" in event && typeof event.marketId === "number") touched.add(event.marketId);
        // Only these change the catalogue's tables; every other event only invalidates views.
        if (event.type === "MarketCreated") {
          created.push({
            marketId: event.marketId,
            title: event.title,
            creatorId: event.creatorId,
            details: event.details ?? null,
          });
        } else if (event.type === "TradeExecuted") {
          // The same USDT as the market's volume: one notional in a transfer, both in a mint or merge.
          const notional =
            event.cross === "TRANSFER" ? event.makerNotional : event.makerNotional + event.takerNotional;
          heatAt(event.marketId, Number(notional) / atomsPerUsdt, event.atMs);
        } else if (event.type === "PoolTradeExecuted") {
          // A pool trade heats its market by the USDT into or out of the pool, as its volume counts it.
          heatAt(event.marketId, Number(event.amount) / atomsPerUsdt, event.atMs);
        }
      }
    }
    return { touched, created, heatAdded };
  };
  // The one-statement path asks writesInOneStatement, then prepare, of the same batch: scanned once.
  let lastScan: { entries: object; scanned: ReturnType<typeof scanBatch> } | undefined;
  const scan = (entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]) => {
    if (lastScan?.entries !== entries) lastScan = { entries, scanned: scanBatch(entries) };
    return lastScan.scanned;
  };
  const fold = (heat: number | null, added: readonly { weight: number; atMs: number }[]) => {
    let folded = heat;
    for (const { weight, atMs } of added) folded = addHeat(folded, weight, atMs);
    return folded;
  };
  const forgetHeatsIfMany = () => {
    if (lastWrittenHeats.size > lastWrittenHeatsMax) lastWrittenHeats.clear();
  };

  const projector: PostgresProjector<ExchangeCommand, ExchangeEvent> = async (
    client,
    entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[],
  ) => {
    const { touched, created, heatAdded } = scan(entries);
    await indexMarkets(client, created);
    // First try: each market's heat from the one this projector last wrote, written only where the
    // row still holds it (a compare-and-set the UPDATE rechecks after any lock wait).
    const guessedIds: number[] = [];
    const expectedHeats: (number | null)[] = [];
    const guessedHeats: (number | null)[] = [];
    const missed = new Set<number>();
    for (const [marketId, added] of heatAdded) {
      if (!lastWrittenHeats.has(marketId)) {
        missed.add(marketId);
        continue;
      }
      const expected = lastWrittenHeats.get(marketId) ?? null;
      guessedIds.push(marketId);
      expectedHeats.push(expected);
      guessedHeats.push(fold(expected, added));
    }
    if (touched.size > 0 || guessedIds.length > 0) {
      // The guessed heats and the notification in one round trip; the notification is delivered at commit.
      // Unnamed, so planned with this batch's arrays and market_stats as it is now: a generic plan
      // made while the table was small would scan all of it (exchange-projector.ts, flushStatement).
      const result = await client.query<{ heated: bigint[] }>({
        text: `WITH heated AS (
                 UPDATE market_stats s SET heat = h.heat
                 FROM unnest($1::bigint[], $2::float8[], $3::float8[]) AS h (market_id, expected, heat)
                 WHERE s.market_id = h.market_id AND s.heat IS NOT DISTINCT FROM h.expected
                 RETURNING s.market_id
               ),
               notified AS (SELECT count(pg_notify($4, payload)) AS sent FROM unnest($5::text[]) AS payload)
               SELECT coalesce((SELECT array_agg(market_id) FROM heated), '{}') AS heated,
                      (SELECT sent FROM notified) AS sent`,
        values: [
          guessedIds,
          expectedHeats,
          guessedHeats,
          marketsChangedChannel,
          notificationPayloads(touched),
        ],
      });
      const heated = new Set(result.rows[0]!.heated.map(Number));
      guessedIds.forEach((marketId, index) => {
        if (heated.has(marketId)) lastWrittenHeats.set(marketId, guessedHeats[index]!);
        else missed.add(marketId);
      });
    }
    if (missed.size > 0) {
      // A market not written by this projector yet, or whose heat changed meanwhile (clicks from an
      // API node, a rolled-back batch): read it locked, as the click flush does, and write it.
      const stored = await lockedHeats(client, [...missed]);
      const marketIds: number[] = [];
      const heats: (number | null)[] = [];
      for (const marketId of missed) {
        if (!stored.has(marketId)) continue;
        const heat = fold(stored.get(marketId) ?? null, heatAdded.get(marketId)!);
        marketIds.push(marketId);
        heats.push(heat);
      }
      if (marketIds.length > 0) {
        await client.query({
          name: "predex-catalog-heat",
          text: `UPDATE market_stats s SET heat = h.heat
                 FROM unnest($1::bigint[], $2::float8[]) AS h (market_id, heat)
                 WHERE s.market_id = h.market_id`,
          values: [marketIds, heats],
        });
        for (const [index, marketId] of marketIds.entries()) lastWrittenHeats.set(marketId, heats[index]!);
      }
    }
    forgetHeatsIfMany();
    // This process's listeners at once, as on SQLite; every node's (this one's too) at commit.
    if (touched.size > 0) tell(touched);
  };

  // In a batch's one statement (batch-statement.ts): a batch that creates no market and heats only
  // markets this projector has written before. Each heat is then the one computed here from the
  // last written heat, written where the row still holds that (as above); where it does not (clicks
  // flushed by an API node meanwhile, which the UPDATE rechecks after waiting for their lock), the
  // batch's heat is added to the row's heat by the statement itself, so nothing needs a second
  // statement. That sum is the same log-sum as addHeat, in PostgreSQL's floating point.
  const oneStatement: BatchStatementWriter<ExchangeCommand, ExchangeEvent> = {
    writesInOneStatement(entries) {
      const { created, heatAdded } = scan(entries);
      return (
        created.length === 0 && [...heatAdded.keys()].every((marketId) => lastWrittenHeats.has(marketId))
      );
    },
    async prepare(_reader, entries) {
      const { touched, heatAdded } = scan(entries);
      if (touched.size === 0 && heatAdded.size === 0) return { part: undefined, committed: () => {} };
      const marketIds: number[] = [];
      const expectedHeats: (number | null)[] = [];
      const guessedHeats: (number | null)[] = [];
      const batchHeats: (number | null)[] = [];
      for (const [marketId, added] of heatAdded) {
        const expected = lastWrittenHeats.get(marketId) ?? null;
        marketIds.push(marketId);
        expectedHeats.push(expected);
        guessedHeats.push(fold(expected, added));
        batchHeats.push(fold(null, added));
      }
      const part: StatementPart = {
        ctes: `catalog_heated AS (
                 UPDATE market_stats s SET heat = h.heat
                 FROM unnest($1::bigint[], $2::float8[], $3::float8[]) AS h (market_id, expected, heat)
                 WHERE s.market_id = h.market_id AND s.heat IS NOT DISTINCT FROM h.expected
                 RETURNING s.market_id
               ),
               catalog_reheated AS (
                 UPDATE market_stats s SET heat = CASE
                   WHEN s.heat IS NULL OR r.added IS NULL THEN coalesce(s.heat, r.added)
                   ELSE greatest(s.heat, r.added)
                        + ln(1 + power(2::float8, least(s.heat, r.added) - greatest(s.heat, r.added))) / ln(2::float8)
                 END
                 FROM unnest($1::bigint[], $4::float8[]) AS r (market_id, added)
                 WHERE s.market_id = r.market_id
                   AND r.market_id NOT IN (SELECT market_id FROM catalog_heated)
                 RETURNING s.market_id, s.heat
               ),
               catalog_notified AS (
                 SELECT count(pg_notify($5, payload)) AS sent FROM unnest($6::text[]) AS payload
               )`,
        values: [
          marketIds,
          expectedHeats,
          guessedHeats,
          batchHeats,
          marketsChangedChannel,
          notificationPayloads(touched),
        ],
        selects: [
          "(SELECT coalesce(array_agg(market_id ORDER BY market_id), '{}') FROM catalog_reheated)",
          "(SELECT coalesce(array_agg(heat ORDER BY market_id), '{}') FROM catalog_reheated)",
          "(SELECT sent FROM catalog_notified)",
        ],
      };
      // Guessed as written from here (the next batch may be prepared before this one's answer);
      // where the statement added to another heat instead, its answer corrects the guess, unless a
      // later batch has guessed again meanwhile (its own answer will say).
      marketIds.forEach((marketId, index) => {
        lastWrittenHeats.set(marketId, guessedHeats[index]!);
      });
      return {
        part,
        committed(selected) {
          const reheated = selected[0] as bigint[];
          const reheats = selected[1] as (number | null)[];
          for (const [index, id] of reheated.entries()) {
            const marketId = Number(id);
            if (lastWrittenHeats.get(marketId) === guessedHeats[marketIds.indexOf(marketId)]) {
              lastWrittenHeats.set(marketId, reheats[index]!);
            }
          }
          forgetHeatsIfMany();
          if (touched.size > 0) tell(touched);
        },
      };
    },
  };

  const listedWhere = (filter: { categoryId?: string | undefined; status?: string | undefined }) => {
    const clauses = ["m.status <> 'draft'"];
    const params: unknown[] = [];
    if (filter.categoryId !== undefined) {
      params.push(filter.categoryId);
      clauses.push(`m.category_id = $${params.length}`);
    }
    if (filter.status !== undefined) {
      params.push(filter.status);
      clauses.push(`m.status = $${params.length}`);
    }
    const name = `${filter.categoryId === undefined ? "" : "-category"}${filter.status === undefined ? "" : "-status"}`;
    return { where: clauses.join(" AND "), params, name };
  };

  const store: MarketCatalogStore = {
    async listedMarketIds(filter, page) {
      const { where, params, name } = listedWhere(filter);
      const { limit, offset } = pageWindow(page);
      // One round trip: the count, and the page walking the heat index and stopping at LIMIT (a
      // window count on the page would read every listed market before the first row).
      const result = await pool.query<{ total: bigint; market_ids: (string | bigint)[] }>({
        name: `predex-catalog-list${name}`,
        text: `SELECT (SELECT count(*) FROM markets m WHERE ${where}) AS total,
                 ARRAY(SELECT m.market_id FROM market_stats s JOIN markets m ON m.market_id = s.market_id
                       WHERE ${where} ORDER BY s.heat DESC NULLS LAST, s.market_id DESC
                       LIMIT $${params.length + 1} OFFSET $${params.length + 2}) AS market_ids`,
        values: [...params, limit, offset],
      });
      const row = result.rows[0]!;
      const total = Number(row.total);
      const records = total <= offset ? [] : row.market_ids.map(Number);
      return { records, total } satisfies Page<number>;
    },

    async search(query, page) {
      const match = tsQueryOf(query);
      if (match === undefined) return { records: [], total: 0 };
      const column = query.searchBy === "Creator" ? "creator_words" : "words";
      const { limit, offset } = pageWindow(page);
      const result = await pool.query<{ market_id: bigint; total: bigint }>({
        name: `predex-catalog-search-${column}`,
        text: `SELECT s.market_id, count(*) OVER () AS total
               FROM market_search s JOIN markets m ON m.market_id = s.market_id
               WHERE s.${column} @@ $1::tsquery AND m.status <> 'draft'
               ORDER BY ts_rank('${rankWeights}', s.${column}, $1::tsquery) DESC, s.market_id DESC
               LIMIT $2 OFFSET $3`,
        values: [match, limit, offset],
      });
      const first = result.rows[0];
      if (first !== undefined) {
        return { records: result.rows.map((row) => Number(row.market_id)), total: Number(first.total) };
      }
      // Past the last match, or none: the total still counts.
      const counted = await pool.query<{ total: bigint }>({
        name: `predex-catalog-search-count-${column}`,
        text: `SELECT count(*) AS total FROM market_search s JOIN markets m ON m.market_id = s.market_id
               WHERE s.${column} @@ $1::tsquery AND m.status <> 'draft'`,
        values: [match],
      });
      return { records: [], total: Number(counted.rows[0]?.total ?? 0n) };
    },

    async stats(marketId): Promise<MarketStats> {
      const result = await pool.query<{ clicks: bigint; heat: number | null }>({
        name: "predex-catalog-stats",
        text: "SELECT clicks, heat FROM market_stats WHERE market_id = $1",
        values: [marketId],
      });
      const row = result.rows[0];
      return row === undefined ? { clicks: 0, heat: null } : { clicks: Number(row.clicks), heat: row.heat };
    },

    async addClicks(clicksByMarket, atMs) {
      if (clicksByMarket.size === 0) return;
      await inTransaction(pool, async (client) => {
        const stored = await lockedHeats(client, [...clicksByMarket.keys()]);
        const marketIds: number[] = [];
        const clicks: number[] = [];
        const heats: (number | null)[] = [];
        for (const [marketId, added] of clicksByMarket) {
          if (!stored.has(marketId)) continue;
          marketIds.push(marketId);
          clicks.push(added);
          heats.push(addHeat(stored.get(marketId) ?? null, added * hotScoreUsdtPerClick, atMs));
        }
        await client.query({
          name: "predex-catalog-add-clicks",
          text: `UPDATE market_stats s SET clicks = s.clicks + c.clicks, heat = c.heat
                 FROM unnest($1::bigint[], $2::bigint[], $3::float8[]) AS c (market_id, clicks, heat)
                 WHERE s.market_id = c.market_id`,
          values: [marketIds, clicks, heats],
        });
      });
    },

    async topHolders(marketId, perOptionMax): Promise<HolderRow[]> {
      const result = await pool.query<{ option_id: bigint; user_id: bigint; held: bigint }>({
        name: "predex-catalog-top-holders",
        text: `SELECT option_id, user_id, held FROM (
                 SELECT option_id, user_id, shares + frozen_shares AS held,
                   row_number() OVER (PARTITION BY option_id ORDER BY shares + frozen_shares DESC, user_id) AS place
                 FROM exchange_positions WHERE market_id = $1 AND shares + frozen_shares > 0
               ) ranked
               WHERE place <= $2 ORDER BY option_id, place`,
        values: [marketId, perOptionMax],
      });
      return result.rows.map((row) => ({
        optionId: Number(row.option_id),
        userId: Number(row.user_id),
        shares: row.held,
      }));
    },
  };

  return {
    store,
    projector: Object.assign(projector, { oneStatement }),
    onMarketsChanged(listener) {
      listeners.push(listener);
      listening.start();
    },
    close: () => listening.close(),
  };
}

function notificationPayloads(marketIds: ReadonlySet<number>): string[] {
  const ids = [...marketIds];
  const payloads: string[] = [];
  for (let index = 0; index < ids.length; index += notifyMarketIdsMax) {
    payloads.push(ids.slice(index, index + notifyMarketIdsMax).join(","));
  }
  return payloads;
}

/** Markets in the exchange's table without catalogue rows (created before this module ran): indexed once. */
async function indexUnindexedMarkets(pool: PostgresPool): Promise<void> {
  // The exchange adapter owns `markets`; on a database it has not migrated yet there is nothing to index.
  const exists = await pool.query<{ found: string | null }>("SELECT to_regclass('markets')::text AS found");
  if (exists.rows[0]?.found === null) return;
  const result = await pool.query<{
    market_id: bigint;
    title: string;
    creator_id: bigint | null;
    details: string | null;
  }>(
    `SELECT market_id, title, creator_id, details FROM markets m
     WHERE NOT EXISTS (SELECT 1 FROM market_stats s WHERE s.market_id = m.market_id)`,
  );
  await indexMarkets(
    pool,
    result.rows.map((row) => ({
      marketId: Number(row.market_id),
      title: row.title,
      creatorId: row.creator_id === null ? null : Number(row.creator_id),
      details: row.details === null ? null : decodePlainData<MarketDetails>(row.details),
    })),
  );
}

/**
 * LISTEN predex_markets_changed on a connection of its own (not a pooled one: it is held for the
 * process's life), started with the first listener; reopened after a failure, after which the
 * listeners hear "anything may have changed".
 */
function listenForMarketChanges(
  pool: PostgresPool,
  tell: (marketIds: ReadonlySet<number> | undefined) => void,
  options: PostgresMarketCatalogOptions,
): { start(): void; close(): Promise<void> } {
  const reconnectDelayMs = options.reconnectDelayMs ?? 500;
  let started = false;
  let closed = false;
  let client: pg.Client | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let connecting: Promise<void> | undefined;

  const connect = async (reconnected: boolean): Promise<void> => {
    // The pool's own settings (URL, int8 parser, session options, keepalive), outside the pool.
    const next = newPostgresClient(pool.options);
    const onFailure = (error?: unknown) => {
      if (client !== next) return;
      client = undefined;
      if (error !== undefined) options.onListenError?.(error);
      next.end().catch(() => {});
      scheduleReconnect();
    };
    next.on("notification", (message) => {
      if (message.channel !== marketsChangedChannel || message.payload === undefined) return;
      const marketIds = new Set(message.payload.split(",").map(Number));
      tell(marketIds);
    });
    next.on("error", onFailure);
    next.on("end", () => onFailure());
    await next.connect();
    await next.query(`LISTEN ${marketsChangedChannel}`);
    if (closed) {
      await next.end();
      return;
    }
    client = next;
    // Changes committed while nobody listened were not heard: every cached view may be stale.
    if (reconnected) tell(undefined);
  };

  const scheduleReconnect = () => {
    if (closed || reconnectTimer !== undefined) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connecting = connect(true).catch((error: unknown) => {
        options.onListenError?.(error);
        scheduleReconnect();
      });
    }, reconnectDelayMs);
    reconnectTimer.unref();
  };

  return {
    start() {
      if (started || closed) return;
      started = true;
      connecting = connect(false).catch((error: unknown) => {
        options.onListenError?.(error);
        scheduleReconnect();
      });
    },
    async close() {
      closed = true;
      if (reconnectTimer !== undefined) clearTimeout(reconnectTimer);
      await connecting;
      const open = client;
      client = undefined;
      await open?.end().catch(() => {});
    },
  };
}
