// bench:pg-catalogue — the catalogue's reads on PostgreSQL against SQLite in the same run: a search
// (two random word prefixes) and the hottest-first list page, over the same 20,000 markets indexed
// by each store's own projector from the same MarketCreated events, with heat from trades on a third
// of them. Sequential queries from one client (latency, not the server's concurrency), a fixed number
// per store, so it stops by itself. The throwaway cluster runs on loopback.

import type { ExchangeCommand } from "../src/core/commands.js";
import type { ExchangeEvent } from "../src/core/events.js";
import type { JournalEntry } from "../src/engine/store.js";
import type { MarketCatalogStore } from "../src/store/market-catalog.js";
import { inTransaction, openPostgresPool } from "../src/store/postgres/database.js";
import { openPostgresMarketCatalog } from "../src/store/postgres/market-catalog.js";
import { applyMigrations, openDatabase } from "../src/store/sqlite/database.js";
import { exchangeReadModelMigrations } from "../src/store/sqlite/exchange-schema.js";
import { createSqliteMarketCatalog } from "../src/store/sqlite/market-catalog.js";
import { startPostgresCluster } from "../test/support/postgres-cluster.js";
import { foreignExchangeTables } from "../test/support/postgres-foreign-tables.js";
import { percentileOfSorted, round } from "./lib/summary.js";

const marketCount = 20_000;
const queriesPerKind = 2_000;
const nowMs = Date.UTC(2026, 10, 24);
const vocabulary = [
  "bitcoin",
  "ethereum",
  "election",
  "president",
  "rain",
  "snow",
  "football",
  "final",
  "league",
  "inflation",
  "rates",
  "oscar",
  "award",
  "launch",
  "rocket",
  "merger",
  "earnings",
  "storm",
  "crypto",
  "比特币",
  "选举",
  "足球",
  "비트코인",
  "선거",
  "São",
  "Zürich",
  "Ōsaka",
  "record",
  "price",
  "summit",
];
let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const word = () => vocabulary[Math.floor(random() * vocabulary.length)]!;

function entries(): JournalEntry<ExchangeCommand, ExchangeEvent>[] {
  const made: JournalEntry<ExchangeCommand, ExchangeEvent>[] = [];
  for (let marketId = 1; marketId <= marketCount; marketId += 1) {
    const events = [
      {
        type: "MarketCreated",
        marketId,
        title: `${word()} ${word()} ${word()} before ${2027 + (marketId % 5)}?`,
        creatorId: marketId % 10 === 0 ? marketId : null,
        details: { categoryId: String(marketId % 12), description: `${word()} ${word()}`, tags: word() },
        createdAtMs: nowMs,
      },
    ] as unknown as ExchangeEvent[];
    if (marketId % 3 === 0) {
      events.push({
        type: "PoolTradeExecuted",
        marketId,
        amount: BigInt(1 + Math.floor(random() * 1_000)) * 100_000_000n,
        atMs: nowMs - Math.floor(random() * 86_400_000),
      } as unknown as ExchangeEvent);
    }
    made.push({ sequence: BigInt(marketId), command: {} as ExchangeCommand, events, atMs: nowMs } as never);
  }
  return made;
}

const marketRow = (marketId: number) => [
  marketId,
  `m${marketId}`,
  marketId % 7 === 0 ? "draft" : "open",
  String(marketId % 12),
];

async function measure(store: MarketCatalogStore) {
  const run = async (query: () => Promise<unknown>) => {
    const latencies: number[] = [];
    const startedAt = performance.now();
    for (let index = 0; index < queriesPerKind; index += 1) {
      const before = performance.now();
      await query();
      latencies.push(performance.now() - before);
    }
    const elapsedMs = performance.now() - startedAt;
    latencies.sort((a, b) => a - b);
    return {
      perSecond: (queriesPerKind * 1000) / elapsedMs,
      p50Ms: percentileOfSorted(latencies, 50),
      p99Ms: percentileOfSorted(latencies, 99),
    };
  };
  const search = await run(() =>
    store.search(
      { keyword: `${word().slice(0, 4)} ${word().slice(0, 3)}`, searchBy: "Market" },
      { page: 1, pageSize: 20 },
    ),
  );
  const list = await run(() =>
    store.listedMarketIds(
      { categoryId: random() < 0.5 ? undefined : String(Math.floor(random() * 12)) },
      { page: 1 + Math.floor(random() * 5), pageSize: 20 },
    ),
  );
  return { search, list };
}

