// The market catalogue contract (src/store/market-catalog.ts + its engine projector), driven by the
// real engine, run on SQLite (FTS5) and PostgreSQL (tsvector) by test/catalog/market-catalog.test.ts:
// the projector indexes markets and heats them with trades in each commit; listing skips drafts and
// orders by heat; search ranks (title, then tags, then description), matches word prefixes whatever
// the case and accents, Chinese and Korean titles included, and finds creators; holders come from
// positions; clicks add heat; changed markets are reported.

import assert from "node:assert/strict";
import { afterEach, it } from "node:test";
import {
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  limitOrderCommand,
} from "../../src/core/exchange.js";
import type { Engine } from "../../src/engine/engine.js";
import { hotScoreAt } from "../../src/store/hot-score.js";
import type { MarketCatalogStore } from "../../src/store/market-catalog.js";

export const unit = 100_000_000n;
export const nowMs = 1_800_000_000_000;
const firstPage = { page: 1, pageSize: 10 };

export type CatalogEngine = Engine<ExchangeState, ExchangeCommand, ExchangeEvent, unknown>;

export interface OpenCatalog {
  readonly engine: CatalogEngine;
  readonly store: MarketCatalogStore;
  /** The markets each change notification named (undefined: anything may have changed). */
  readonly changed: (readonly number[] | undefined)[];
  /** Makes the exchange's position rows reflect the engine (a no-op where the real projector runs). */
  syncPositions(): Promise<void>;
  /** The market's volume and fee income as the exchange's read model has them, where it runs here. */
  totals(marketId: number): Promise<unknown>;
  close(): Promise<void>;
}

export interface CatalogHarness {
  readonly name: string;
  open(): Promise<OpenCatalog>;
}

