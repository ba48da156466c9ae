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
