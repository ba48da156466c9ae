// Time-driven work through the real server: a GTD order expires at expiresAt and its funds come
// back; a market closes at its endTime (resting orders cancelled) without any operator call.
// The platform's clock is moved past the deadline instead of sleeping until it; the test then
// polls for the scheduler's next tick (a real timer, every schedulerIntervalMs) to have acted.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { schedulerIntervalMs } from "../../src/exchange/exchange-host.js";
import { waitUntil } from "../support/wait-until.js";
import { isoAt, startTradingPlatform, type TradingPlatform, usdtOf } from "./trading-fixtures.js";

/**
 * The deadlines are a minute ahead of the platform's clock, far beyond what the requests that come
 * before the jump take on a loaded machine (at 2 s ahead, a slow register, deposit and order could
 * meet the deadline first); the clock then jumps past them.
 */
const deadlineAheadMs = 60_000;
const clockJumpMs = deadlineAheadMs + 500;
/** Scheduler ticks to wait at most for the work to show, polled every few milliseconds. */
const ticksMax = 20;

let clockOffsetMs = 0;

/** Polls `check` until it holds, for at most `ticksMax` scheduler ticks of real time. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  await waitUntil(check, { what, timeoutMs: ticksMax * schedulerIntervalMs, intervalMs: 10 });
  await nextTurn();
}

describe("the scheduler", () => {
  let platform: TradingPlatform;
  before(async () => {
    platform = await startTradingPlatform({ platform: { nowMs: () => Date.now() + clockOffsetMs } });
  });
  after(() => platform.close());

  it("expires a GTD order at expiresAt and returns its funds", async () => {
    const market = await platform.openMarket();
    const { client } = await platform.fundedUser("10");
    const order = await client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.yes,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.2,
      shares: 10,
      timeInForce: "GTD",
      expiresAt: isoAt(Date.now() + clockOffsetMs + deadlineAheadMs),
    });
    assert.deepEqual([order.status, order.timeInForce], ["OPEN", "GTD"]);
    assert.deepEqual(await usdtOf(client), { available: "8", frozen: "2", total: "10" });
    clockOffsetMs += clockJumpMs;
    await eventually(async () => (await usdtOf(client)).frozen === "0", "the GTD expiry");
    assert.deepEqual(await usdtOf(client), { available: "10", frozen: "0", total: "10" });
    assert.equal((await client.getOpenOrders()).total, 0);
    const again = await client.cancelOrder(order.orderId).catch((error: Error) => error.message);
    assert.equal(again, "bad request: Order is not cancellable");
  });

  it("closes a market at its endTime and cancels its resting orders", async () => {
    const market = await platform.openMarket({
      endTime: isoAt(Date.now() + clockOffsetMs + deadlineAheadMs),
    });
    const { client } = await platform.fundedUser("10");
    await client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.no,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.3,
      shares: 10,
    });
    assert.deepEqual(await usdtOf(client), { available: "7", frozen: "3", total: "10" });
    clockOffsetMs += clockJumpMs;
    await eventually(
      async () => (await client.getMarketDetail(market.marketId)).status === "closed",
      "the close at endTime",
    );
    assert.equal((await client.getMarketDetail(market.marketId)).status, "closed");
    assert.deepEqual(await usdtOf(client), { available: "10", frozen: "0", total: "10" });
  });
});
