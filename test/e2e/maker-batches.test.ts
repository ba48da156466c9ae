// POST /ordering/create-orders over the real protocol (DESIGN §9), through the SDK against a real
// server: items answered in order, each as create-order would answer it, placed back to back in one
// engine batch; a refused item changes nothing and stops nothing; a malformed body, an empty list or
// too many items place nothing; overload refuses the whole call; a batch is one request for the
// partner's rate limit while its orders count toward the open-order limit.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createOrdersItemsMax } from "../../src/contract/partner/market-making.js";
import type { ExchangeCommand, ExchangeEvent } from "../../src/core/exchange.js";
import type { JournalEntry } from "../../src/engine/store.js";
import { apiError } from "./harness.js";
import {
  type BinaryMarket,
  limitBid,
  startTradingPlatform,
  type TradingPlatform,
  usdtOf,
} from "./trading-fixtures.js";

describe("create-orders", () => {
  let platform: TradingPlatform;
  let market: BinaryMarket;
  let other: BinaryMarket;
  const committed: JournalEntry<ExchangeCommand, ExchangeEvent>[] = [];
  before(async () => {
    platform = await startTradingPlatform();
    market = await platform.openMarket();
    other = await platform.openMarket({ title: "Will it snow in Oslo tomorrow?" });
    platform.platform.deps.engine.onCommitted((entries) => committed.push(...entries));
  });
  after(() => platform.close());

  it("answers every item in order, as create-order would, placing the good ones back to back in one batch", async () => {
    const maker = await platform.fundedUser("20");
    const seller = await platform.fundedUser("100");
    // A Yes ask at 0.6 for a post-only item to meet.
    await seller.client.createOrder(limitBid(market, { optionId: market.no, limitPrice: 0.4, shares: 5 }));
    const { results } = await maker.client.createOrders([
      limitBid(market, { limitPrice: 0.4, shares: 10, clientOrderId: "bid-1" }), // 4 USDT
      limitBid(market, { limitPrice: 0.6, shares: 5, postOnly: true }), // would trade: refused
      limitBid(market, { limitPrice: 0.3, shares: 100 }), // 30 USDT: more than is left
      limitBid(market, { marketId: "999999" }), // unknown market
      limitBid(market, { limitPrice: 0.123456789 }), // too many decimals: refused at the edge
      limitBid(other, { side: "BUY", optionId: other.no, limitPrice: 0.45, shares: 20 }), // 9 USDT
      limitBid(market, { limitPrice: 0.6, shares: 2 }), // takes 2 of the ask: 1.2 USDT
      limitBid(market, { limitPrice: 0.4, shares: 10, clientOrderId: "bid-1" }), // the first order again
    ]);
    assert.deepEqual(
      results.map((result) => (result.ok ? result.order.status : [result.code, result.message])),
      [
        "OPEN",
        [1001, "bad request: Post-only order would trade at once"],
        [1001, "bad request: Insufficient balance"],
        [1404, "resource not found: Market not found"],
        [1001, "bad request: limitPrice has more than 8 decimal places"],
        "OPEN",
        "FILLED",
        "OPEN",
      ],
    );
    const placed = results.flatMap((result) => (result.ok ? [result.order] : []));
    assert.equal(placed[3]!.orderId, placed[0]!.orderId, "the repeated clientOrderId names the first order");
    assert.deepEqual(
      [placed[2]!.trades.length, placed[2]!.trades[0]?.role, placed[2]!.avgPrice],
      [1, "TAKER", "0.6"],
    );
    // Exactly what the accepted items froze and spent, nothing for the refused ones.
    assert.deepEqual(await usdtOf(maker.client), { available: "5.8", frozen: "13", total: "18.8" });
    const open = await maker.client.getOpenOrders();
    assert.deepEqual(
      open.records.map((order) => order.orderId).sort(),
      [placed[0]!.orderId, placed[1]!.orderId].sort(),
    );

    // The accepted items are journal entries of their own, decided back to back at one commit time.
    const makerUserId = Number(maker.userId);
    const entries = committed.filter(
      (entry) => entry.command.type === "PlaceOrder" && entry.command.userId === makerUserId,
    );
    assert.equal(
      entries.length,
      4,
      "the post-only, the unaffordable and the unknown market are not journaled",
    );
    assert.deepEqual(
      entries.map((entry) => entry.sequence - entries[0]!.sequence),
      [0n, 1n, 2n, 3n],
    );
    assert.equal(new Set(entries.map((entry) => entry.nowMs)).size, 1);
  });

  it("places nothing for a body that is not the shape, an empty list or more than 20 items", async () => {
    const maker = await platform.fundedUser("100");
    const send = (body: unknown) =>
      platform.signed(platform.partner, {
        method: "POST",
        path: "/ordering/create-orders",
        body: JSON.stringify(body),
        cookie: maker.client.sessionCookie!,
      });
    const tooMany = Array.from({ length: createOrdersItemsMax + 1 }, () => limitBid(market));
    const tooManyAnswer = await send({ orders: tooMany });
    assert.deepEqual(tooManyAnswer.json, {
      code: 1001,
      message: `bad request: orders must have at most ${createOrdersItemsMax} items`,
      data: null,
    });
    for (const body of [
      {},
      { orders: [] },
      { orders: tooMany },
      { orders: limitBid(market) },
      { orders: [limitBid(market), { ...limitBid(market), side: "HOLD" }] },
      { orders: [limitBid(market), { ...limitBid(market), shares: "10" }] },
    ]) {
      const response = await send(body);
      assert.equal(response.status, 400, JSON.stringify(body).slice(0, 80));
      assert.equal((response.json as { code: number }).code, 1001);
    }
    await assert.rejects(
      maker.client.createOrders([]),
      apiError(400, 1001, "bad request: orders must have at least 1 item"),
    );
    assert.deepEqual(await usdtOf(maker.client), { available: "100", frozen: "0", total: "100" });
    assert.equal((await maker.client.getOpenOrders()).total, 0);
    // Twenty is allowed.
    const { results } = await maker.client.createOrders(
      Array.from({ length: createOrdersItemsMax }, (_, index) =>
        limitBid(market, { limitPrice: (index + 1) / 100 }),
      ),
    );
    assert.equal(results.filter((result) => result.ok).length, createOrdersItemsMax);
  });

  it("counts every order of a batch toward the 1,000 open orders per user", async () => {
    const maker = await platform.fundedUser("1000");
    for (let call = 0; call < 1_000 / createOrdersItemsMax; call += 1) {
      const { results } = await maker.client.createOrders(
        Array.from({ length: createOrdersItemsMax }, () => limitBid(market, { limitPrice: 0.01, shares: 1 })),
      );
      assert.ok(results.every((result) => result.ok));
    }
    const { results } = await maker.client.createOrders([
      limitBid(market, { limitPrice: 0.01, shares: 1 }),
      limitBid(market, { limitPrice: 0.02, shares: 1 }),
    ]);
    assert.deepEqual(results, [
      { ok: false, code: 1001, message: "bad request: Too many open orders" },
      { ok: false, code: 1001, message: "bad request: Too many open orders" },
    ]);
    assert.equal((await maker.client.getOpenOrders()).total, 1_000);
  });
});

