// The catalogue's tables on PostgreSQL (port: src/store/market-catalog.ts, where what both adapters
// share is written once; SQLite twin with FTS5: src/store/sqlite/market-catalog.ts), module
// "catalog": market_stats (clicks and hotScore heat) and market_search (full text as tsvector
// columns with GIN indexes: market-search.ts). The projector keeps them in step with the journal
// inside the engine's batch transaction, so a market is searchable from the commit that creates it;
// it reads the exchange projector's `markets` and `exchange_positions` tables. What is PostgreSQL's
// own here is what several nodes sharing one database need:
//
// Heat. As on SQLite, a batch's heat per market is written once, and foldHeat runs over the same
// values in the same order, so the stored doubles are bit for bit those of SQLite. Several API nodes
// flush clicks into the same rows while the engine heats them: a click flush reads the heat FOR
// UPDATE (markets in ascending order, so they never deadlock) and writes it in the same transaction;
// the projector writes from the heat it wrote last, only where the row still holds that heat (the
// UPDATE rechecks it after waiting for a lock), and reads locked only the markets that missed — one
// round trip per batch instead of two while the engine alone heats a market.
//
// Changes. The projector tells this process's listeners at once (as SQLite does) and every node
// through NOTIFY predex_markets_changed, which PostgreSQL delivers at commit; each node that
// registers a listener LISTENs on a connection of its own (channel-listener.ts), and after a lost
// connection tells its listeners that anything may have changed (a notification may have been lost).

import type { ExchangeCommand } from "../../core/commands.js";
import type { ExchangeEvent } from "../../core/events.js";
import type { JournalEntry } from "../../engine/store.js";
import {
  type CatalogChanges,
  catalogChangesOf,
  catalogReadsOn,
  catalogStatements,
  clickedHeat,
  foldHeat,
  type HeatAdded,
  type IndexedMarket,
  type ListedParams,
  listedStatements,
  type MarketCatalogStore,
  type MarketListFilter,
  type UnindexedMarketRow,
  unindexedMarketOf,
} from "../market-catalog.js";
import { pageWindow } from "../page-window.js";
import { sql } from "../sql.js";
import type { BatchStatementWriter, StatementPart } from "./batch-statement.js";
import { type ChannelListener, listenOnChannel } from "./channel-listener.js";
import { inTransaction, type PostgresClient, type PostgresPool } from "./database.js";
import type { PostgresProjector } from "./engine-store.js";
import { searchStatements, searchVectorsOf, tsQueryOf } from "./market-search.js";
import { applyPostgresMigrations } from "./migrations.js";
import { type PostgresStatement, postgresStatements, preparePostgres, type Queryable } from "./statements.js";
import { plansOnceInStep } from "./step-planning.js";

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

/** Markets whose last written heat the projector remembers, at most (then it forgets them all). */
const lastWrittenHeatsMax = 100_000;

const statements = {
  /** One statement for a batch's new markets: their stats rows and their search rows. */
  indexMarkets: preparePostgres(
    "predex-catalog-index-markets",
    sql<{ marketIds: number[]; words: string[]; creatorWords: string[] }>`WITH stats AS (
       INSERT INTO market_stats (market_id) SELECT unnest(${"marketIds"}::bigint[]) ON CONFLICT DO NOTHING
     )
     INSERT INTO market_search (market_id, words, creator_words)
     SELECT * FROM unnest(${"marketIds"}::bigint[], ${"words"}::tsvector[], ${"creatorWords"}::tsvector[])
     ON CONFLICT DO NOTHING`,
  ),
  /** The heats of these markets (ascending), locked until the transaction ends. */
  lockHeats: preparePostgres(
    "predex-catalog-lock-heats",
    sql<{
      marketIds: number[];
    }>`SELECT market_id, heat FROM market_stats WHERE market_id = ANY(${"marketIds"}::bigint[])
     ORDER BY market_id FOR UPDATE`,
  ),
  heat: preparePostgres(
    "predex-catalog-heat",
    sql<{ marketIds: number[]; heats: (number | null)[] }>`UPDATE market_stats s SET heat = h.heat
     FROM unnest(${"marketIds"}::bigint[], ${"heats"}::float8[]) AS h (market_id, heat)
     WHERE s.market_id = h.market_id`,
  ),
  addClicks: preparePostgres(
    "predex-catalog-add-clicks",
    sql<{
      marketIds: number[];
      clicks: number[];
      heats: (number | null)[];
    }>`UPDATE market_stats s SET clicks = s.clicks + c.clicks, heat = c.heat
     FROM unnest(${"marketIds"}::bigint[], ${"clicks"}::bigint[], ${"heats"}::float8[]) AS c (market_id, clicks, heat)
     WHERE s.market_id = c.market_id`,
  ),
};

