// Validation comes before idempotency (DESIGN §6): a create-order that reuses a clientOrderId is
// checked like any other, and only a valid one is answered with the first order.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type LegacyPlatform, refusal, startLegacyPlatform } from "../legacy/fixtures.js";
import type { BinaryMarket } from "./trading-fixtures.js";

let platform: LegacyPlatform;
let market: BinaryMarket;
before(async () => {
  platform = await startLegacyPlatform();
  market = await platform.openMarket();
});
after(() => platform.close());

describe("POST /ordering/create-order with a clientOrderId used before", () => {
  it("refuses an invalid request exactly as it refuses it with a fresh clientOrderId", async () => {
    const { client } = await platform.fundedUser("100");
    const order = {
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.yes,
      side: "BUY",
      orderType: "LIMIT",
    } as const;
    const first = await client.createOrder({ ...order, limitPrice: 0.3, shares: 10, clientOrderId: "again" });
    const send = (body: Record<string, unknown>) =>
      platform.signed(platform.partner, {
        method: "POST",
        path: "/ordering/create-order",
        body: JSON.stringify(body),
        cookie: client.sessionCookie!,
      });
    const invalidBodies: Record<string, unknown>[] = [
      { ...order, shares: -5, limitPrice: 7 },
      { ...order, shares: -5, limitPrice: 0.3 },
      { ...order, shares: 0, limitPrice: 0.3 },
      { ...order, shares: 10, limitPrice: 0 },
      { ...order, shares: 10, limitPrice: 1.5 },
      { ...order, shares: 10 },
      { ...order, orderType: "MARKET", shares: 10 },
      { ...order, side: "SELL", orderType: "MARKET", amount: 5 },
      { ...order, shares: 10, limitPrice: 0.3, timeInForce: "GTD" },
    ];
    for (const [index, body] of invalidBodies.entries()) {
      const fresh = await send({ ...body, clientOrderId: `fresh-${index}` });
      assert.equal(fresh.status, 400, JSON.stringify([body, fresh.json]));
      const reused = await send({ ...body, clientOrderId: "again" });
      assert.deepEqual([reused.status, reused.json], [fresh.status, fresh.json], JSON.stringify(body));
    }
    // A valid repeat is still answered with the first order, and nothing new was placed.
    const repeated = await client.createOrder({
      ...order,
      limitPrice: 0.3,
      shares: 10,
      clientOrderId: "again",
    });
    assert.equal(repeated.orderId, first.orderId);
    assert.equal((await client.getOpenOrders()).total, 1);
  });
});

