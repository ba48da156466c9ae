// POST /ordering/heartbeat over the real protocol (DESIGN §9), through the SDK against a real server:
// the switch arms, re-arms and disarms; when no heartbeat comes in time, every open order of the
// user (in every market) is cancelled on time by the platform's own scheduler, with exactly what each
// froze released and the user channels following; bad timeouts change nothing.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ExchangeCommand, ExchangeEvent } from "../../src/core/exchange.js";
import type { JournalEntry } from "../../src/engine/store.js";
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

describe("heartbeat: the dead-man's switch", () => {
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

  const bid = (where: BinaryMarket, limitPrice: number) => limitBid(where, { limitPrice });

  it("arms, re-arms and disarms, answering when it would go off", async () => {
    const maker = await platform.fundedUser("10");
    const before = Date.now();
    const armed = await maker.client.heartbeat(30);
    assert.equal(armed.armed, true);
    const expiresAtMs = Date.parse(armed.expiresAt!);
    assert.match(armed.expiresAt!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.ok(expiresAtMs >= before + 30_000 && expiresAtMs <= Date.now() + 30_000, armed.expiresAt!);
    const again = await maker.client.heartbeat(300);
    assert.ok(Date.parse(again.expiresAt!) > expiresAtMs);
    assert.deepEqual(await maker.client.heartbeat(0), { armed: false, expiresAt: null });
    assert.deepEqual(await maker.client.heartbeat(0), { armed: false, expiresAt: null });
  });

  it("refuses any other timeout with 400/1001 and changes nothing", async () => {
    const maker = await platform.fundedUser("10");
    for (const timeoutSeconds of [1, 4, 301, -5]) {
      await assert.rejects(
        maker.client.heartbeat(timeoutSeconds),
        apiError(400, 1001, "bad request: timeoutSeconds must be 0 (disarm) or 5 to 300"),
      );
    }
    const response = await platform.signed(platform.partner, {
      method: "POST",
      path: "/ordering/heartbeat",
      body: JSON.stringify({ timeoutSeconds: 5.5 }),
      cookie: maker.client.sessionCookie!,
    });
    assert.equal(response.status, 400);
    assert.match((response.json as { message: string }).message, /^bad request: timeoutSeconds /);
    assert.deepEqual(await maker.client.heartbeat(0), { armed: false, expiresAt: null }, "never armed");
  });

  it("cancels every open order of the user, in every market, on time, when no heartbeat comes", {
    timeout: 30_000,
  }, async () => {
    const maker = await platform.fundedUser("100");
    const bystander = await platform.fundedUser("100");
    const followed = followUser(platform.addresses.gateway, platform.partner, maker.client);
    try {
      await followed.whenLive();
      await maker.client.createOrders([bid(market, 0.3), bid(market, 0.31), bid(other, 0.2)]);
      const kept = await bystander.client.createOrder(bid(market, 0.25));
      assert.deepEqual(await usdtOf(maker.client), { available: "91.9", frozen: "8.1", total: "100" });
      const { expiresAt } = await maker.client.heartbeat(5);
      const deadlineMs = Date.parse(expiresAt!);
      // Before the deadline nothing happens.
      assert.equal((await maker.client.getOpenOrders()).total, 3);
      await waitUntil(async () => (await maker.client.getOpenOrders()).total === 0, { timeoutMs: 15_000 });
      // One journal entry, the scheduler's, cancelled the three at its commit time: after the
      // deadline, within a few scheduler ticks of it (a loose bound: the machine may be busy).
      const trips = committed.filter(
        (entry) =>
          entry.command.type === "TripDeadMansSwitch" && entry.command.userId === Number(maker.userId),
      );
      assert.equal(trips.length, 1);
      const [trip] = trips;
      assert.deepEqual(
        trip!.events.map((event) => (event.type === "OrderCancelled" ? event.reason : event.type)),
        ["DEAD_MANS_SWITCH", "DEAD_MANS_SWITCH", "DEAD_MANS_SWITCH", "DeadMansSwitchTripped"],
      );
      assert.ok(trip!.nowMs >= deadlineMs, "not before the deadline");
      assert.ok(trip!.nowMs < deadlineMs + 5_000, `${trip!.nowMs - deadlineMs} ms after the deadline`);
      assert.deepEqual(await usdtOf(maker.client), { available: "100", frozen: "0", total: "100" });
      const view = await assertViewMatchesRest(followed, maker.client);
      assert.deepEqual(view.orders, []);
      // The switch went off once and is disarmed; the other user's order is untouched.
      assert.deepEqual(await maker.client.heartbeat(0), { armed: false, expiresAt: null });
      const [open] = (await bystander.client.getOpenOrders()).records;
      assert.equal(open?.orderId, kept.orderId);
      // Orders placed afterwards stay.
      await maker.client.createOrder(bid(market, 0.3));
      assert.equal((await maker.client.getOpenOrders()).total, 1);
    } finally {
      followed.stop();
    }
  });

  it("keeps the orders while heartbeats keep coming in time", { timeout: 30_000 }, async () => {
    const maker = await platform.fundedUser("100");
    await maker.client.createOrder(bid(market, 0.2));
    const started = Date.now();
    while (Date.now() - started < 7_000) {
      await maker.client.heartbeat(5);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    assert.equal((await maker.client.getOpenOrders()).total, 1, "re-armed in time: nothing cancelled");
    await maker.client.heartbeat(0);
  });
});
