// POST /ordering/amend-order over the real protocol (DESIGN §9), through the SDK against a real
// server: fewer shares at the same price keep the order's place in the queue, anything else sends it
// to the back (and it may trade at once unless it is post-only), frozen funds follow to the atom,
// refusals change nothing, and the user and book channels follow.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BookSubscription } from "../../src/sdk/ws/book-subscription.js";
import { waitUntil } from "../support/wait-until.js";
import { apiError } from "./harness.js";
import {
  type BinaryMarket,
  limitBid,
  startTradingPlatform,
  type TradingPlatform,
  usdtOf,
} from "./trading-fixtures.js";
import { assertViewMatchesRest, followUser } from "./user-channel-views.js";

describe("amend-order", () => {
  let platform: TradingPlatform;
  before(async () => {
    platform = await startTradingPlatform();
  });
  after(() => platform.close());

  /** A Yes seller's FAK order at `price`: it takes from the front of the bids. */
  const sellInto = async (market: BinaryMarket, price: number, shares: number) => {
    const seller = await platform.fundedUser("100");
    // BUY No at 1 − price is a Yes ask at `price`.
    return seller.client.createOrder({
      ...limitBid(market, { optionId: market.no, limitPrice: Math.round((1 - price) * 100) / 100, shares }),
      timeInForce: "FAK",
    });
  };

  it("fewer shares at the same price keep the order's place and release exactly the difference", async () => {
    const market = await platform.openMarket();
    const first = await platform.fundedUser("100");
    const second = await platform.fundedUser("100");
    const order = await first.client.createOrder(limitBid(market));
    const behind = await second.client.createOrder(limitBid(market));
    assert.deepEqual(await usdtOf(first.client), { available: "96", frozen: "4", total: "100" });

    const amended = await first.client.amendOrder({ orderId: order.orderId, shares: 5 });
    assert.deepEqual(
      [amended.orderId, amended.status, amended.shares, amended.limitPrice, amended.filledShares],
      [order.orderId, "OPEN", "5", "0.4", "0"],
    );
    assert.deepEqual(await usdtOf(first.client), { available: "98", frozen: "2", total: "100" });
    // A seller of 5 meets the amended order first: it is still ahead of the other.
    await sellInto(market, 0.4, 5);
    const [mine] = (await first.client.getTrades({ marketId: market.marketId })).records;
    assert.equal(mine?.orderId, order.orderId);
    assert.equal((await first.client.getOpenOrders()).total, 0, "filled");
    assert.equal((await second.client.getOpenOrders()).records[0]?.filledShares, "0");
    assert.equal(behind.status, "OPEN");
  });

  it("more shares or a new price send it to the back of its level", async () => {
    const market = await platform.openMarket();
    const first = await platform.fundedUser("100");
    const second = await platform.fundedUser("100");
    const order = await first.client.createOrder(limitBid(market));
    const other = await second.client.createOrder(limitBid(market));
    const bigger = await first.client.amendOrder({ orderId: order.orderId, shares: 12 });
    assert.deepEqual([bigger.shares, bigger.status], ["12", "OPEN"]);
    assert.deepEqual(await usdtOf(first.client), { available: "95.2", frozen: "4.8", total: "100" });
    await sellInto(market, 0.4, 1);
    const [filled] = (await second.client.getTrades({ marketId: market.marketId })).records;
    assert.equal(filled?.orderId, other.orderId, "the other order is now first");

    // Moved to another price and back: behind the other order again.
    await first.client.amendOrder({ orderId: order.orderId, limitPrice: 0.39 });
    await first.client.amendOrder({ orderId: order.orderId, limitPrice: 0.4 });
    await sellInto(market, 0.4, 9);
    assert.equal((await second.client.getOpenOrders()).total, 0, "the other order filled first");
    assert.equal((await first.client.getOpenOrders()).records[0]?.filledShares, "0");
  });

  it("a price that crosses trades at once as a taker, at the makers' prices, with exact balances", async () => {
    const market = await platform.openMarket({ takerFee: 100 });
    const maker = await platform.fundedUser("100");
    const other = await platform.fundedUser("100");
    await other.client.createOrder(limitBid(market, { optionId: market.no, limitPrice: 0.5, shares: 4 })); // Yes ask 0.5
    const order = await maker.client.createOrder(limitBid(market));
    const amended = await maker.client.amendOrder({ orderId: order.orderId, limitPrice: 0.55 });
    assert.deepEqual(
      [amended.status, amended.filledShares, amended.avgPrice, amended.limitPrice, amended.fee],
      ["PARTIALLY_FILLED", "4", "0.5", "0.55", "0.02"],
    );
    assert.deepEqual(
      amended.trades.map((trade) => [trade.role, trade.price, trade.shares, trade.orderId]),
      [["TAKER", "0.5", "4", order.orderId]],
    );
    // Paid 2 + 0.02 fee; 6 shares rest at 0.55 (3.3 frozen; makers pay no fee here).
    assert.deepEqual(await usdtOf(maker.client), { available: "94.68", frozen: "3.3", total: "97.98" });
    const [open] = (await maker.client.getOpenOrders()).records;
    assert.deepEqual([open?.orderId, open?.shares, open?.filledShares], [order.orderId, "10", "4"]);
  });

  it("a post-only order stays post-only, and refusals change nothing", async () => {
    const market = await platform.openMarket();
    const maker = await platform.fundedUser("100");
    const other = await platform.fundedUser("100");
    await other.client.createOrder(limitBid(market, { optionId: market.no, limitPrice: 0.4, shares: 4 })); // Yes ask 0.6
    const order = await maker.client.createOrder(limitBid(market, { limitPrice: 0.5, postOnly: true }));
    const othersOrder = await other.client.createOrder(limitBid(market, { limitPrice: 0.1 }));
    const ended = await maker.client.createOrder(limitBid(market, { limitPrice: 0.2 }));
    await maker.client.cancelOrder(ended.orderId);
    const before = await usdtOf(maker.client);
    const refusals: [Parameters<typeof maker.client.amendOrder>[0], number, number, string][] = [
      [
        { orderId: order.orderId, limitPrice: 0.6 },
        400,
        1001,
        "bad request: Post-only order would trade at once",
      ],
      [{ orderId: othersOrder.orderId, shares: 5 }, 404, 1404, "resource not found: Order not found"],
      [{ orderId: ended.orderId, shares: 5 }, 400, 1001, "bad request: Order is no longer open"],
      [{ orderId: "no-such-order", shares: 5 }, 404, 1404, "resource not found: Order not found"],
      [{ orderId: order.orderId }, 400, 1001, "bad request: amend-order needs shares or limitPrice"],
      [
        { orderId: order.orderId, shares: 1.123456789 },
        400,
        1001,
        "bad request: shares has more than 8 decimal places",
      ],
      [
        { orderId: order.orderId, limitPrice: 0.505 },
        400,
        1001,
        "bad request: Price is not a multiple of the tick size",
      ],
      [{ orderId: order.orderId, shares: 10_000 }, 400, 1001, "bad request: Insufficient balance"],
    ];
    for (const [amend, status, code, message] of refusals) {
      await assert.rejects(maker.client.amendOrder(amend), apiError(status, code, message));
    }
    assert.deepEqual(await usdtOf(maker.client), before);
    const [open] = (await maker.client.getOpenOrders()).records;
    assert.deepEqual([open?.orderId, open?.limitPrice, open?.shares], [order.orderId, "0.5", "10"]);
    // A post-only amend that does not cross is taken.
    const moved = await maker.client.amendOrder({ orderId: order.orderId, limitPrice: 0.59, shares: 8 });
    assert.deepEqual([moved.limitPrice, moved.shares, moved.status], ["0.59", "8", "OPEN"]);
  });

  it("the user channels and the book channel follow amends", async () => {
    const market = await platform.openMarket();
    const maker = await platform.fundedUser("100");
    const followed = followUser(platform.addresses.gateway, platform.partner, maker.client);
    const book = new BookSubscription({
      baseUrl: platform.addresses.gateway,
      credentials: platform.partner,
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      seed: () => maker.client.getBook({ marketId: market.marketId, outcomeId: market.outcomeId }),
      backoff: { delayMsBase: 10, delayMsMax: 50 },
    });
    book.start();
    try {
      await Promise.all([followed.whenLive(), book.whenLive()]);
      const order = await maker.client.createOrder(limitBid(market));
      await maker.client.amendOrder({ orderId: order.orderId, shares: 6 });
      let view = await assertViewMatchesRest(followed, maker.client);
      assert.deepEqual([view.orders[0]?.shares, view.balance?.frozen], ["6", "2.4"]);
      await maker.client.amendOrder({ orderId: order.orderId, limitPrice: 0.45, shares: 7 });
      view = await assertViewMatchesRest(followed, maker.client);
      assert.deepEqual([view.orders[0]?.limitPrice, view.orders[0]?.shares], ["0.45", "7"]);
      await waitUntil(async () => {
        const rest = await maker.client.getBook({ marketId: market.marketId, outcomeId: market.outcomeId });
        return JSON.stringify(book.levels()) === JSON.stringify({ bids: rest.bids, asks: rest.asks });
      });
      assert.deepEqual(book.levels().bids, [{ price: "0.45", size: "7" }]);
    } finally {
      followed.stop();
      book.stop();
    }
  });
});
