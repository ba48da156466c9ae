// The SQLite catalogue store driven by the real engine: the projector indexes markets and heats
// them with trades in each commit; listing skips drafts and orders by heat; search ranks and finds
// creators; holders come from positions; clicks add heat; changed markets are reported.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
  limitOrderCommand,
} from "../../src/core/exchange.js";
import { Engine } from "../../src/engine/engine.js";
import { hotScoreAt } from "../../src/store/hot-score.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import { createSqliteExchangeProjector } from "../../src/store/sqlite/exchange-read-models.js";
import { createSqliteMarketCatalog } from "../../src/store/sqlite/market-catalog.js";

const unit = 100_000_000n;
const nowMs = 1_800_000_000_000;
const firstPage = { page: 1, pageSize: 10 };

async function setUp() {
  const db: SqliteDatabase = openDatabase({ path: ":memory:" });
  const catalog = createSqliteMarketCatalog(db);
  const changed: number[][] = [];
  catalog.onMarketsChanged((marketIds) => changed.push([...marketIds]));
  const engine = await Engine.open<ExchangeState, ExchangeCommand, ExchangeEvent, SqliteDatabase>({
    decider: exchangeDecider,
    codec: exchangeStateCodec,
    store: new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db),
    projectors: [createSqliteExchangeProjector(db), catalog.projector],
    clock: () => nowMs,
    onFatal: (error) => {
      throw error;
    },
  });
  const createMarket = async (title: string, details: Record<string, string>, open = true) => {
    const created = await engine.submit(
      createMarketCommand({
        title,
        startTimeMs: nowMs - 60_000,
        endTimeMs: nowMs + 86_400_000,
        details: { outcomes: [], ...details },
      }),
    );
    assert.ok(created.ok && created.events[0]?.type === "MarketCreated");
    const market = created.events[0];
    if (open) assert.ok((await engine.submit({ type: "OpenMarket", marketId: market.marketId })).ok);
    const outcome = market.outcomes[0]!;
    return {
      marketId: market.marketId,
      outcomeId: outcome.outcomeId,
      yes: outcome.options[0]!.optionId,
      no: outcome.options[1]!.optionId,
    };
  };
  for (let userId = 1; userId <= 4; userId += 1) {
    assert.ok(
      (await engine.submit({ type: "Deposit", userId, amount: 1_000n * unit, txHash: `0x${userId}` })).ok,
    );
  }
  return { db, engine, store: catalog.store, changed, createMarket };
}

