// POST /ordering/cancel-orders and /ordering/cancel-all over the real protocol (DESIGN §9), through
// the SDK against a real server: each id answered as cancel-order would answer it, a thousand at
// once, every open order of a user (or of one market or book) pulled in one command, exactly what
// each order froze released, and the user channels and the book channel following along.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { cancelOrdersIdsMax, createOrdersItemsMax } from "../../src/contract/partner/market-making.js";
import type { CreateOrderRequest } from "../../src/contract/partner/trading.js";
import type { PredexClient } from "../../src/sdk/client.js";
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

describe("cancel-orders and cancel-all", () => {
  let platform: TradingPlatform;
  let market: BinaryMarket;
  let second: BinaryMarket;
  before(async () => {
    platform = await startTradingPlatform();
    market = await platform.openMarket();
    second = await platform.openMarket({
      title: "Two books",
      outcomes: [
        { name: "Rain", options: [{ title: "Yes" }, { title: "No" }] },
        { name: "Snow", options: [{ title: "Yes" }, { title: "No" }] },
      ],
    });
  });
  after(() => platform.close());

  /** Places the orders in one create-orders call; every one must be accepted. */
  const placed = async (client: PredexClient, orders: CreateOrderRequest[]) => {
    const { results } = await client.createOrders(orders);
    return results.map((result) => {
      assert.ok(result.ok, JSON.stringify(result));
      return result.order;
    });
  };

  it("cancel-orders answers each id as cancel-order would, in the order sent, and cancels a repeated id once", async () => {
    const maker = await platform.fundedUser("100");
    const other = await platform.fundedUser("100");
    const [a, b, filled] = await placed(maker.client, [
      limitBid(market, { limitPrice: 0.3 }),
      limitBid(market, { limitPrice: 0.35, optionId: market.no }),
      limitBid(market, { limitPrice: 0.33, shares: 1 }),
    ]);
    // The third order trades away (it becomes terminal), and the other user has open and ended orders.
    await other.client.createOrder(
      limitBid(market, { side: "BUY", optionId: market.no, limitPrice: 0.67, shares: 1 }),
    );
    const [othersOpen] = await placed(other.client, [limitBid(market, { limitPrice: 0.1 })]);
    const othersCancelled = await other.client.createOrder(limitBid(market, { limitPrice: 0.11 }));
    await other.client.cancelOrder(othersCancelled.orderId);
    const frozenBefore = (await usdtOf(maker.client)).frozen;
    assert.equal(frozenBefore, "6.5");

    const answer = await maker.client.cancelOrders([
      a!.orderId,
      filled!.orderId,
      othersOpen!.orderId,
      "not-an-id",
      othersCancelled.orderId,
      b!.orderId,
      a!.orderId,
    ]);
    assert.deepEqual(answer, {
      cancelled: [a!.orderId, b!.orderId],
      notCancelled: [
        { orderId: "not-an-id", code: 1404, message: "resource not found: Order not found" },
        { orderId: filled!.orderId, code: 1001, message: "bad request: Order is not cancellable" },
        { orderId: othersOpen!.orderId, code: 1404, message: "resource not found: Order not found" },
        { orderId: othersCancelled.orderId, code: 1404, message: "resource not found: Order not found" },
      ],
    });
    assert.deepEqual(await usdtOf(maker.client), { available: "99.67", frozen: "0", total: "99.67" });
    assert.equal((await other.client.getOpenOrders()).total, 1, "the other user's order stays");
  });

  it("cancel-orders takes a thousand ids in one call, and refuses more or none", async () => {
    const maker = await platform.fundedUser("100");
    const ids: string[] = [];
    for (let call = 0; call < cancelOrdersIdsMax / createOrdersItemsMax; call += 1) {
      const orders = await placed(
        maker.client,
        Array.from({ length: createOrdersItemsMax }, () => limitBid(second, { limitPrice: 0.01, shares: 1 })),
      );
      ids.push(...orders.map((order) => order.orderId));
    }
    assert.deepEqual(await usdtOf(maker.client), { available: "90", frozen: "10", total: "100" });
    await assert.rejects(
      maker.client.cancelOrders([...ids, "1"]),
      apiError(400, 1001, `bad request: orderIds must have at most ${cancelOrdersIdsMax} items`),
    );
    await assert.rejects(
      maker.client.cancelOrders([]),
      apiError(400, 1001, "bad request: orderIds must have at least 1 item"),
    );
    const answer = await maker.client.cancelOrders(ids);
    assert.deepEqual(answer, { cancelled: ids, notCancelled: [] });
    assert.deepEqual(await usdtOf(maker.client), { available: "100", frozen: "0", total: "100" });
    assert.equal((await maker.client.getOpenOrders()).total, 0);
  });

  it("cancel-all pulls every open order, or one market's, or one book's, oldest first", async () => {
    const maker = await platform.fundedUser("100");
    const [rainBook, snowBook] = second.detail.outcomes;
    const onSnow = (fields: Partial<CreateOrderRequest>) =>
      limitBid(second, {
        outcomeId: snowBook!.outcomeId,
        optionId: snowBook!.options[0]!.optionId,
        ...fields,
      });
    const [first, , snow] = await placed(maker.client, [
      limitBid(market, { limitPrice: 0.2 }),
      limitBid(market, { limitPrice: 0.3, optionId: market.no }),
      onSnow({ limitPrice: 0.25 }),
      limitBid(second, { limitPrice: 0.15 }),
    ]);
    const [rain] = (await maker.client.getOpenOrders({ marketId: second.marketId })).records.filter(
      (order) => order.outcomeId === rainBook!.outcomeId,
    );

    assert.deepEqual(
      await maker.client.cancelAll({ marketId: second.marketId, outcomeId: snowBook!.outcomeId }),
      {
        cancelled: [snow!.orderId],
        count: 1,
      },
    );
    assert.deepEqual(await maker.client.cancelAll({ marketId: second.marketId }), {
      cancelled: [rain!.orderId],
      count: 1,
    });
    const everything = await maker.client.cancelAll();
    assert.equal(everything.count, 2);
    assert.equal(everything.cancelled[0], first!.orderId);
    assert.deepEqual(await maker.client.cancelAll(), { cancelled: [], count: 0 });
    assert.deepEqual(await usdtOf(maker.client), { available: "100", frozen: "0", total: "100" });
  });

  it("cancel-all refuses a book without its market, an unknown market, and a book of another market", async () => {
    const maker = await platform.fundedUser("10");
    await maker.client.createOrder(limitBid(market, { limitPrice: 0.1 }));
    await assert.rejects(
      maker.client.cancelAll({ outcomeId: market.outcomeId }),
      apiError(400, 1001, "bad request: outcomeId needs marketId"),
    );
    await assert.rejects(
      maker.client.cancelAll({ marketId: "987654" }),
      apiError(404, 1404, "resource not found: Market not found"),
    );
    await assert.rejects(
      maker.client.cancelAll({ marketId: market.marketId, outcomeId: second.outcomeId }),
      apiError(404, 1404, "resource not found: Outcome not found"),
    );
    assert.equal((await maker.client.getOpenOrders()).total, 1, "nothing was cancelled");
  });

  it("the user channels and the book channel follow mass cancels", async () => {
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
      const orders = await placed(
        maker.client,
        [0.31, 0.32, 0.33, 0.34].map((limitPrice) => limitBid(market, { limitPrice })),
      );
      const view = await assertViewMatchesRest(followed, maker.client);
      assert.equal(view.orders.length, 4);
      await maker.client.cancelOrders([orders[0]!.orderId, orders[1]!.orderId]);
      assert.equal((await assertViewMatchesRest(followed, maker.client)).orders.length, 2);
      await maker.client.cancelAll({ marketId: market.marketId });
      const after = await assertViewMatchesRest(followed, maker.client);
      assert.deepEqual([after.orders, after.balance?.frozen], [[], "0"]);
      await waitUntil(async () => {
        const rest = await maker.client.getBook({ marketId: market.marketId, outcomeId: market.outcomeId });
        return JSON.stringify(book.levels()) === JSON.stringify({ bids: rest.bids, asks: rest.asks });
      });
      assert.ok(!book.levels().bids.some((level) => ["0.31", "0.32", "0.33", "0.34"].includes(level.price)));
    } finally {
      followed.stop();
      book.stop();
    }
  });
});
