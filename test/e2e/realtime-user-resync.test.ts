// Issue #27 defect 10: a client of the user channels that was away (its network cut) must come back
// to a correct view. The SDK follows one user on /socket/user-info, /socket/user-positions and
// /socket/user-open-orders through a TCP proxy the test cuts; while the client is away the user's
// orders fill and are cancelled, a new one is placed and money is deposited. Once the network is
// back the client's view (from the snapshot each channel sends first on a reconnect) equals the
// REST state, the orders that finished are gone from it, every message carries `seq` and `seq`
// never goes backwards on a connection. Runs on SQLite and, in the PostgreSQL pass, on PostgreSQL.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PredexClient } from "../../src/sdk/client.js";
import { type RealtimePlatform, startRealtimePlatform } from "../realtime/fixtures.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { waitUntil } from "../support/wait-until.js";
import { assertStampedInOrder, assertViewMatchesRest, followUser } from "./user-channel-views.js";

let platform: RealtimePlatform;
let proxy: TcpProxy;
let market: Awaited<ReturnType<RealtimePlatform["openMarket"]>>;

before(async () => {
  platform = await startRealtimePlatform({ sessionCheckIntervalMs: 100, publishIntervalMs: 10 });
  proxy = await TcpProxy.start(platform.addresses.gateway);
  market = await platform.openMarket("Will the client come back?");
});
after(async () => {
  await proxy.close();
  await platform.close();
});

const limit = (client: PredexClient, option: "yes" | "no", limitPrice: number, shares: number) =>
  client.createOrder({
    marketId: market.marketId,
    outcomeId: market.outcomeId,
    optionId: option === "yes" ? market.yes : market.no,
    side: "BUY",
    orderType: "LIMIT",
    limitPrice,
    shares,
  });

describe("user channels after a reconnect", () => {
  it("send a snapshot first, so a client that was away sees exactly the REST state", async () => {
    const trader = await platform.fundedUser("1000");
    const other = await platform.fundedUser("1000");
    const a = await limit(trader.client, "yes", 0.4, 10);
    const b = await limit(trader.client, "yes", 0.41, 10);
    const c = await limit(trader.client, "no", 0.3, 5);
    const d = await limit(trader.client, "yes", 0.42, 10);
    // A No bid at 0.58 is a Yes ask at 0.42: 4 of d fill, the trader holds 4 Yes.
    await limit(other.client, "no", 0.58, 4);

    const followed = followUser(proxy.url, platform.partner, trader.client);
    try {
      await followed.whenLive();
      const before = await assertViewMatchesRest(followed, trader.client);
      assert.deepEqual(
        before.orders.map((order) => [order.orderId, order.status]),
        [
          [a.orderId, "OPEN"],
          [b.orderId, "OPEN"],
          [c.orderId, "OPEN"],
          [d.orderId, "PARTIALLY_FILLED"],
        ],
      );
      assert.deepEqual(
        before.positions.map((position) => [position.optionId, position.shares]),
        [[market.yes, "4"]],
      );

      // The client's network goes away.
      proxy.cut();
      await waitUntil(() => followed.states().every((state) => state !== "live" && state !== "syncing"));

      // While it is away: c is cancelled, d and b fill (a No bid at 0.59 is a Yes ask at 0.41:
      // 6 of d at 0.42, then all of b at 0.41), a new order e rests, and 50 USDT are deposited.
      await trader.client.cancelOrder(c.orderId);
      await limit(other.client, "no", 0.59, 16);
      const e = await limit(trader.client, "no", 0.2, 5);
      await platform.operator.deposit({
        userId: trader.userId,
        amount: "50",
        txHash: `0xresync-${process.pid}-${Date.now()}`,
      });
      // The stale view still shows what the client knew when it left.
      assert.deepEqual(
        followed.view().orders.map((order) => order.orderId),
        [a.orderId, b.orderId, c.orderId, d.orderId],
      );

      // The network comes back: each channel reconnects and sends its snapshot first.
      proxy.restore();
      await waitUntil(() => followed.snapshotCounts().every((count) => count === 2), { timeoutMs: 10_000 });
      await followed.whenLive();
      const afterReconnect = await assertViewMatchesRest(followed, trader.client);
      assert.deepEqual(
        afterReconnect.orders.map((order) => [order.orderId, order.status]),
        [
          [a.orderId, "OPEN"],
          [e.orderId, "OPEN"],
        ],
        "the orders that finished while the client was away left its view",
      );
      assert.deepEqual(
        afterReconnect.positions.map((position) => [position.optionId, position.shares]),
        [[market.yes, "20"]],
      );

      // Changes after the snapshot go on applying, with seqs that move forward.
      const seqBefore = followed.orders.seq!;
      await trader.client.cancelOrder(a.orderId);
      await waitUntil(() => !followed.orders.orders.has(a.orderId));
      assert.ok(followed.orders.seq! > seqBefore);
      await assertViewMatchesRest(followed, trader.client);

      assert.equal(followed.received.orders.length, 2, "two connections per channel");
      assertStampedInOrder(followed.received);
      for (const subscription of [followed.balance, followed.positions, followed.orders])
        assert.equal(subscription.staleIgnored, 0, "the server never sent a stale change");
    } finally {
      followed.stop();
    }
  });

  it("a snapshot of a user with nothing open is one empty part that still replaces the view", async () => {
    const trader = await platform.fundedUser("100");
    const order = await limit(trader.client, "yes", 0.1, 10);
    const followed = followUser(proxy.url, platform.partner, trader.client);
    try {
      await followed.whenLive();
      assert.deepEqual([...followed.orders.orders.keys()], [order.orderId]);
      proxy.cut();
      await waitUntil(() => followed.states().every((state) => state !== "live" && state !== "syncing"));
      await trader.client.cancelOrder(order.orderId);
      proxy.restore();
      await waitUntil(() => followed.snapshotCounts().every((count) => count === 2), { timeoutMs: 10_000 });
      assert.equal(followed.orders.orders.size, 0);
      const snapshot = followed.received.orders[1]![0] as Record<string, unknown>;
      assert.deepEqual(
        { ...snapshot, seq: undefined, timestamp: undefined },
        {
          snapshot: true,
          seq: undefined,
          part: 1,
          parts: 1,
          userId: trader.userId,
          orders: [],
          timestamp: undefined,
        },
      );
      await assertViewMatchesRest(followed, trader.client);
      assertStampedInOrder(followed.received);
    } finally {
      followed.stop();
    }
  });
});
