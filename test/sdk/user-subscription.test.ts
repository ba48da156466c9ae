// The SDK's user-channel views against a WebSocket server the test scripts (what a predex node
// sends is tested end to end in test/e2e/realtime-user-resync.test.ts): a snapshot in parts
// replaces the view once its last part is in; a change older than the view is ignored; a change
// before a connection's snapshot is ignored; a reconnect's snapshot replaces the view even with a
// lower seq (a node that is behind, or whose state was reloaded); parts out of order make it
// reconnect.

import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type WebSocket, WebSocketServer } from "ws";
import type { UserOrder } from "../../src/contract/channels.js";
import { UserOpenOrdersSubscription } from "../../src/sdk/ws/user-subscription.js";
import { waitUntil } from "../support/wait-until.js";

let server: WebSocketServer;
let baseUrl: string;
/** The server side of each connection, in order. */
const connections: WebSocket[] = [];

before(async () => {
  server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  server.on("connection", (socket) => connections.push(socket));
  await new Promise((resolve) => server.once("listening", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const credentials = { appKey: "k", appSecret: "s", apiKey: "a" };

function order(orderId: string, status: UserOrder["status"] = "OPEN"): UserOrder {
  return {
    orderId,
    clientOrderId: null,
    userId: "7",
    marketId: "1",
    outcomeId: "1",
    optionId: "1",
    side: "BUY",
    orderType: "LIMIT",
    timeInForce: "GTC",
    status,
    limitPrice: "0.4",
    shares: "10",
    amount: null,
    filledShares: "0",
    avgPrice: null,
    createdAt: "2026-11-22T10:00:00Z",
    updatedAt: "2026-11-22T10:00:00Z",
    expiresAt: null,
    timestamp: "2026-11-22T10:00:00Z",
  };
}

const snapshot = (seq: number, part: number, parts: number, orders: UserOrder[]) =>
  JSON.stringify({
    snapshot: true,
    seq,
    part,
    parts,
    userId: "7",
    orders,
    timestamp: "2026-11-22T10:00:00Z",
  });
const change = (seq: number, entity: UserOrder) => JSON.stringify({ ...entity, seq, snapshot: false });

describe("UserOpenOrdersSubscription", () => {
  it("applies snapshots and changes by seq, and resyncs after every reconnect", async () => {
    const subscription = new UserOpenOrdersSubscription({
      baseUrl,
      credentials,
      cookie: () => "predex_session=x",
      backoff: { delayMsBase: 5, delayMsMax: 10 },
    });
    const openIds = () => [...subscription.orders.keys()];
    subscription.start();
    try {
      await waitUntil(() => connections.length === 1, { timeoutMs: 5_000, intervalMs: 5 });
      const first = connections[0]!;
      // A change before this connection's snapshot cannot be placed: ignored.
      first.send(change(3, order("9")));
      first.send(snapshot(10, 1, 2, [order("1"), order("2")]));
      await waitUntil(() => subscription.state === "syncing", { timeoutMs: 5_000, intervalMs: 5 });
      assert.equal(subscription.seq, undefined, "nothing is applied before the last part");
      first.send(snapshot(10, 2, 2, [order("3")]));
      await subscription.whenLive();
      assert.deepEqual(openIds(), ["1", "2", "3"]);
      assert.equal(subscription.seq, 10);

      first.send(change(12, order("2", "FILLED")));
      first.send(change(11, order("3", "CANCELLED")));
      first.send(change(12, order("4")));
      await waitUntil(() => subscription.orders.has("4"), { timeoutMs: 5_000, intervalMs: 5 });
      assert.deepEqual(openIds(), ["1", "3", "4"], "the stale cancel of 3 was ignored");
      assert.equal(subscription.staleIgnored, 1);
      assert.equal(subscription.seq, 12);

      // The connection drops; the next one's snapshot, at a lower seq, replaces everything.
      first.terminate();
      await waitUntil(() => connections.length === 2, { timeoutMs: 5_000, intervalMs: 5 });
      await waitUntil(() => subscription.state === "syncing", { timeoutMs: 5_000, intervalMs: 5 });
      const second = connections[1]!;
      second.send(snapshot(8, 1, 1, [order("5")]));
      await waitUntil(() => subscription.snapshotCount === 2, { timeoutMs: 5_000, intervalMs: 5 });
      assert.deepEqual(openIds(), ["5"]);
      assert.equal(subscription.seq, 8);
      second.send(change(9, order("5", "PARTIALLY_FILLED")));
      await waitUntil(() => subscription.orders.get("5")?.status === "PARTIALLY_FILLED", {
        timeoutMs: 5_000,
        intervalMs: 5,
      });
      const kept = subscription.orders.get("5")! as unknown as Record<string, unknown>;
      assert.equal(kept.seq, undefined, "the view holds entities, not stamped messages");

      // A part out of order is a broken stream: the subscription reconnects and waits for a snapshot.
      second.send(snapshot(20, 2, 2, [order("6")]));
      await waitUntil(() => connections.length === 3, { timeoutMs: 5_000, intervalMs: 5 });
      const third = connections[2]!;
      third.send(snapshot(21, 1, 1, []));
      await waitUntil(() => subscription.snapshotCount === 3, { timeoutMs: 5_000, intervalMs: 5 });
      assert.deepEqual(openIds(), []);
    } finally {
      subscription.stop();
    }
  });
});