async function indexMarkets(on: Queryable, markets: readonly IndexedMarket[]): Promise<void> {
  if (markets.length === 0) return;
  const vectors = markets.map(searchVectorsOf);
  await statements.indexMarkets.query(on, {
    marketIds: markets.map((market) => market.marketId),
    words: vectors.map((vector) => vector.words),
    creatorWords: vectors.map((vector) => vector.creatorWords),
  });
}

async function lockedHeats(client: PostgresClient, marketIds: readonly number[]) {
  const sorted = [...marketIds].sort((a, b) => a - b);
  const result = await statements.lockHeats.query<{ market_id: bigint; heat: number | null }>(client, {
    marketIds: sorted,
  });
  return new Map(result.rows.map((row) => [Number(row.market_id), row.heat]));
}

/** What the projector and its one-statement path share: the batch scanned once, the heats written. */
interface HeatProjection {
  /** The one-statement path asks writesInOneStatement, then prepare, of the same batch: scanned once. */
  scan(entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]): CatalogChanges;
  /**
   * The heat this projector last wrote per market: only a guess, checked by the UPDATE itself (a
   * batch rolled back or clicks flushed meanwhile make it miss, and the heat is then read locked).
   */
  readonly lastWrittenHeats: Map<number, number | null>;
  /** This process's listeners, told at once (every node's hear NOTIFY at commit). */
  tell(marketIds: ReadonlySet<number>): void;
}

function heatProjection(tell: (marketIds: ReadonlySet<number>) => void): HeatProjection {
  let lastScan: { entries: object; scanned: CatalogChanges } | undefined;
  return {
    scan(entries) {
      if (lastScan?.entries !== entries) lastScan = { entries, scanned: catalogChangesOf(entries) };
      return lastScan.scanned;
    },
    lastWrittenHeats: new Map(),
    tell,
  };
}

function forgetHeatsIfMany(lastWrittenHeats: Map<number, number | null>): void {
  if (lastWrittenHeats.size > lastWrittenHeatsMax) lastWrittenHeats.clear();
}

/** Each market's heat guessed from the one last written: what the row should hold, what it becomes. */
interface GuessedHeats {
  readonly marketIds: number[];
  readonly expectedHeats: (number | null)[];
  readonly guessedHeats: (number | null)[];
  /** Markets this projector has not written yet: no guess. */
  readonly unknown: Set<number>;
}

/** `everyMarket`: a market not remembered is guessed from no heat rather than left unknown. */
function guessHeats(
  heatAdded: ReadonlyMap<number, readonly HeatAdded[]>,
  lastWrittenHeats: ReadonlyMap<number, number | null>,
  { everyMarket }: { readonly everyMarket: boolean },
): GuessedHeats {
  const guessed: GuessedHeats = { marketIds: [], expectedHeats: [], guessedHeats: [], unknown: new Set() };
  for (const [marketId, added] of heatAdded) {
    if (!everyMarket && !lastWrittenHeats.has(marketId)) {
      guessed.unknown.add(marketId);
      continue;
    }
    const expected = lastWrittenHeats.get(marketId) ?? null;
    guessed.marketIds.push(marketId);
    guessed.expectedHeats.push(expected);
    guessed.guessedHeats.push(foldHeat(expected, added));
  }
  return guessed;
}

/** A compare-and-set of the guessed heats (rechecked by the UPDATE after any lock wait). */
const guessedHeatsCte = `UPDATE market_stats s SET heat = h.heat
                 FROM unnest($1::bigint[], $2::float8[], $3::float8[]) AS h (market_id, expected, heat)
                 WHERE s.market_id = h.market_id AND s.heat IS NOT DISTINCT FROM h.expected
                 RETURNING s.market_id`;

/** The guessed heats and the markets' notification, as one statement (writeGuessedHeats). */
const guessedHeatsStatement = {
  name: "predex-catalog-guessed-heats",
  text: `WITH heated AS (
                 ${guessedHeatsCte}
               ),
               notified AS (SELECT count(pg_notify($4, payload)) AS sent FROM unnest($5::text[]) AS payload)
               SELECT coalesce((SELECT array_agg(market_id) FROM heated), '{}') AS heated,
                      (SELECT sent FROM notified) AS sent`,
};

function catalogProjector(projection: HeatProjection): PostgresProjector<ExchangeCommand, ExchangeEvent> {
  return async (client, entries) => {
    const { touched, created, heatAdded } = projection.scan(entries);
    await indexMarkets(client, created);
    const missed = await writeGuessedHeats(client, touched, heatAdded, projection.lastWrittenHeats);
    if (missed.size > 0) await writeMissedHeats(client, missed, heatAdded, projection.lastWrittenHeats);
    forgetHeatsIfMany(projection.lastWrittenHeats);
    // This process's listeners at once, as on SQLite; every node's (this one's too) at commit.
    if (touched.size > 0) projection.tell(touched);
  };
}

