// The Polymarket-compatible reads of the public listener, driven by Polymarket's own
// @polymarket/clob-client against a live book built through the predex SDK, and compared with
// the signed host's answers (GET /orderbook/book, /orderbook/price) at the same moment, and with
// the book event of /ws/market. AMM and parimutuel tokens answer prices but no book.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type BookParams, ClobClient, type OrderBookSummary, Side } from "@polymarket/clob-client";
import type { PredexClient } from "../../src/sdk/client.js";
import { collect, openSocket } from "../realtime/fixtures.js";
import { type BinaryMarket, startTradingPlatform, type TradingPlatform } from "./trading-fixtures.js";

let platform: TradingPlatform;
let clob: ClobClient;
let market: BinaryMarket;
let yesAsset: string;
let noAsset: string;
let reader: PredexClient;

async function assetIdsOf(binary: BinaryMarket): Promise<[string, string]> {
  return platform.platform.deps.engine.read((state) => [
    state.options.get(Number(binary.yes))!.assetId,
    state.options.get(Number(binary.no))!.assetId,
  ]);
}

const address = () => ({ marketId: market.marketId, outcomeId: market.outcomeId });
const levels = (entries: readonly { price: string; size: string }[]) =>
  entries.map((level) => ({ price: level.price, size: level.size }));

before(async () => {
  platform = await startTradingPlatform();
  clob = new ClobClient(platform.addresses.public, 137);
  market = await platform.openMarket({ title: "Will the bridge open in May?", takerFee: 20, makerFee: 5 });
  [yesAsset, noAsset] = await assetIdsOf(market);
  const maker = await platform.fundedUser("1000");
  const taker = await platform.fundedUser("1000");
  reader = maker.client;
  const limit = (client: PredexClient, optionId: string, limitPrice: number, shares: number) =>
    client.createOrder({ ...address(), optionId, side: "BUY", orderType: "LIMIT", limitPrice, shares });
  // Yes bids at 0.40 and 0.42; Yes asks at 0.55 and 0.57 (BUY No at 0.45 and 0.43).
  await limit(maker.client, market.yes, 0.4, 10);
  await limit(maker.client, market.yes, 0.42, 7);
  await limit(maker.client, market.no, 0.45, 12);
  await limit(maker.client, market.no, 0.43, 9);
  // The taker buys 2 Yes at the best ask: a trade at 0.55 that the taker bought.
  await limit(taker.client, market.yes, 0.55, 2);
});
after(() => platform.close());