export function describeMarketCatalogContract(harness: CatalogHarness): void {
  let open: OpenCatalog | undefined;
  afterEach(async () => {
    await open?.close();
    open = undefined;
  });

  async function setUp() {
    open = await harness.open();
    const { engine } = open;
    const createMarket = async (title: string, details: Record<string, string>, opened = true) => {
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
      if (opened) assert.ok((await engine.submit({ type: "OpenMarket", marketId: market.marketId })).ok);
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
    return { ...open, createMarket };
  }

  it("lists, ranks, searches, counts holders and clicks from what the engine commits", async () => {
    const { engine, store, changed, createMarket, syncPositions } = await setUp();
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
    await syncPositions();

    const busyStats = await store.stats(busy.marketId);
    assert.equal(hotScoreAt(busyStats.heat, nowMs), 14);
    assert.deepEqual(await store.stats(quiet.marketId), { clicks: 0, heat: null });
    assert.deepEqual(await store.stats(999_999), { clicks: 0, heat: null });

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
    assert.deepEqual(await store.listedMarketIds({ status: "open", categoryId: "2" }, firstPage), {
      records: [busy.marketId],
      total: 1,
    });
    assert.deepEqual(await store.listedMarketIds({}, { page: 2, pageSize: 1 }), {
      records: [quiet.marketId],
      total: 2,
    });
    assert.deepEqual(await store.listedMarketIds({}, { page: 3, pageSize: 1 }), { records: [], total: 2 });

    // A title match ranks above a description match; drafts are never found; creators by name.
    assert.deepEqual(await store.search({ keyword: "bitcoin", searchBy: "Market" }, firstPage), {
      records: [busy.marketId, quiet.marketId],
      total: 2,
    });
    assert.deepEqual(
      await store.search({ keyword: "bitcoin", searchBy: "Market" }, { page: 2, pageSize: 1 }),
      {
        records: [quiet.marketId],
        total: 2,
      },
    );
    assert.deepEqual(
      await store.search({ keyword: "bitcoin", searchBy: "Market" }, { page: 3, pageSize: 1 }),
      {
        records: [],
        total: 2,
      },
    );
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
    // Clicks on a market the catalogue does not know are dropped.
    await store.addClicks(new Map([[999_999, 3]]), nowMs);
    assert.deepEqual(await store.stats(999_999), { clicks: 0, heat: null });
  });

  it("ranks title, then tags, then description; matches prefixes of every word, any case or accent", async () => {
    const { store, createMarket } = await setUp();
    const titleMatch = await createMarket("Bitcoin above 100k by December?", {
      categoryId: "1",
      description: "Crypto prices",
    });
    const descriptionMatch = await createMarket("Ethereum merge anniversary", {
      categoryId: "1",
      description: "Compared with bitcoin",
    });
    const tagMatch = await createMarket("Solana outage this year", {
      categoryId: "1",
      tags: "bitcoin,crypto",
    });
    const oslo = await createMarket("Will it snow in Ōslo, Zürich or São Paulo?", { categoryId: "1" });
    const ids = async (keyword: string, searchBy: "Market" | "Creator" = "Market") =>
      (await store.search({ keyword, searchBy }, firstPage)).records;
    assert.deepEqual(await ids("bitcoin"), [
      titleMatch.marketId,
      tagMatch.marketId,
      descriptionMatch.marketId,
    ]);
    assert.deepEqual(await ids("BITCO decem"), [titleMatch.marketId]);
    assert.deepEqual(await ids("oslo"), [oslo.marketId]);
    assert.deepEqual(await ids("ôslo zur"), [oslo.marketId]);
    assert.deepEqual(await ids("SAO"), [oslo.marketId]);
    assert.deepEqual(await ids("bitcoin oslo"), []);
    assert.deepEqual(await ids("100"), [titleMatch.marketId]);
    // Query syntax of either engine is plain words here.
    assert.deepEqual(await ids("title:bitcoin"), []);
    assert.deepEqual(await ids("bitcoin OR"), []);
    assert.deepEqual(await ids("crypto & !solana"), [tagMatch.marketId]);
    for (const keyword of ['"', "NEAR(a b)", "*", "a AND", "(", "^x", "-", "💥", "':*", "\\", "a|b", "<->"]) {
      const found = await store.search({ keyword, searchBy: "Market" }, firstPage);
      assert.ok(found.total >= 0, keyword);
    }
    // Only the first sixteen words count; a very long word is cut, and still matches as a prefix.
    assert.deepEqual(await ids(`bitcoin ${"x ".repeat(20)}`), []);
    assert.deepEqual(await ids(`${"december ".repeat(15)}bitcoin zzz`), [titleMatch.marketId]);
    assert.deepEqual(await ids("e".repeat(100)), []);
  });

  it("finds Chinese, Korean and mixed-script titles by the beginning of a word", async () => {
    const { store, createMarket } = await setUp();
    const chinese = await createMarket("比特币 年底 会突破十万美元吗", { categoryId: "1", tags: "加密货币" });
    const unspaced = await createMarket("上海明天会下雨吗", { categoryId: "1" });
    const korean = await createMarket("비트코인 가격 예측", { categoryId: "1", description: "スポーツ" });
    const mixed = await createMarket("BTC价格 above 100k", { categoryId: "1" });
    const ids = async (keyword: string) =>
      (await store.search({ keyword, searchBy: "Market" }, firstPage)).records;
    assert.deepEqual(await ids("比特币"), [chinese.marketId]);
    assert.deepEqual(await ids("比特"), [chinese.marketId]);
    assert.deepEqual(await ids("会突破"), [chinese.marketId]);
    assert.deepEqual(await ids("加密"), [chinese.marketId]);
    assert.deepEqual(await ids("上海"), [unspaced.marketId]);
    assert.deepEqual(await ids("비트"), [korean.marketId]);
    assert.deepEqual(await ids("スポ"), [korean.marketId]);
    assert.deepEqual(await ids("btc价"), [mixed.marketId]);
    assert.deepEqual(await ids("btc价格 100K"), [mixed.marketId]);
    // A run of CJK characters is one word, found by its beginning only (on both stores alike).
    assert.deepEqual(await ids("下雨"), []);
  });

  it("heats a market the same whether its trades share a batch or not", async () => {
    // Four crossing orders at different prices and sizes, one batch each, then all in one batch.
    const outcomes = [];
    for (const together of [false, true]) {
      const { engine, store, createMarket, totals } = await setUp();
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
      outcomes.push({ stats: await store.stats(market.marketId), totals: await totals(market.marketId) });
      await open?.close();
      open = undefined;
    }
    assert.deepEqual(outcomes[1], outcomes[0]);
    assert.ok((outcomes[0]?.stats.heat ?? null) !== null);
  });
}