/**
 * First try: each market's heat from the one this projector last wrote, written only where the row
 * still holds it, with the notification, in one round trip. Returns the markets that missed.
 */
async function writeGuessedHeats(
  client: PostgresClient,
  touched: ReadonlySet<number>,
  heatAdded: ReadonlyMap<number, readonly HeatAdded[]>,
  lastWrittenHeats: Map<number, number | null>,
): Promise<Set<number>> {
  const guess = guessHeats(heatAdded, lastWrittenHeats, { everyMarket: false });
  const { marketIds, expectedHeats, guessedHeats, unknown: missed } = guess;
  if (touched.size === 0 && marketIds.length === 0) return missed;
  // The notification is delivered at commit. Inside a read-model step, named: planned once per
  // connection, by index probes (step-planning.ts; planning it for every step cost about as much as
  // running it, i31-pg2). Elsewhere unnamed, so planned with this batch's arrays and market_stats as
  // it is now: a generic plan made while the table was small would scan all of it
  // (exchange-projector.ts, flushStatement).
  const result = await client.query<{ heated: bigint[] }>({
    ...(plansOnceInStep(client) ? { name: guessedHeatsStatement.name } : {}),
    text: guessedHeatsStatement.text,
    values: [marketIds, expectedHeats, guessedHeats, marketsChangedChannel, notificationPayloads(touched)],
  });
  const heated = new Set(result.rows[0]!.heated.map(Number));
  marketIds.forEach((marketId, index) => {
    if (heated.has(marketId)) lastWrittenHeats.set(marketId, guessedHeats[index]!);
    else missed.add(marketId);
  });
  return missed;
}

/**
 * A market not written by this projector yet, or whose heat changed meanwhile (clicks from an API
 * node, a rolled-back batch): read it locked, as the click flush does, and write it.
 */
async function writeMissedHeats(
  client: PostgresClient,
  missed: ReadonlySet<number>,
  heatAdded: ReadonlyMap<number, readonly HeatAdded[]>,
  lastWrittenHeats: Map<number, number | null>,
): Promise<void> {
  const stored = await lockedHeats(client, [...missed]);
  const marketIds: number[] = [];
  const heats: (number | null)[] = [];
  for (const marketId of missed) {
    if (!stored.has(marketId)) continue;
    marketIds.push(marketId);
    heats.push(foldHeat(stored.get(marketId) ?? null, heatAdded.get(marketId)!));
  }
  if (marketIds.length === 0) return;
  await statements.heat.query(client, { marketIds, heats });
  for (const [index, marketId] of marketIds.entries()) lastWrittenHeats.set(marketId, heats[index]!);
}

/**
 * The guessed heats as above; where the row no longer holds the guess, the batch's own heat is
 * added to the row's by the statement itself (the same log-sum as addHeat, in PostgreSQL's
 * floating point); the notification.
 */
const oneStatementCtes = `catalog_heated AS (
                 ${guessedHeatsCte}
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
               )`;

/**
 * In a batch's one statement (batch-statement.ts): a batch that creates no market and heats only
 * markets this projector has written before. Each heat is then the one computed here from the last
 * written heat, written where the row still holds that; where it does not (clicks flushed by an API
 * node meanwhile, which the UPDATE rechecks after waiting for their lock), the batch's heat is added
 * to the row's heat by the statement itself, so nothing needs a second statement.
 */
