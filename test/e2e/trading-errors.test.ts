// Bad and refused trading requests get the spec's status, code and message, and change nothing.
// Wrong JSON types are sent by hand (the typed SDK would not send them).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { apiError } from "./harness.js";
import { type BinaryMarket, startTradingPlatform, type TradingPlatform, usdtOf } from "./trading-fixtures.js";

describe("trading errors", () => {
  let platform: TradingPlatform;
  let market: BinaryMarket;
  before(async () => {
    platform = await startTradingPlatform();
    market = await platform.openMarket();
  });
  after(() => platform.close());

  const limitBuy = (fields: Record<string, unknown> = {}) => ({
    marketId: market.marketId,
    outcomeId: market.outcomeId,
    optionId: market.yes,
    side: "BUY",
    orderType: "LIMIT",
    limitPrice: 0.5,
    shares: 1,
    ...fields,
  });

  /** Posts a hand-made create-order body as the given user. */
  const rawCreateOrder = async (cookie: string, body: Record<string, unknown>) => {
    const response = await platform.signed(platform.partner, {
      method: "POST",
      path: "/ordering/create-order",
      body: JSON.stringify(body),
      cookie,
    });
    return {
      status: response.status,
      json: response.json as { code: number; message: string; data: unknown },
    };
  };

  it("a LIMIT order without a JSON-number limitPrice: the spec's own message", async () => {
    const { client } = await platform.fundedUser("10");
    const cookie = client.sessionCookie!;
    for (const limitPrice of [undefined, "0.5", null]) {
      const body = limitBuy();
      if (limitPrice === undefined) delete (body as Record<string, unknown>).limitPrice;
      else (body as Record<string, unknown>).limitPrice = limitPrice;
      assert.deepEqual(await rawCreateOrder(cookie, body), {
        status: 400,
        json: { code: 1001, message: "bad request: LIMIT order requires numeric limitPrice", data: null },
      });
    }
    assert.deepEqual(await usdtOf(client), { available: "10", frozen: "0", total: "10" });
  });

  it("a string where a number is required is 400/1001 naming the field", async () => {
    const { client } = await platform.fundedUser("10");
    const answer = await rawCreateOrder(client.sessionCookie!, limitBuy({ shares: "1" }));
    assert.deepEqual(answer, {
      status: 400,
      json: { code: 1001, message: "bad request: shares must be number", data: null },
    });
    const side = await rawCreateOrder(client.sessionCookie!, limitBuy({ side: "HOLD" }));
    assert.equal(side.status, 400);
    assert.match(side.json.message, /^bad request: side /);
  });

  it("more than 8 decimals is refused, never rounded", async () => {
    const { client } = await platform.fundedUser("10");
    await assert.rejects(
      client.createOrder(limitBuy({ shares: 1.123456789 }) as never),
      apiError(400, 1001, "bad request: shares has more than 8 decimal places"),
    );
    await assert.rejects(
      client.createOrder(limitBuy({ limitPrice: 0.123456789 }) as never),
      apiError(400, 1001, "bad request: limitPrice has more than 8 decimal places"),
    );
    // Off the tick (0.01) but within 8 decimals: the core's own refusal.
    await assert.rejects(
      client.createOrder(limitBuy({ limitPrice: 0.505 }) as never),
      apiError(400, 1001, "bad request: Price is not a multiple of the tick size"),
    );
    assert.deepEqual(await usdtOf(client), { available: "10", frozen: "0", total: "10" });
  });

  it("unknown market, outcome, option and order are 404/1404", async () => {
    const { client } = await platform.fundedUser("10");
    await assert.rejects(
      client.createOrder(limitBuy({ marketId: "999" }) as never),
      apiError(404, 1404, "resource not found: Market not found"),
    );
    await assert.rejects(
      client.createOrder(limitBuy({ outcomeId: "999" }) as never),
      apiError(404, 1404, "resource not found: Outcome not found"),
    );
    await assert.rejects(
      client.createOrder(limitBuy({ optionId: "999" }) as never),
      apiError(404, 1404, "resource not found: Option not found"),
    );
    await assert.rejects(
      client.createOrder(limitBuy({ marketId: "abc" }) as never),
      apiError(404, 1404, "resource not found: Market not found"),
    );
    await assert.rejects(
      client.getBook({ marketId: "999", outcomeId: market.outcomeId }),
      apiError(404, 1404, "resource not found: Market not found"),
    );
    await assert.rejects(
      client.getPrice({ marketId: market.marketId, outcomeId: "999" }),
      apiError(404, 1404, "resource not found: Outcome not found"),
    );
    await assert.rejects(
      client.cancelOrder("999999"),
      apiError(404, 1404, "resource not found: Order not found"),
    );
    await assert.rejects(
      client.getMarketDetail("999"),
      apiError(404, 1404, "resource not found: Market not found"),
    );
  });

  it("a missing marketId in the book query is the plain-text deserialization error", async () => {
    const { client } = await platform.fundedUser("0");
    const response = await platform.signed(platform.partner, {
      path: "/orderbook/book",
      query: { outcomeId: market.outcomeId },
      cookie: client.sessionCookie!,
    });
    assert.equal(response.status, 400);
    assert.match(response.headers.get("content-type") ?? "", /text\/plain/);
    assert.equal(response.text, "Query deserialize error: missing field `marketId`");
  });

  it("insufficient balance is refused and changes nothing", async () => {
    const { client } = await platform.fundedUser("1");
    await assert.rejects(
      client.createOrder(limitBuy({ shares: 10 }) as never),
      apiError(400, 1001, "bad request: Insufficient balance"),
    );
    await assert.rejects(
      client.createOrder({ ...limitBuy(), side: "SELL" } as never),
      apiError(400, 1001, "bad request: Insufficient shares"),
    );
    assert.deepEqual(await usdtOf(client), { available: "1", frozen: "0", total: "1" });
    assert.equal((await client.getOpenOrders()).total, 0);
  });

  it("only the session's own orders can be cancelled: another user's is 404", async () => {
    const alice = await platform.fundedUser("10");
    const mallory = await platform.fundedUser("0");
    const order = await alice.client.createOrder(limitBuy() as never);
    await assert.rejects(
      mallory.client.cancelOrder(order.orderId),
      apiError(404, 1404, "resource not found: Order not found"),
    );
    assert.equal((await alice.client.getOpenOrders()).records[0]?.status, "OPEN");
  });

  it("the same clientOrderId twice returns the first order and freezes once", async () => {
    const { client } = await platform.fundedUser("10");
    const first = await client.createOrder(limitBuy({ clientOrderId: "abc-1" }) as never);
    const again = await client.createOrder(limitBuy({ clientOrderId: "abc-1", shares: 5 }) as never);
    assert.deepEqual(again, first);
    assert.equal(first.clientOrderId, "abc-1");
    assert.deepEqual(await usdtOf(client), { available: "9.5", frozen: "0.5", total: "10" });
    // Even after it was cancelled, the id still names that order.
    await client.cancelOrder(first.orderId);
    const afterCancel = await client.createOrder(limitBuy({ clientOrderId: "abc-1" }) as never);
    assert.deepEqual([afterCancel.orderId, afterCancel.status], [first.orderId, "CANCELLED"]);
  });

  it("a draft market has no book: HTTP 200, code 4054; its orders are refused", async () => {
    const { client } = await platform.fundedUser("10");
    const draft = await platform.createMarket();
    const address = { marketId: draft.marketId, outcomeId: draft.outcomes[0]!.outcomeId };
    for (const path of ["/orderbook/book", "/orderbook/price"]) {
      const response = await platform.signed(platform.partner, {
        path,
        query: address,
        cookie: client.sessionCookie!,
      });
      assert.equal(response.status, 200);
      assert.deepEqual(response.json, {
        code: 4054,
        message: "CLOB order book is not initialized",
        data: null,
      });
    }
    await assert.rejects(
      client.createOrder({
        ...limitBuy(),
        ...address,
        optionId: draft.outcomes[0]!.options[0]!.optionId,
      } as never),
      apiError(400, 1001, "bad request: Market is not open"),
    );
  });

  it("a closed market refuses orders; closing returned every resting order's funds", async () => {
    const { client } = await platform.fundedUser("10");
    const closing = await platform.openMarket();
    await client.createOrder({
      marketId: closing.marketId,
      outcomeId: closing.outcomeId,
      optionId: closing.yes,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.3,
      shares: 10,
    });
    assert.deepEqual(await usdtOf(client), { available: "7", frozen: "3", total: "10" });
    const closed = await platform.operator.closeMarket(closing.marketId);
    assert.equal(closed.status, "closed");
    assert.deepEqual(await usdtOf(client), { available: "10", frozen: "0", total: "10" });
    await assert.rejects(
      client.createOrder({
        marketId: closing.marketId,
        outcomeId: closing.outcomeId,
        optionId: closing.yes,
        side: "BUY",
        orderType: "LIMIT",
        limitPrice: 0.3,
        shares: 1,
      }),
      apiError(400, 1001, "bad request: Market is not open"),
    );
  });

  it("pagination: defaults, truncation to 100, page below 1 refused, fields beside data", async () => {
    const { client } = await platform.fundedUser("100");
    for (const limitPrice of [0.1, 0.11, 0.12]) await client.createOrder(limitBuy({ limitPrice }) as never);
    const big = await client.getOpenOrders({ page: 1, pageSize: 500 });
    assert.deepEqual([big.current, big.size, big.total, big.pages, big.records.length], [1, 100, 3, 1, 3]);
    const second = await client.getOpenOrders({ page: 2, pageSize: 2 });
    assert.deepEqual(
      [second.current, second.size, second.total, second.pages, second.records.length],
      [2, 2, 3, 2, 1],
    );
    const envelope = await client.requestEnvelope<unknown[]>("POST", "/ordering/open-orders", { body: {} });
    assert.deepEqual(Object.keys(envelope).sort(), [
      "code",
      "current",
      "data",
      "message",
      "pages",
      "size",
      "total",
    ]);
    assert.ok(Array.isArray(envelope.data));
    await assert.rejects(
      client.getOpenOrders({ page: 0 }),
      apiError(400, 1001, "bad request: page must be >= 1"),
    );
    await assert.rejects(
      client.getOpenOrders({ pageSize: 0 }),
      apiError(400, 1001, "bad request: pageSize must be >= 1"),
    );
    await assert.rejects(
      client.getTrades({ page: 0 }),
      apiError(400, 1001, "bad request: page must be >= 1"),
    );
    const trades = await client.requestEnvelope<unknown[]>("GET", "/trades", { query: { pageSize: "1000" } });
    assert.deepEqual(
      [trades.current, trades.size, trades.total, trades.pages, trades.data],
      [1, 100, 0, 0, []],
    );
  });
});