describe("POST /ordering/create-order with a clientOrderId used before, checked against the market", () => {
  it("refuses what the market would refuse: unknown places, a price off the tick, sizes out of bounds, a model that does not take the order", async () => {
    const { client } = await platform.fundedUser("100");
    const other = await platform.openMarket({ title: "Will it snow in Oslo?" });
    const amm = await platform.openMarket({
      title: "Will the AMM hold?",
      modelType: "AMM",
      liquidity: 1000,
      buyMinAmount: 1,
    } as never);
    const pool = await platform.openMarket({ title: "Will the pool hold?", modelType: "parimutuel" });
    const book = {
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.yes,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.3,
      shares: 10,
    } as const;
    const ammBuy = {
      marketId: amm.marketId,
      outcomeId: amm.outcomeId,
      optionId: amm.yes,
      side: "BUY",
      orderType: "MARKET",
      amount: 5,
    } as const;
    const poolBuy = { ...ammBuy, marketId: pool.marketId, outcomeId: pool.outcomeId, optionId: pool.yes };
    const first = {
      book: await client.createOrder({ ...book, clientOrderId: "market-book" }),
      amm: await client.createOrder({ ...ammBuy, clientOrderId: "market-amm" }),
      pool: await client.createOrder({ ...poolBuy, clientOrderId: "market-pool" }),
    };
    const send = (body: Record<string, unknown>) =>
      platform.signed(platform.partner, {
        method: "POST",
        path: "/ordering/create-order",
        body: JSON.stringify(body),
        cookie: client.sessionCookie!,
      });
    const cases: Array<[string, "book" | "amm" | "pool", Record<string, unknown>]> = [
      ["an unknown market", "book", { ...book, marketId: "999999" }],
      ["an outcome of another market", "book", { ...book, outcomeId: other.outcomeId }],
      ["an option of another outcome", "book", { ...book, optionId: other.yes }],
      ["a price off the tick", "book", { ...book, limitPrice: 0.305 }],
      ["shares off the 0.0001 step", "book", { ...book, shares: 10.00005 }],
      ["more shares than any order may have", "book", { ...book, shares: 2_000_000 }],
      [
        "a MARKET BUY below the smallest amount",
        "book",
        {
          ...book,
          orderType: "MARKET",
          timeInForce: "FAK",
          limitPrice: undefined,
          shares: undefined,
          amount: 0.001,
        },
      ],
      [
        "a LIMIT order on an AMM market",
        "amm",
        { ...ammBuy, orderType: "LIMIT", limitPrice: 0.3, shares: 10, amount: undefined },
      ],
      ["an AMM BUY below the market's minimum", "amm", { ...ammBuy, amount: 0.5 }],
      ["a SELL on a parimutuel market", "pool", { ...poolBuy, side: "SELL", amount: undefined, shares: 5 }],
    ];
    for (const [name, kind, body] of cases) {
      const fresh = await send({ ...body, clientOrderId: `fresh-${name}` });
      assert.ok(fresh.status >= 400, `${name}: ${JSON.stringify(fresh.json)}`);
      const reused = await send({ ...body, clientOrderId: `market-${kind}` });
      assert.deepEqual([reused.status, reused.json], [fresh.status, fresh.json], name);
    }
    // Nothing new was placed; the first orders are still the answer to a valid repeat.
    assert.equal(
      (await client.createOrder({ ...book, clientOrderId: "market-book" })).orderId,
      first.book.orderId,
    );
    assert.equal(
      (await client.createOrder({ ...ammBuy, clientOrderId: "market-amm" })).orderId,
      first.amm.orderId,
    );
    assert.equal(
      (await client.createOrder({ ...poolBuy, clientOrderId: "market-pool" })).orderId,
      first.pool.orderId,
    );
  });

  it("still answers a valid repeat with the first order after the market closed: it says what happened", async () => {
    const closing = await platform.openMarket({ title: "Will it close before the retry?" });
    const { client } = await platform.fundedUser("100");
    const order = {
      marketId: closing.marketId,
      outcomeId: closing.outcomeId,
      optionId: closing.yes,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.3,
      shares: 10,
      clientOrderId: "before-close",
    } as const;
    const first = await client.createOrder(order);
    await platform.operator.closeMarket(closing.marketId);
    const repeated = await client.createOrder(order);
    assert.equal(repeated.orderId, first.orderId);
    // A new clientOrderId on the closed market is refused, as any new order is.
    const fresh = await platform.signed(platform.partner, {
      method: "POST",
      path: "/ordering/create-order",
      body: JSON.stringify({ ...order, clientOrderId: "after-close" }),
      cookie: client.sessionCookie!,
    });
    assert.deepEqual(
      [fresh.status, (fresh.json as { message: string }).message],
      [400, "bad request: Market is not open"],
    );
  });
});

describe("POST /api/order/openapi/order/submit with the fgRequestId of an earlier request", () => {
  it("is checked like any submission: an fgRequestId in the body names nothing and skips nothing", async () => {
    const merchant = await platform.createMerchant();
    const client = await platform.fundedLegacyUser(merchant, "100");
    const order = {
      marketId: Number(market.marketId),
      outcomeId: Number(market.outcomeId),
      optionId: Number(market.yes),
      direction: "BUY",
      orderType: "LIMIT",
    } as const;
    const fgRequestId = await client.submitOrder({ ...order, price: 0.3, amount: 3 });
    assert.equal((await client.waitForResult(fgRequestId)).status, "SUCCESS");
    const invalid = { ...order, price: 7, amount: -5, fgRequestId } as unknown as Parameters<
      typeof client.submitOrder
    >[0];
    assert.deepEqual(await refusal(client.submitOrder(invalid)), [422, 5003, "amount not in range"]);
  });
});
