// The rest of Polymarket's public (L0) reads, driven by @polymarket/clob-client: the health check,
// the simplified and sampling market listings, a market's trade events, the rewards reads (predex
// pays no rewards) and the read-only key check (predex has no such keys), each in Polymarket's
// shapes and with its {"error": …} refusals. The last test calls every L0 read of clob-client 5.8
// and py-clob-client once and checks that none falls through to predex's own 404 envelope
// (docs/decisions.md lists them and what each maps to).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ClobClient, type MarketTradeEvent, PriceHistoryInterval, Side } from "@polymarket/clob-client";
import { conditionIdOf } from "../../src/realtime/condition-ids.js";
import type { PredexClient } from "../../src/sdk/client.js";
import { type BinaryMarket, startTradingPlatform, type TradingPlatform } from "./trading-fixtures.js";

let platform: TradingPlatform;
let clob: ClobClient;
/** An open order book that traded twice; an AMM pool; a draft; a closed book. */
let book: BinaryMarket;
let pool: BinaryMarket;
let draftCondition: string;
let closed: BinaryMarket;
const conditions = new Map<string, string>();
const assets = new Map<string, [string, string]>();

interface Listed {
  condition_id: string;
  tokens: { token_id: string; outcome: string; price: number; winner: boolean }[];
  [field: string]: unknown;
}

async function assetIdsOf(market: BinaryMarket): Promise<[string, string]> {
  return platform.platform.deps.engine.read((state) => [
    state.options.get(Number(market.yes))!.assetId,
    state.options.get(Number(market.no))!.assetId,
  ]);
}

async function remember(market: BinaryMarket): Promise<void> {
  const [yes, no] = await assetIdsOf(market);
  assets.set(market.marketId, [yes, no]);
  conditions.set(market.marketId, conditionIdOf(Number(market.marketId), Number(market.outcomeId)));
}

const conditionOf = (market: BinaryMarket) => conditions.get(market.marketId)!;
const yesOf = (market: BinaryMarket) => assets.get(market.marketId)![0];
const noOf = (market: BinaryMarket) => assets.get(market.marketId)![1];

/** Every page of a cursor-paged listing, as a client walks it to "LTE=". */
async function walk(
  read: (cursor?: string) => Promise<{ data: Listed[]; next_cursor: string; count: number }>,
) {
  const seen: Listed[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20 && cursor !== "LTE="; page++) {
    const payload = await read(cursor);
    assert.equal(payload.count, payload.data.length);
    seen.push(...payload.data);
    cursor = payload.next_cursor;
  }
  assert.equal(cursor, "LTE=");
  return seen;
}

const simplified = (market: Listed) => ({
  condition_id: market.condition_id,
  rewards: market.rewards,
  tokens: market.tokens,
  active: market.active,
  closed: market.closed,
  archived: market.archived,
  accepting_orders: market.accepting_orders,
});

const limitBuy = (
  client: PredexClient,
  market: BinaryMarket,
  optionId: string,
  limitPrice: number,
  shares: number,
) =>
  client.createOrder({
    marketId: market.marketId,
    outcomeId: market.outcomeId,
    optionId,
    side: "BUY",
    orderType: "LIMIT",
    limitPrice,
    shares,
  });

before(async () => {
  platform = await startTradingPlatform();
  clob = new ClobClient(platform.addresses.public, 137);
  book = await platform.openMarket({ title: "Will the ferry run on Sunday?", takerFee: 20 });
  pool = await platform.openMarket({
    title: "Will the pool hold?",
    modelType: "AMM",
    liquidity: 1000,
    weights: [0.6, 0.4],
    buyFee: 100,
  });
  const draft = await platform.createMarket({ title: "Still a draft" });
  draftCondition = conditionIdOf(Number(draft.marketId), Number(draft.outcomes[0]!.outcomeId));
  closed = await platform.openMarket({ title: "Closed early" });
  await platform.operator.closeMarket(closed.marketId);
  for (const market of [book, pool, closed]) await remember(market);

  const maker = await platform.fundedUser("1000");
  const taker = await platform.fundedUser("1000");
  // Trade 1: the taker buys 3 No at 0.60 against a Yes bid at 0.40 (a mint).
  await limitBuy(maker.client, book, book.yes, 0.4, 10);
  await limitBuy(taker.client, book, book.no, 0.6, 3);
  // Trade 2: the taker buys 2 Yes at 0.55 against a No bid at 0.45 (a mint too).
  await limitBuy(maker.client, book, book.no, 0.45, 5);
  await limitBuy(taker.client, book, book.yes, 0.55, 2);
});
after(() => platform.close());