function oneStatementWriter(
  projection: HeatProjection,
): BatchStatementWriter<ExchangeCommand, ExchangeEvent> {
  const { lastWrittenHeats } = projection;
  return {
    writesInOneStatement(entries) {
      const { created, heatAdded } = projection.scan(entries);
      return (
        created.length === 0 && [...heatAdded.keys()].every((marketId) => lastWrittenHeats.has(marketId))
      );
    },
    async prepare(_reader, entries) {
      const { touched, heatAdded } = projection.scan(entries);
      if (touched.size === 0 && heatAdded.size === 0) return { part: undefined, committed: () => {} };
      // Every market: writesInOneStatement found each remembered (a forget since guesses from none).
      const { marketIds, expectedHeats, guessedHeats } = guessHeats(heatAdded, lastWrittenHeats, {
        everyMarket: true,
      });
      const batchHeats = marketIds.map((marketId) => foldHeat(null, heatAdded.get(marketId)!));
      const part: StatementPart = {
        ctes: oneStatementCtes,
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
      // Guessed as written from here (the next batch may be prepared before this one's answer).
      marketIds.forEach((marketId, index) => {
        lastWrittenHeats.set(marketId, guessedHeats[index]!);
      });
      return {
        part,
        committed(selected) {
          correctGuesses(lastWrittenHeats, { marketIds, guessedHeats }, selected);
          forgetHeatsIfMany(lastWrittenHeats);
          if (touched.size > 0) projection.tell(touched);
        },
      };
    },
  };
}

/**
 * Where the statement added to another heat instead of writing the guess, its answer corrects the
 * guess, unless a later batch has guessed again meanwhile (its own answer will say).
 */
function correctGuesses(
  lastWrittenHeats: Map<number, number | null>,
  guessed: Pick<GuessedHeats, "marketIds" | "guessedHeats">,
  selected: readonly unknown[],
): void {
  const reheated = selected[0] as bigint[];
  const reheats = selected[1] as (number | null)[];
  for (const [index, id] of reheated.entries()) {
    const marketId = Number(id);
    if (lastWrittenHeats.get(marketId) === guessed.guessedHeats[guessed.marketIds.indexOf(marketId)]) {
      lastWrittenHeats.set(marketId, reheats[index]!);
    }
  }
}

function postgresCatalogStore(pool: PostgresPool): MarketCatalogStore {
  const shared = postgresStatements(pool, "predex-catalog", catalogStatements);
  return {
    ...catalogReadsOn(shared),
    async listedMarketIds(filter, page) {
      const params = { ...filter, ...pageWindow(page) };
      const listed = await listedStatement(filter).row<{ total: bigint; market_ids: (string | bigint)[] }>(
        pool,
        params,
      );
      const total = Number(listed!.total);
      return { records: total <= params.offset ? [] : listed!.market_ids.map(Number), total };
    },

    async search(query, page) {
      const match = tsQueryOf(query);
      if (match === undefined) return { records: [], total: 0 };
      const { page: pageOf, count } = searchStatements[query.searchBy];
      const { limit, offset } = pageWindow(page);
      const result = await pageOf.query<{ market_id: bigint; total: bigint }>(pool, { match, limit, offset });
      const first = result.rows[0];
      if (first !== undefined) {
        return { records: result.rows.map((row) => Number(row.market_id)), total: Number(first.total) };
      }
      // Past the last match, or none: the total still counts.
      const counted = await count.row<{ total: bigint }>(pool, { match });
      return { records: [], total: Number(counted?.total ?? 0n) };
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
          heats.push(clickedHeat(stored.get(marketId) ?? null, added, atMs));
        }
        await statements.addClicks.query(client, { marketIds, clicks, heats });
      });
    },
  };
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
  let listening: Promise<ChannelListener> | undefined;
  const projection = heatProjection(tell);
  return {
    store: postgresCatalogStore(pool),
    projector: Object.assign(catalogProjector(projection), { oneStatement: oneStatementWriter(projection) }),
    onMarketsChanged(listener) {
      listeners.push(listener);
      listening ??= listenForMarketChanges(pool, tell, options);
    },
    async close() {
      await (await listening)?.close();
    },
  };
}

const listedByKey = new Map<string, PostgresStatement<ListedParams>>();

/** The listing's count and page in one round trip: the page walks the heat index and stops at LIMIT. */
function listedStatement(filter: MarketListFilter): PostgresStatement<ListedParams> {
  const { key, count, page } = listedStatements(filter);
  let found = listedByKey.get(key);
  if (found === undefined) {
    found = preparePostgres(
      `predex-catalog-list${key}`,
      sql`SELECT (${count}) AS total, ARRAY(${page}) AS market_ids`,
    );
    listedByKey.set(key, found);
  }
  return found;
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
  const unindexed = preparePostgres("predex-catalog-unindexed-markets", catalogStatements.unindexedMarkets);
  const result = await unindexed.query<UnindexedMarketRow>(pool, {});
  await indexMarkets(pool, result.rows.map(unindexedMarketOf));
}

/**
 * LISTEN predex_markets_changed, started with the first listener; after a lost connection, once
 * listening again, the listeners hear "anything may have changed".
 */
function listenForMarketChanges(
  pool: PostgresPool,
  tell: (marketIds: ReadonlySet<number> | undefined) => void,
  options: PostgresMarketCatalogOptions,
): Promise<ChannelListener> {
  let lost = false;
  return listenOnChannel({
    connection: pool.options,
    channel: marketsChangedChannel,
    onNotification: (payload) => tell(new Set(payload.split(",").map(Number))),
    onListening() {
      // Changes committed while nobody listened were not heard: every cached view may be stale.
      if (lost) tell(undefined);
      lost = false;
    },
    onLost(error) {
      lost = true;
      options.onListenError?.(error);
    },
    ...(options.reconnectDelayMs === undefined ? {} : { reconnectDelayMs: options.reconnectDelayMs }),
  });
}
