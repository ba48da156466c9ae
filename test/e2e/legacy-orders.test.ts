// Asynchronous orders on the legacy interface (spec 001 "Order submit request", "Transaction
// result record"): the checks made before an fgRequestId is returned, with their exact codes, and
// execution through the queue, read back through the result endpoint with the legacy SDK client.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { OrderSubmitRequest } from "../../src/contract/legacy/orders.js";
import { legacyPaths } from "../../src/contract/legacy/paths.js";
import type { LegacyClient } from "../../src/sdk/legacy/client.js";
import { LegacyApiError } from "../../src/sdk/legacy/errors.js";
import type { BinaryMarket } from "../e2e/trading-fixtures.js";
import { type LegacyPlatform, type Merchant, startLegacyPlatform } from "../legacy/fixtures.js";

let platform: LegacyPlatform;
let merchant: Merchant;
let market: BinaryMarket;
let ids: { marketId: number; outcomeId: number; yes: number; no: number };
let trader: LegacyClient;

before(async () => {
  platform = await startLegacyPlatform();
  merchant = await platform.createMerchant();
  market = await platform.openMarket();
  ids = {
    marketId: Number(market.marketId),
    outcomeId: Number(market.outcomeId),
    yes: Number(market.yes),
    no: Number(market.no),
  };
  trader = await platform.fundedLegacyUser(merchant, "100");
});
after(() => platform.close());

function buyYes(overrides: Partial<Record<keyof OrderSubmitRequest, unknown>> = {}): OrderSubmitRequest {
  return {
    marketId: ids.marketId,
    outcomeId: ids.outcomeId,
    optionId: ids.yes,
    direction: "BUY",
    orderType: "LIMIT",
    price: 0.5,
    amount: 1,
    ...overrides,
  } as OrderSubmitRequest;
}

/** Submits and expects a refusal; resolves to [HTTP status, data.errorCode, msg]. */
async function refusal(client: LegacyClient, body: unknown): Promise<[number, number | undefined, string]> {
  try {
    await client.submitOrder(body as OrderSubmitRequest);
  } catch (error) {
    if (error instanceof LegacyApiError) {
      assert.equal(error.code, error.status, "code mirrors the HTTP status");
      return [error.status, error.errorCode, error.msg];
    }
    throw error;
  }
  throw new Error("the submission was accepted");
}

