// The market makers' kit over the real protocol (DESIGN §9), through the SDK against a real server:
// post-only orders.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { apiError } from "./harness.js";
import { type BinaryMarket, startTradingPlatform, type TradingPlatform, usdtOf } from "./trading-fixtures.js";

describe("market makers: post-only orders", () => {
  let platform: TradingPlatform;
  let market: BinaryMarket;
  before(async () => {
    platform = await startTradingPlatform();
    market = await platform.openMarket();
  });
  after(() => platform.close());

  const limit = (fields: {
    optionId?: string;
    side?: "BUY" | "SELL";
    limitPrice: number;
    shares: number;
    postOnly?: boolean;
    timeInForce?: "GTC" | "GTD" | "FOK" | "FAK";
  }) => ({
    marketId: market.marketId,
    outcomeId: market.outcomeId,
    optionId: fields.optionId ?? market.yes,
    side: fields.side ?? ("BUY" as const),
    orderType: "LIMIT" as const,
    limitPrice: fields.limitPrice,
    shares: fields.shares,
    ...(fields.postOnly === undefined ? {} : { postOnly: fields.postOnly }),
    ...(fields.timeInForce === undefined ? {} : { timeInForce: fields.timeInForce }),
  });

  it("rests when it does not cross, and is refused with nothing placed when it would trade at once", async () => {
    const maker = await platform.fundedUser("100");
    const other = await platform.fundedUser("100");
    // A Yes ask at 0.6 (BUY No at 0.4).
    await other.client.createOrder(limit({ optionId: market.no, limitPrice: 0.4, shares: 10 }));

    const resting = await maker.client.createOrder(limit({ limitPrice: 0.59, shares: 10, postOnly: true }));
    assert.equal(resting.status, "OPEN");
    assert.deepEqual(await usdtOf(maker.client), { available: "94.1", frozen: "5.9", total: "100" });

    await assert.rejects(
      maker.client.createOrder(limit({ limitPrice: 0.6, shares: 10, postOnly: true })),
      apiError(400, 1001, "bad request: Post-only order would trade at once"),
    );
    // Nothing was placed or traded: the same balances, one open order, the ask untouched.
    assert.deepEqual(await usdtOf(maker.client), { available: "94.1", frozen: "5.9", total: "100" });
    const open = await maker.client.getOpenOrders({ marketId: market.marketId });
    assert.deepEqual(
      open.records.map((order) => order.orderId),
      [resting.orderId],
    );
    const book = await maker.client.getBook({ marketId: market.marketId, outcomeId: market.outcomeId });
    assert.deepEqual(book.asks, [{ price: "0.6", size: "10" }]);
    assert.deepEqual(book.bids, [{ price: "0.59", size: "10" }]);

    // Without the flag the same order trades.
    const taken = await maker.client.createOrder(limit({ limitPrice: 0.6, shares: 10 }));
    assert.equal(taken.status, "FILLED");
  });

  it("is only for LIMIT GTC or GTD orders; anything else is 400/1001 and places nothing", async () => {
    const maker = await platform.fundedUser("10");
    for (const timeInForce of ["FOK", "FAK"] as const) {
      await assert.rejects(
        maker.client.createOrder(limit({ limitPrice: 0.2, shares: 1, postOnly: true, timeInForce })),
        apiError(400, 1001, "bad request: postOnly is only for LIMIT orders with timeInForce GTC or GTD"),
      );
    }
    await assert.rejects(
      maker.client.createOrder({
        marketId: market.marketId,
        outcomeId: market.outcomeId,
        optionId: market.yes,
        side: "BUY",
        orderType: "MARKET",
        amount: 1,
        postOnly: true,
      }),
      apiError(400, 1001, "bad request: postOnly is only for LIMIT orders with timeInForce GTC or GTD"),
    );
    // A string where a boolean is required names the field, as any wrong type does.
    const response = await platform.signed(platform.partner, {
      method: "POST",
      path: "/ordering/create-order",
      body: JSON.stringify({ ...limit({ limitPrice: 0.2, shares: 1 }), postOnly: "true" }),
      cookie: maker.client.sessionCookie!,
    });
    assert.equal(response.status, 400);
    assert.equal((response.json as { code: number }).code, 1001);
    assert.match((response.json as { message: string }).message, /postOnly/);
    assert.deepEqual(await usdtOf(maker.client), { available: "10", frozen: "0", total: "10" });
  });
});