describe("create-orders when the engine cannot take them all", () => {
  let platform: TradingPlatform;
  let market: BinaryMarket;
  before(async () => {
    platform = await startTradingPlatform({ platform: { engineLimits: { queueCommandsMax: 3 } } });
    market = await platform.openMarket();
  });
  after(() => platform.close());

  it("refuses the whole call with 502/2002 and Retry-After and places nothing", async () => {
    const maker = await platform.fundedUser("100");
    const response = await platform.signed(platform.partner, {
      method: "POST",
      path: "/ordering/create-orders",
      body: JSON.stringify({ orders: Array.from({ length: 4 }, () => limitBid(market)) }),
      cookie: maker.client.sessionCookie!,
    });
    assert.equal(response.status, 502);
    assert.equal((response.json as { code: number }).code, 2002);
    assert.equal(response.headers.get("retry-after"), "1");
    assert.deepEqual(await usdtOf(maker.client), { available: "100", frozen: "0", total: "100" });
    assert.equal((await maker.client.getOpenOrders()).total, 0);
    // What fits is taken.
    const { results } = await maker.client.createOrders([limitBid(market), limitBid(market)]);
    assert.ok(results.every((result) => result.ok));
  });
});

describe("create-orders and the partner's rate limit", () => {
  let nowMs = Date.now();
  let platform: TradingPlatform;
  let market: BinaryMarket;
  before(async () => {
    platform = await startTradingPlatform({ platform: { nowMs: () => nowMs } });
    market = await platform.openMarket();
  });
  after(() => platform.close());

  it("counts a batch of 20 orders as one request", async () => {
    const maker = await platform.fundedUser("100");
    const set = await platform.admin("POST", `/admin/partners/${platform.partner.merchantId}/rate-limit`, {
      rateLimitPerSecond: 2,
    });
    assert.equal(set.status, 200, set.text);
    nowMs += 1_000;
    for (let call = 0; call < 2; call += 1) {
      const { results } = await maker.client.createOrders(
        Array.from({ length: createOrdersItemsMax }, () => limitBid(market, { limitPrice: 0.05, shares: 1 })),
      );
      assert.equal(results.length, createOrdersItemsMax);
    }
    await assert.rejects(
      maker.client.createOrders([limitBid(market)]),
      apiError(
        502,
        2002,
        "upstream unavailable: rate limit of 2 requests per second exceeded, retry after 1s",
      ),
    );
    nowMs += 1_000;
    assert.equal((await maker.client.getOpenOrders({ pageSize: 100 })).total, 2 * createOrdersItemsMax);
  });
});