describe("Polymarket-compatible reads through @polymarket/clob-client", () => {
  it("getServerTime is the server's clock in unix seconds", async () => {
    const time = await clob.getServerTime();
    assert.equal(typeof time, "number");
    assert.ok(Math.abs(time - Date.now() / 1000) < 5, String(time));
  });

  it("getOrderBook equals GET /orderbook/book for Yes and No, best last, with the same hash", async () => {
    for (const [assetId, optionId] of [
      [yesAsset, market.yes],
      [noAsset, market.no],
    ] as const) {
      const signed = await reader.getBook({ ...address(), optionId });
      const book: OrderBookSummary = await clob.getOrderBook(assetId);
      assert.equal(book.asset_id, assetId);
      assert.match(book.market, /^0x[0-9a-f]{64}$/);
      assert.deepEqual(levels(book.bids), levels(signed.bids).reverse());
      assert.deepEqual(levels(book.asks), levels(signed.asks).reverse());
      assert.equal(book.hash, signed.hash);
      assert.equal(book.tick_size, signed.tickSize);
      assert.equal(book.min_order_size, signed.minOrderSize);
      assert.equal(book.neg_risk, false);
      assert.ok(Math.abs(Number(book.timestamp) - Date.now()) < 5_000, book.timestamp);
    }
    const yes = await clob.getOrderBook(yesAsset);
    assert.deepEqual(levels(yes.bids), [
      { price: "0.4", size: "10" },
      { price: "0.42", size: "7" },
    ]);
    assert.deepEqual(levels(yes.asks), [
      { price: "0.57", size: "9" },
      { price: "0.55", size: "10" },
    ]);
    assert.equal(yes.last_trade_price, "0.55");
    const no = await clob.getOrderBook(noAsset);
    assert.equal(no.last_trade_price, "0.45");
  });

  it("the book's hash and market are the ones /ws/market's book event carries for the same book", async () => {
    const url = `${platform.addresses.public.replace(/^http/, "ws")}/ws/market`;
    const opened = await openSocket(url);
    assert.ok(opened.socket !== undefined);
    const inbox = opened.inbox ?? collect(opened.socket);
    opened.socket.send(JSON.stringify({ type: "market", assets_ids: [yesAsset, noAsset] }));
    for (const assetId of [yesAsset, noAsset]) {
      const event = await inbox.next<{ event_type: string; asset_id: string; hash: string; market: string }>(
        (message) => message.event_type === "book" && message.asset_id === assetId,
      );
      const book = await clob.getOrderBook(assetId);
      assert.equal(book.hash, event.hash);
      assert.equal(event.market, book.market, "both name the market by its condition id");
    }
    opened.socket.close();
  });

  it("getOrderBooks answers the books asked for", async () => {
    const params: BookParams[] = [
      { token_id: yesAsset, side: Side.BUY },
      { token_id: noAsset, side: Side.BUY },
    ];
    const books = await clob.getOrderBooks(params);
    assert.deepEqual(
      books.map((book) => book.asset_id),
      [yesAsset, noAsset],
    );
    assert.deepEqual(books[0]!.bids, (await clob.getOrderBook(yesAsset)).bids);
  });

  it("getMidpoint, getPrice and getSpread are GET /orderbook/price's numbers (BUY = best bid, SELL = best ask)", async () => {
    for (const [assetId, optionId] of [
      [yesAsset, market.yes],
      [noAsset, market.no],
    ] as const) {
      const signed = await reader.getPrice({ ...address(), optionId });
      assert.deepEqual(await clob.getMidpoint(assetId), { mid: signed.midPrice });
      assert.deepEqual(await clob.getPrice(assetId, Side.BUY), { price: signed.bestBid });
      assert.deepEqual(await clob.getPrice(assetId, Side.SELL), { price: signed.bestAsk });
      assert.deepEqual(await clob.getSpread(assetId), { spread: signed.spread });
    }
    assert.deepEqual(await clob.getPrice(yesAsset, Side.BUY), { price: "0.42" });
    assert.deepEqual(await clob.getPrice(yesAsset, Side.SELL), { price: "0.55" });
    assert.deepEqual(await clob.getMidpoint(yesAsset), { mid: "0.485" });
    assert.deepEqual(await clob.getSpread(noAsset), { spread: "0.13" });
  });

  it("getMidpoints, getPrices and getSpreads answer by token id", async () => {
    const both: BookParams[] = [
      { token_id: yesAsset, side: Side.BUY },
      { token_id: noAsset, side: Side.SELL },
    ];
    assert.deepEqual(await clob.getMidpoints(both), { [yesAsset]: "0.485", [noAsset]: "0.515" });
    assert.deepEqual(await clob.getSpreads(both), { [yesAsset]: "0.13", [noAsset]: "0.13" });
    assert.deepEqual(await clob.getPrices([...both, { token_id: yesAsset, side: Side.SELL }]), {
      [yesAsset]: { BUY: "0.42", SELL: "0.55" },
      [noAsset]: { SELL: "0.58" },
    });
  });

  it("getLastTradePrice and getLastTradesPrices give the price and the taker's side per token", async () => {
    const signed = await reader.getPrice(address());
    assert.deepEqual(await clob.getLastTradePrice(yesAsset), { price: signed.lastTradePrice, side: "BUY" });
    assert.deepEqual(await clob.getLastTradePrice(noAsset), { price: "0.45", side: "SELL" });
    assert.deepEqual(
      await clob.getLastTradesPrices([
        { token_id: yesAsset, side: Side.BUY },
        { token_id: noAsset, side: Side.BUY },
      ]),
      [
        { token_id: yesAsset, price: "0.55", side: "BUY" },
        { token_id: noAsset, price: "0.45", side: "SELL" },
      ],
    );
  });

  it("getTickSize, getNegRisk and getFeeRateBps read the market's parameters", async () => {
    assert.equal(await clob.getTickSize(yesAsset), "0.01");
    assert.equal(await clob.getNegRisk(yesAsset), false);
    assert.equal(await clob.getFeeRateBps(noAsset), 20);
  });

  it("getMarkets walks every page to the end cursor and getMarket finds a book's condition", async () => {
    const second = await platform.openMarket({ title: "A second market" });
    const seen = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10 && cursor !== "LTE="; page++) {
      const payload = await clob.getMarkets(cursor);
      assert.equal(payload.count, payload.data.length);
      seen.push(...payload.data);
      cursor = payload.next_cursor;
    }
    assert.equal(cursor, "LTE=");
    const book = await clob.getOrderBook(yesAsset);
    const listed = seen.find((entry) => entry.condition_id === book.market);
    assert.ok(listed !== undefined, "the book's market is listed");
    assert.deepEqual(
      listed.tokens.map((token: { token_id: string; outcome: string }) => [token.token_id, token.outcome]),
      [
        [yesAsset, "Yes"],
        [noAsset, "No"],
      ],
    );
    assert.equal(listed.question, "Will the bridge open in May?");
    assert.deepEqual(
      [listed.enable_order_book, listed.accepting_orders, listed.closed, listed.minimum_tick_size],
      [true, true, false, 0.01],
    );
    assert.deepEqual([listed.maker_base_fee, listed.taker_base_fee], [5, 20]);
    assert.equal(listed.tokens[0].price, 0.485);
    const [secondYes] = await assetIdsOf(second);
    assert.ok(seen.some((entry) => entry.tokens[0].token_id === secondYes));
    assert.deepEqual(await clob.getMarket(book.market), listed);
  });

  it("a book read after a new order shows it (the served book follows every commit)", async () => {
    const before = await clob.getOrderBook(yesAsset);
    await reader.createOrder({
      ...address(),
      optionId: market.yes,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.41,
      shares: 3,
    });
    const after = await clob.getOrderBook(yesAsset);
    assert.notEqual(after.hash, before.hash);
    assert.deepEqual(levels(after.bids), [
      { price: "0.4", size: "10" },
      { price: "0.41", size: "3" },
      { price: "0.42", size: "7" },
    ]);
    const signed = await reader.getBook(address());
    assert.equal(after.hash, signed.hash);
  });

  it("answers a token it does not know the way Polymarket does, as a value clob-client returns", async () => {
    assert.deepEqual(await clob.getOrderBook("12345"), {
      error: "No orderbook exists for the requested token id",
      status: 404,
    });
  });
});