describe("order submit: checks before an fgRequestId", () => {
  it("needs a valid token: 401", async () => {
    const response = await platform.raw("legacy", {
      method: "POST",
      path: legacyPaths.orderSubmit,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(buyYes()),
    });
    assert.equal(response.status, 401);
    assert.deepEqual(response.json, {
      code: 401,
      msg: "invalid token / token has expired",
      data: { errorCode: 401 },
    });
  });

  it("sends ids as numbers: a string id is 400 parameter error", async () => {
    assert.deepEqual(await refusal(trader, buyYes({ marketId: String(ids.marketId) })), [
      400,
      400,
      "parameter error",
    ]);
    assert.deepEqual(await refusal(trader, buyYes({ optionId: 1.5 })), [400, 400, "parameter error"]);
  });

  it("answers a missing outcomeId with 4001", async () => {
    assert.deepEqual(await refusal(trader, buyYes({ outcomeId: undefined })), [
      400,
      4001,
      "outcomeId is null",
    ]);
  });

  it("takes amount and no shares for BUY, shares and no amount for SELL: else 400", async () => {
    assert.deepEqual(await refusal(trader, buyYes({ shares: 2 })), [400, 400, "parameter error"]);
    assert.deepEqual(await refusal(trader, buyYes({ amount: undefined })), [400, 400, "parameter error"]);
    const sell = buyYes({ direction: "SELL", amount: 1 });
    assert.deepEqual(await refusal(trader, sell), [400, 400, "parameter error"]);
    assert.deepEqual(await refusal(trader, buyYes({ direction: "HOLD" })), [400, 400, "parameter error"]);
  });

  it("bounds amount to 0.01–1,000,000 (5003) with at most 8 decimals (5005)", async () => {
    assert.deepEqual(await refusal(trader, buyYes({ amount: 0.009 })), [422, 5003, "amount not in range"]);
    assert.deepEqual(await refusal(trader, buyYes({ amount: 1_000_000.01 })), [
      422,
      5003,
      "amount not in range",
    ]);
    assert.deepEqual(await refusal(trader, buyYes({ amount: 1.123456789 })), [
      400,
      5005,
      "amount precision error",
    ]);
  });

  it("bounds shares: 8 decimals (5006), too small (5007), too large (5008)", async () => {
    const sell = (shares: unknown) => buyYes({ direction: "SELL", amount: undefined, shares });
    assert.deepEqual(await refusal(trader, sell(1.123456789)), [400, 5006, "share precision error"]);
    assert.deepEqual(await refusal(trader, sell(0)), [422, 5007, "share is too small"]);
    assert.deepEqual(await refusal(trader, sell(1_000_001)), [422, 5008, "share is too large"]);
    // Below the market's minimum order (0.01 shares) once rounded down to its step.
    assert.deepEqual(await refusal(trader, sell(0.00001)), [422, 5007, "share is too small"]);
  });

  it("checks the price of a LIMIT order", async () => {
    assert.deepEqual(await refusal(trader, buyYes({ price: undefined })), [400, 400, "parameter error"]);
    assert.deepEqual(await refusal(trader, buyYes({ price: 1.5 })), [400, 400, "Invalid price"]);
    assert.deepEqual(await refusal(trader, buyYes({ price: 0 })), [400, 400, "Invalid price"]);
    assert.deepEqual(await refusal(trader, buyYes({ price: 0.005 })), [400, 400, "Invalid price"]);
    assert.deepEqual(await refusal(trader, buyYes({ orderType: "MARKET" })), [400, 400, "parameter error"]);
  });

  it("pairs order types with the market's model: PARIMUTUEL on an orderbook market is 400", async () => {
    assert.deepEqual(await refusal(trader, buyYes({ orderType: "PARIMUTUEL", price: undefined })), [
      400,
      400,
      "parameter error",
    ]);
    assert.deepEqual(await refusal(trader, buyYes({ orderType: "STOP" })), [400, 400, "parameter error"]);
  });

  it("answers a missing market (3009), outcome (3001) or option with 404", async () => {
    assert.deepEqual(await refusal(trader, buyYes({ marketId: 999_999 })), [
      404,
      3009,
      "market does not exist",
    ]);
    assert.deepEqual(await refusal(trader, buyYes({ outcomeId: 999_999 })), [
      404,
      3001,
      "outcome is not exist",
    ]);
    assert.deepEqual(await refusal(trader, buyYes({ optionId: 999_999 })), [404, 404, "option is not exist"]);
  });

  it("refuses a market that is not open: 422 90003 market is closed", async () => {
    const draft = await platform.createMarket();
    const outcome = draft.outcomes[0]!;
    const body = buyYes({
      marketId: Number(draft.marketId),
      outcomeId: Number(outcome.outcomeId),
      optionId: Number(outcome.options[0]!.optionId),
    });
    assert.deepEqual(await refusal(trader, body), [422, 90003, "market is closed"]);
  });

  it("refuses a BUY beyond the available balance: 422 2002 with required and available", async () => {
    const poor = await platform.fundedLegacyUser(merchant, "5");
    try {
      await poor.submitOrder(buyYes({ amount: 10 }));
      assert.fail("accepted");
    } catch (error) {
      assert.ok(error instanceof LegacyApiError);
      assert.equal(error.status, 422);
      assert.equal(error.msg, "Available balance is insufficient");
      assert.deepEqual(error.data, { errorCode: 2002, required: 10, available: 5 });
    }
  });

  it("refuses a SELL of shares the user does not hold: 422 2001", async () => {
    const body = buyYes({ direction: "SELL", amount: undefined, shares: 5, price: 0.5 });
    assert.deepEqual(await refusal(trader, body), [422, 2001, "share is not enough"]);
  });
});