describe("SQLite market catalogue", () => {
  it("lists, ranks, searches, counts holders and clicks from what the engine commits", async () => {
    const { engine, store, changed, createMarket } = await setUp();
    const quiet = await createMarket("Quiet market about rain", {
      categoryId: "1",
      description: "bitcoin mentioned",
    });
    const busy = await createMarket("Bitcoin busy market", { categoryId: "2", tags: "crypto" });
    const draft = await createMarket("Bitcoin draft", { categoryId: "2" }, false);
    assert.ok(changed.flat().includes(draft.marketId));

    // Two buyers meet: 10 Yes at 0.6 and 10 No at 0.4 mint 10 pairs (10 USDT change hands).
    const buy = (userId: number, optionId: number, price: bigint, shares: bigint) =>
      engine.submit(
        limitOrderCommand({
          userId,
          marketId: busy.marketId,
          outcomeId: busy.outcomeId,
          optionId,
          side: "BUY",
          limitPrice: price,
          shares: shares * unit,
        }),
      );
    assert.ok((await buy(1, busy.yes, 60_000_000n, 10n)).ok);
    assert.ok((await buy(2, busy.no, 40_000_000n, 10n)).ok);
    assert.ok((await buy(3, busy.yes, 60_000_000n, 4n)).ok);
    assert.ok((await buy(4, busy.no, 40_000_000n, 4n)).ok);
    assert.ok(changed.flat().includes(busy.marketId));

    const busyStats = await store.stats(busy.marketId);
    assert.equal(hotScoreAt(busyStats.heat, nowMs), 14);
    assert.deepEqual(await store.stats(quiet.marketId), { clicks: 0, heat: null });

    // Drafts are never listed; the hotter market comes first.
    assert.deepEqual(await store.listedMarketIds({}, firstPage), {
      records: [busy.marketId, quiet.marketId],
      total: 2,
    });
    assert.deepEqual(await store.listedMarketIds({ categoryId: "1" }, firstPage), {
      records: [quiet.marketId],
      total: 1,
    });
    assert.deepEqual(await store.listedMarketIds({ status: "closed" }, firstPage), { records: [], total: 0 });
    assert.deepEqual(await store.listedMarketIds({}, { page: 2, pageSize: 1 }), {
      records: [quiet.marketId],
      total: 2,
    });

    // A title match ranks above a description match; drafts are never found; creators by name.
    assert.deepEqual(await store.search({ keyword: "bitcoin", searchBy: "Market" }, firstPage), {
      records: [busy.marketId, quiet.marketId],
      total: 2,
    });
    assert.equal((await store.search({ keyword: "predex", searchBy: "Creator" }, firstPage)).total, 2);
    assert.equal((await store.search({ keyword: "predex", searchBy: "Market" }, firstPage)).total, 0);
    assert.equal((await store.search({ keyword: '"(*', searchBy: "Market" }, firstPage)).total, 0);

    // Holders by option, largest first, at most perOptionMax each.
    const holders = await store.topHolders(busy.marketId, 1);
    assert.deepEqual(
      holders.map((row) => [row.optionId, row.userId, row.shares]),
      [
        [busy.yes, 1, 10n * unit],
        [busy.no, 2, 10n * unit],
      ],
    );
    assert.equal((await store.topHolders(busy.marketId, 10)).length, 4);
    assert.deepEqual(await store.topHolders(quiet.marketId, 10), []);

    // Twenty views of the quiet market weigh more than 14 USDT traded: it now leads the list.
    await store.addClicks(new Map([[quiet.marketId, 20]]), nowMs);
    const quietStats = await store.stats(quiet.marketId);
    assert.deepEqual([quietStats.clicks, hotScoreAt(quietStats.heat, nowMs)], [20, 20]);
    assert.deepEqual((await store.listedMarketIds({}, firstPage)).records, [quiet.marketId, busy.marketId]);
  });

  it("heats a market and adds up its volume the same whether its trades share a batch or not", async () => {
    // Four crossing orders at different prices and sizes, one batch each, then all in one batch.
    const outcomes = [];
    for (const together of [false, true]) {
      const { db, engine, store, createMarket } = await setUp();
      const market = await createMarket("Batched", { categoryId: "1" });
      const commands = [
        [1, market.yes, 60_000_000n, 10n],
        [2, market.no, 40_000_000n, 7n],
        [3, market.no, 35_000_000n, 5n],
        [4, market.yes, 70_000_000n, 3n],
      ].map(([userId, optionId, price, shares]) =>
        limitOrderCommand({
          userId: Number(userId),
          marketId: market.marketId,
          outcomeId: market.outcomeId,
          optionId: Number(optionId),
          side: "BUY",
          limitPrice: BigInt(price!),
          shares: BigInt(shares!) * unit,
        }),
      );
      const results = together ? await Promise.all(commands.map((command) => engine.submit(command))) : [];
      if (!together) for (const command of commands) results.push(await engine.submit(command));
      const trades = results.flatMap((result) =>
        result.ok ? result.events.filter((event) => event.type === "TradeExecuted") : [],
      );
      assert.ok(trades.length >= 2, "the orders trade more than once");
      const totals = db
        .prepare("SELECT volume, fee_income FROM markets WHERE market_id = ?")
        .get(market.marketId);
      outcomes.push({ stats: await store.stats(market.marketId), totals });
    }
    assert.deepEqual(outcomes[1], outcomes[0]);
  });
});