describe("AMM and parimutuel tokens through @polymarket/clob-client", () => {
  it("an AMM token has prices from its pool and a last trade, and plainly no book", async () => {
    const amm = await platform.openMarket({
      title: "Will the pool hold?",
      modelType: "AMM",
      liquidity: 1000,
      weights: [0.6, 0.4],
      buyFee: 100,
      sellFee: 100,
    });
    const [ammYes] = await assetIdsOf(amm);
    assert.deepEqual(await clob.getOrderBook(ammYes), {
      error: "No orderbook exists for the requested token id: the market trades against an AMM pool",
      status: 404,
    });
    assert.deepEqual(await clob.getLastTradePrice(ammYes), { price: "0.5", side: "" });
    const detail = await reader.getMarketDetail(amm.marketId);
    const option = detail.outcomes[0]!.options[0]!;
    assert.deepEqual(await clob.getMidpoint(ammYes), { mid: option.price });
    assert.deepEqual(await clob.getPrice(ammYes, Side.BUY), { price: String(option.priceSell) });
    assert.deepEqual(await clob.getPrice(ammYes, Side.SELL), { price: String(option.priceBuy) });
    const buyer = await platform.fundedUser("100");
    await buyer.client.createOrder({
      marketId: amm.marketId,
      outcomeId: amm.outcomeId,
      optionId: amm.yes,
      side: "BUY",
      orderType: "MARKET",
      amount: 10,
    });
    const signed = await reader.getPrice({ marketId: amm.marketId, outcomeId: amm.outcomeId });
    assert.deepEqual(await clob.getLastTradePrice(ammYes), { price: signed.lastTradePrice, side: "BUY" });
    assert.equal(await clob.getFeeRateBps(ammYes), 100);
  });

  it("a parimutuel token answers its chance as price and midpoint, and no book", async () => {
    const pool = await platform.openMarket({ title: "Who wins the pool?", modelType: "parimutuel" });
    const [poolYes] = await assetIdsOf(pool);
    assert.deepEqual(await clob.getOrderBook(poolYes), {
      error: "No orderbook exists for the requested token id: the market trades against a parimutuel pool",
      status: 404,
    });
    assert.deepEqual(await clob.getMidpoint(poolYes), { mid: "0.5" });
    assert.deepEqual(await clob.getPrice(poolYes, Side.BUY), { price: "0.5" });
    assert.deepEqual(await clob.getSpread(poolYes), { spread: "0" });
  });
});