describe("order execution and results", () => {
  it("executes a LIMIT BUY and shows it as SUCCESS with the order in notifyContent", async () => {
    const fgRequestId = await trader.submitOrder(buyYes({ price: 0.6, amount: 6 }));
    assert.match(fgRequestId, /^[0-9a-f-]{36}$/);
    const result = await trader.waitForResult(fgRequestId);
    assert.equal(result.status, "SUCCESS");
    assert.equal(result.id, fgRequestId);
    assert.equal(result.errorMsg, null);
    assert.equal(result.userId, trader.userId);
    assert.equal(result.merchantId, Number(merchant.merchantId));
    // No webhookUrl: nothing to deliver.
    assert.equal(result.notifyStatus, 3);
    assert.equal(result.notifyRetryTimes, 0);
    assert.match(result.createTime, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.match(result.updateTime, /^\d{4}-\d{2}-\d{2}T/);
    const content = JSON.parse(result.notifyContent) as {
      status: string;
      request: Record<string, unknown>;
      order: Record<string, unknown>;
    };
    assert.equal(content.status, "SUCCESS");
    assert.deepEqual(content.request, {
      marketId: ids.marketId,
      outcomeId: ids.outcomeId,
      optionId: ids.yes,
      direction: "BUY",
      orderType: "LIMIT",
      price: 0.6,
      amount: null,
      shares: 10,
    });
    assert.equal(content.order.status, "OPEN");
    assert.equal(content.order.shares, 10);
    assert.equal(content.order.price, 0.6);
  });

  it("executes a MARKET BUY against it (a mint), then records a SELL that finds no liquidity as FAILED", async () => {
    const buyer = await platform.fundedLegacyUser(merchant, "10");
    const buyNo = await buyer.submitOrder(
      buyYes({ optionId: ids.no, orderType: "MARKET", price: undefined, amount: 4 }),
    );
    const bought = await buyer.waitForResult(buyNo);
    assert.equal(bought.status, "SUCCESS");
    const order = (JSON.parse(bought.notifyContent) as { order: Record<string, unknown> }).order;
    assert.deepEqual(
      [order.status, order.filledShares, order.filledAmount, order.avgPrice],
      ["FILLED", 10, 4, 0.4],
    );

    // No Yes seller rests on the book, so a MARKET SELL of No finds nobody: the core refuses at execution.
    const sell = await buyer.submitOrder({
      marketId: ids.marketId,
      outcomeId: ids.outcomeId,
      optionId: ids.no,
      direction: "SELL",
      orderType: "MARKET",
      shares: 10,
    });
    const failed = await buyer.waitForResult(sell);
    assert.equal(failed.status, "FAILED");
    assert.equal(failed.errorMsg, "No liquidity at an acceptable price");
    const content = JSON.parse(failed.notifyContent) as {
      status: string;
      errorCode: number;
      errorMsg: string;
    };
    assert.deepEqual(
      [content.status, content.errorCode, content.errorMsg],
      ["FAILED", 422, "No liquidity at an acceptable price"],
    );
  });

  it("executes requests in submission order", async () => {
    const user = await platform.fundedLegacyUser(merchant, "10");
    const requests: string[] = [];
    for (let index = 0; index < 5; index++) {
      requests.push(await user.submitOrder(buyYes({ price: 0.1, amount: 2 })));
    }
    // 5 × 2 USDT on a 10 USDT balance: all fit, and each executes once.
    const results = await Promise.all(requests.map((id) => user.waitForResult(id)));
    assert.deepEqual(
      results.map((result) => result.status),
      ["SUCCESS", "SUCCESS", "SUCCESS", "SUCCESS", "SUCCESS"],
    );
    const orderIds = results.map(
      (result) => (JSON.parse(result.notifyContent) as { order: { orderId: number } }).order.orderId,
    );
    assert.deepEqual(
      [...orderIds].sort((a, b) => a - b),
      orderIds,
      "order ids follow submission order",
    );
    // A sixth would have passed the check at submission only if the balance allowed it.
    assert.deepEqual(await refusal(user, buyYes({ price: 0.1, amount: 2 })), [
      422,
      2002,
      "Available balance is insufficient",
    ]);
  });

  it("shows PENDING with notifyContent before execution, as the record's types say", async () => {
    const services = platform.platform.apps.legacy.legacyServices;
    const record = await services.requests.enqueue({
      requestId: "pending-example",
      merchantId: Number(merchant.merchantId),
      userId: trader.userId!,
      instruction: {
        marketId: ids.marketId,
        outcomeId: ids.outcomeId,
        optionId: ids.yes,
        direction: "BUY",
        orderType: "LIMIT",
        coreOrderType: "LIMIT",
        price: "0.2",
        amount: null,
        shares: "1",
      },
      notifyContent: JSON.stringify({ fgRequestId: "pending-example", status: "PENDING" }),
      nowMs: Date.now(),
    });
    assert.equal(record.status, "PENDING");
    const seen = await trader.getRequestResult("pending-example");
    assert.ok(["PENDING", "SUCCESS"].includes(seen.status));
    assert.equal(typeof seen.notifyContent, "string");
    assert.ok(seen.notifyUpdateTime === null || typeof seen.notifyUpdateTime === "string");
  });

  it("answers an unknown request, or another user's, with 404 Request not found", async () => {
    const mine = await trader.submitOrder(buyYes({ price: 0.2, amount: 1 }));
    const other = await platform.fundedLegacyUser(merchant, "0");
    for (const [client, id] of [
      [trader, "no-such-request"],
      [other, mine],
    ] as const) {
      await assert.rejects(client.getRequestResult(id), (error: unknown) => {
        assert.ok(error instanceof LegacyApiError);
        assert.deepEqual(
          [error.status, error.code, error.msg, error.data],
          [404, 404, "Request not found", { errorCode: 404 }],
        );
        return true;
      });
    }
  });
});

describe("positions and activity", () => {
  it("show the shares a filled order bought and its trade, paginated beside data", async () => {
    const maker = await platform.fundedLegacyUser(merchant, "10");
    const taker = await platform.fundedLegacyUser(merchant, "10");
    const bid = await maker.submitOrder(buyYes({ price: 0.7, amount: 7 }));
    assert.equal((await maker.waitForResult(bid)).status, "SUCCESS");
    const take = await taker.submitOrder(
      buyYes({ optionId: ids.no, orderType: "MARKET", price: undefined, amount: 3 }),
    );
    assert.equal((await taker.waitForResult(take)).status, "SUCCESS");

    const positions = await taker.getPositions({ marketId: ids.marketId });
    assert.deepEqual(
      [
        positions.current,
        positions.size,
        positions.total,
        positions.pages,
        positions.totalRow,
        positions.empty,
      ],
      [1, 10, 1, 1, 1, false],
    );
    const [position] = positions.records;
    assert.deepEqual(
      [position!.optionId, position!.shares, position!.frozenShares, position!.avgPrice, position!.cost],
      [ids.no, 10, 0, 0.3, 3],
    );

    const activity = await taker.getUserActivity({ pageSize: 500 });
    assert.equal(activity.size, 100, "a page size above 100 is capped");
    assert.equal(activity.total, 1);
    const [trade] = activity.records;
    assert.deepEqual(
      [trade!.direction, trade!.role, trade!.price, trade!.shares, trade!.amount, trade!.optionId],
      ["BUY", "TAKER", 0.3, 10, 3, ids.no],
    );
    assert.equal((await maker.getUserActivity()).records[0]!.role, "MAKER");
    await assert.rejects(
      taker.getUserActivity({ page: 0 }),
      (error: unknown) => error instanceof LegacyApiError && error.status === 400,
    );
  });
});