describe("the rest of Polymarket's public reads through @polymarket/clob-client", () => {
  it("getOk answers Polymarket's health check", async () => {
    assert.equal(await clob.getOk(), "OK");
  });

  it("getSimplifiedMarkets lists every published market, /markets' live fields only", async () => {
    const full = await walk((cursor) => clob.getMarkets(cursor));
    const listed = await walk((cursor) => clob.getSimplifiedMarkets(cursor));
    assert.deepEqual(listed, full.map(simplified));
    const ids = listed.map((market) => market.condition_id);
    for (const market of [book, pool, closed]) assert.ok(ids.includes(conditionOf(market)));
    assert.ok(!ids.includes(draftCondition), "a draft is not published");
    const ferry = listed.find((market) => market.condition_id === conditionOf(book))!;
    assert.deepEqual(ferry, {
      condition_id: conditionOf(book),
      rewards: { rates: null, min_size: 0, max_spread: 0 },
      tokens: [
        // The book's midpoint: a Yes bid at 0.40 and a Yes ask at 0.55 are left.
        { token_id: yesOf(book), outcome: "Yes", price: 0.475, winner: false },
        { token_id: noOf(book), outcome: "No", price: 0.525, winner: false },
      ],
      active: true,
      closed: false,
      archived: false,
      accepting_orders: true,
    });
    const shut = listed.find((market) => market.condition_id === conditionOf(closed))!;
    assert.deepEqual([shut.closed, shut.accepting_orders], [true, false]);
  });

  it("getSamplingMarkets and getSamplingSimplifiedMarkets list the books that accept orders now", async () => {
    const sampling = await walk((cursor) => clob.getSamplingMarkets(cursor));
    assert.deepEqual(
      sampling.map((market) => market.condition_id),
      [conditionOf(book)],
      "not the AMM pool, the draft or the closed book",
    );
    assert.deepEqual(sampling[0], await clob.getMarket(conditionOf(book)));
    const simple = await walk((cursor) => clob.getSamplingSimplifiedMarkets(cursor));
    assert.deepEqual(simple, sampling.map(simplified));
  });

  it("getMarketTradesEvents tells each trade once, newest first, as its taker made it", async () => {
    const events: MarketTradeEvent[] = await clob.getMarketTradesEvents(conditionOf(book));
    const market = await clob.getMarket(conditionOf(book));
    const common = {
      event_type: "trade",
      user: { address: "", username: "", profile_picture: "", optimized_profile_picture: "", pseudonym: "" },
      fee_rate_bps: "20",
    };
    const about = (assetId: string) => ({
      condition_id: conditionOf(book),
      asset_id: assetId,
      question: "Will the ferry run on Sunday?",
      icon: market.icon,
      slug: market.market_slug,
    });
    assert.equal(events.length, 2);
    const [newest, oldest] = events;
    assert.deepEqual(
      { ...newest, transaction_hash: undefined, timestamp: undefined },
      {
        ...common,
        market: about(yesOf(book)),
        side: "BUY",
        size: "2",
        price: "0.55",
        outcome: "Yes",
        outcome_index: 0,
        transaction_hash: undefined,
        timestamp: undefined,
      },
    );
    assert.deepEqual(
      { ...oldest, transaction_hash: undefined, timestamp: undefined },
      {
        ...common,
        market: about(noOf(book)),
        side: "BUY",
        size: "3",
        price: "0.6",
        outcome: "No",
        outcome_index: 1,
        transaction_hash: undefined,
        timestamp: undefined,
      },
    );
    assert.ok(Number(newest!.transaction_hash) > Number(oldest!.transaction_hash), "trade ids, newest first");
    for (const event of events) {
      assert.match(event.timestamp, /^\d{10}$/);
      assert.ok(Math.abs(Number(event.timestamp) - Date.now() / 1000) < 60, event.timestamp);
    }
    // The last trade the book reports is the newest event's.
    assert.deepEqual(await clob.getLastTradePrice(yesOf(book)), { price: "0.55", side: "BUY" });
  });

  it("a pool's trade events carry the average price the taker paid", async () => {
    assert.deepEqual(await clob.getMarketTradesEvents(conditionOf(pool)), []);
    const buyer = await platform.fundedUser("100");
    await buyer.client.createOrder({
      marketId: pool.marketId,
      outcomeId: pool.outcomeId,
      optionId: pool.no,
      side: "BUY",
      orderType: "MARKET",
      amount: 10,
    });
    const [event] = await clob.getMarketTradesEvents(conditionOf(pool));
    assert.deepEqual(
      [event!.market.asset_id, event!.side, event!.outcome, event!.outcome_index, event!.fee_rate_bps],
      [noOf(pool), "BUY", "No", 1, "100"],
    );
    // 10 USDT less the 1% fee bought `size` shares: the price is what one share cost.
    const spent = 10 - 10 * 0.01;
    assert.ok(Math.abs(Number(event!.price) * Number(event!.size) - spent) < 1e-6, JSON.stringify(event));
  });

  it("a condition that names no published market has no trade events and no rewards (404)", async () => {
    for (const condition of [draftCondition, `0x${"0".repeat(64)}`, "not-a-condition"]) {
      assert.deepEqual(await clob.getMarketTradesEvents(condition), {
        error: "market not found",
        status: 404,
      });
      const raw = await platform.raw("public", { path: `/rewards/markets/${condition}` });
      assert.deepEqual([raw.status, raw.json], [404, { error: "market not found" }]);
    }
  });

  it("getCurrentRewards and getRawRewardsForMarket: predex pays no liquidity rewards", async () => {
    assert.deepEqual(await clob.getCurrentRewards(), []);
    assert.deepEqual(await clob.getRawRewardsForMarket(conditionOf(book)), []);
    const page = await platform.raw("public", { path: "/rewards/markets/current?next_cursor=MA==" });
    assert.deepEqual(page.json, { limit: 100, count: 0, next_cursor: "LTE=", data: [] });
    const bad = await platform.raw("public", { path: "/rewards/markets/current?next_cursor=%25%25" });
    assert.deepEqual([bad.status, bad.json], [400, { error: "invalid next_cursor" }]);
  });

  it("validateReadonlyApiKey: predex issues no read-only keys, so none is valid", async () => {
    assert.deepEqual(await clob.validateReadonlyApiKey("0x0000000000000000000000000000000000000001", "key"), {
      error: "Unauthorized/Invalid api key",
      status: 401,
    });
  });

  it("getPricesHistory reads the token's trade prices", async () => {
    // clob-client types the answer as MarketPrice[]; Polymarket (and predex) send {history: [...]}.
    const answer = (await clob.getPricesHistory({
      market: yesOf(book),
      interval: PriceHistoryInterval.MAX,
    })) as unknown as { history: { t: number; p: number }[] };
    assert.ok(answer.history.length > 0);
    assert.equal(answer.history[answer.history.length - 1]!.p, 0.55);
  });

  it("the listings take py-clob-client's cursors as it sends them, unencoded", async () => {
    for (const path of [
      "/simplified-markets",
      "/sampling-markets",
      "/sampling-simplified-markets",
      "/markets",
    ]) {
      const first = await platform.raw("public", { path: `${path}?next_cursor=MA==` });
      assert.equal(first.status, 200, `${path}: ${first.text}`);
      const bad = await platform.raw("public", { path: `${path}?next_cursor=nope!` });
      assert.deepEqual([bad.status, bad.json], [400, { error: "invalid next_cursor" }], path);
    }
  });

  it("every L0 read of clob-client 5.8 and py-clob-client is served, none falls through to predex's 404", async () => {
    const token = yesOf(book);
    const condition = conditionOf(book);
    const params = [{ token_id: token, side: Side.BUY }];
    // clob-client returns a refusal as {error, status}; predex's own 404 envelope would come back
    // as {error: {code: 1404, …}, status: 404}.
    const reads: [string, () => Promise<unknown>][] = [
      ["getOk", () => clob.getOk()],
      ["getServerTime", () => clob.getServerTime()],
      ["getSamplingSimplifiedMarkets", () => clob.getSamplingSimplifiedMarkets()],
      ["getSamplingMarkets", () => clob.getSamplingMarkets()],
      ["getSimplifiedMarkets", () => clob.getSimplifiedMarkets()],
      ["getMarkets", () => clob.getMarkets()],
      ["getMarket", () => clob.getMarket(condition)],
      ["getOrderBook", () => clob.getOrderBook(token)],
      ["getOrderBooks", () => clob.getOrderBooks(params)],
      ["getTickSize", () => clob.getTickSize(token)],
      ["getNegRisk", () => clob.getNegRisk(token)],
      ["getFeeRateBps", () => clob.getFeeRateBps(token)],
      ["getMidpoint", () => clob.getMidpoint(token)],
      ["getMidpoints", () => clob.getMidpoints(params)],
      ["getPrice", () => clob.getPrice(token, Side.BUY)],
      ["getPrices", () => clob.getPrices(params)],
      ["getSpread", () => clob.getSpread(token)],
      ["getSpreads", () => clob.getSpreads(params)],
      ["getLastTradePrice", () => clob.getLastTradePrice(token)],
      ["getLastTradesPrices", () => clob.getLastTradesPrices(params)],
      [
        "getPricesHistory",
        () => clob.getPricesHistory({ market: token, interval: PriceHistoryInterval.MAX }),
      ],
      ["getMarketTradesEvents", () => clob.getMarketTradesEvents(condition)],
      ["getCurrentRewards", () => clob.getCurrentRewards()],
      ["getRawRewardsForMarket", () => clob.getRawRewardsForMarket(condition)],
      ["validateReadonlyApiKey", () => clob.validateReadonlyApiKey("0x01", "key")],
      ["calculateMarketPrice", () => clob.calculateMarketPrice(token, Side.SELL, 1)],
    ];
    for (const [name, read] of reads) {
      const answer = (await read()) as { error?: unknown } | undefined;
      const refusal = answer !== null && typeof answer === "object" ? answer.error : undefined;
      assert.ok(refusal === undefined || typeof refusal === "string", `${name}: ${JSON.stringify(answer)}`);
    }
    // py-clob-client's L0 reads are the same paths; the ones it sends differently: GET /price with a
    // lower-case side, POST bodies without a side, and cursors unencoded (tested above).
    const price = await platform.raw("public", { path: `/price?token_id=${token}&side=buy` });
    assert.deepEqual(price.json, { price: "0.4" });
    const midpoints = await platform.raw("public", {
      method: "POST",
      path: "/midpoints",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([{ token_id: token }]),
    });
    assert.equal(midpoints.status, 200, midpoints.text);
  });
});