const journal = entries();

// SQLite: the catalogue's projector in one transaction, the markets rows beside it.
const db = openDatabase({ path: ":memory:" });
applyMigrations(db, "exchange", exchangeReadModelMigrations);
const sqliteCatalog = createSqliteMarketCatalog(db);
const insertMarket = db.prepare(
  "INSERT INTO markets (market_id, title, model_type, status, category_id, description, rules, tags, created_at_ms) VALUES (?, ?, 'AMM', ?, ?, '', '', '', 0)",
);
db.transaction(() => {
  for (let marketId = 1; marketId <= marketCount; marketId += 1) insertMarket.run(...marketRow(marketId));
  for (let index = 0; index < journal.length; index += 500) {
    sqliteCatalog.projector(db, journal.slice(index, index + 500));
  }
})();

const cluster = await startPostgresCluster();
try {
  const url = await cluster.createDatabase("bench_catalogue");
  const pool = openPostgresPool({ url, applicationName: "predex-bench-catalogue" });
  await pool.query(foreignExchangeTables);
  await pool.query(
    "INSERT INTO markets (market_id, title, model_type, status, category_id, description, rules, tags, created_at_ms) SELECT id, 'm' || id, 'AMM', CASE WHEN id % 7 = 0 THEN 'draft' ELSE 'open' END, (id % 12)::text, '', '', '', 0 FROM generate_series(1, $1::int) id",
    [marketCount],
  );
  const pgCatalog = await openPostgresMarketCatalog(pool);
  for (let index = 0; index < journal.length; index += 500) {
    await inTransaction(
      pool,
      (client) => pgCatalog.projector(client, journal.slice(index, index + 500)) as Promise<void>,
    );
  }
  await pool.query("ANALYZE");

  const sqlite = await measure(sqliteCatalog.store);
  const postgres = await measure(pgCatalog.store);
  console.log("store      search/s  p50 ms  p99 ms | list/s  p50 ms  p99 ms");
  for (const [name, figures] of [
    ["sqlite", sqlite],
    ["postgres", postgres],
  ] as const) {
    console.log(
      `${name.padEnd(9)} ${figures.search.perSecond.toFixed(0).padStart(9)} ${figures.search.p50Ms.toFixed(3).padStart(7)} ${figures.search.p99Ms.toFixed(3).padStart(7)} | ${figures.list.perSecond.toFixed(0).padStart(6)} ${figures.list.p50Ms.toFixed(3).padStart(7)} ${figures.list.p99Ms.toFixed(3).padStart(7)}`,
    );
  }
  await pgCatalog.close();
  await pool.end();
  console.log(
    JSON.stringify({
      bench: "pg-catalogue",
      unit: "searches/s",
      value: round(postgres.search.perSecond, 0),
      baseline: { name: "sqlite (FTS5), same markets", value: round(sqlite.search.perSecond, 0) },
      ratio: round(postgres.search.perSecond / sqlite.search.perSecond, 3),
      p50_ms: round(postgres.search.p50Ms, 3),
      p99_ms: round(postgres.search.p99Ms, 3),
      baseline_p50_ms: round(sqlite.search.p50Ms, 3),
      baseline_p99_ms: round(sqlite.search.p99Ms, 3),
      list_per_s: round(postgres.list.perSecond, 0),
      baseline_list_per_s: round(sqlite.list.perSecond, 0),
      list_ratio: round(postgres.list.perSecond / sqlite.list.perSecond, 3),
      list_p99_ms: round(postgres.list.p99Ms, 3),
      markets: marketCount,
    }),
  );
} finally {
  db.close();
  await cluster.stop();
}
