// The user channels send the session's own balance, positions and orders at connect (a snapshot,
// stamped with `seq`) and on every change; /socket/market-price sends option prices when they move. A revoked or expired session,
// found by the periodic check or before a send, closes the socket with 1011 `upstream unavailable`.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { socketPaths } from "../../src/contract/paths.js";
import { SignedSocket } from "../../src/sdk/ws/signed-socket.js";
import { closed, openSigned, type RealtimePlatform, startRealtimePlatform } from "../realtime/fixtures.js";
import { waitUntil } from "../support/wait-until.js";

const dayMs = 86_400_000;
let clockOffsetMs = 0;
let platform: RealtimePlatform;
let market: Awaited<ReturnType<RealtimePlatform["openMarket"]>>;

before(async () => {
  platform = await startRealtimePlatform(
    { sessionCheckIntervalMs: 100, publishIntervalMs: 10 },
    () => Date.now() + clockOffsetMs,
  );
  market = await platform.openMarket();
});
after(() => platform.close());

type Message = Record<string, unknown>;

describe("user channels", () => {
  it("/socket/user-info sends the balance at connect and after each change", async () => {
    const { client, userId } = await platform.fundedUser("500");
    const received: Message[] = [];
    const socket = new SignedSocket({
      baseUrl: platform.addresses.gateway,
      credentials: platform.partner,
      path: socketPaths.userInfo,
      cookie: () => client.sessionCookie,
      onMessage: (message) => received.push(message as Message),
    });
    socket.start();
    const waitFor = (match: (message: Message) => boolean) =>
      waitUntil(() => received.some(match), {
        what: () => `a matching message, not only ${JSON.stringify(received)}`,
        timeoutMs: 5_000,
        intervalMs: 10,
      });
    await waitFor((message) => message.available === "500");
    assert.deepEqual(Object.keys(received[0]!).sort(), [
      "available",
      "coinId",
      "frozen",
      "seq",
      "snapshot",
      "symbol",
      "timestamp",
      "total",
      "userId",
    ]);
    assert.equal(received[0]!.userId, userId);
    // The first message of a connection is the snapshot: the balance is the channel's whole state.
    assert.equal(received[0]!.snapshot, true);
    assert.equal(typeof received[0]!.seq, "number");
    assert.match(String(received[0]!.timestamp), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    await client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.yes,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.4,
      shares: 100,
    });
    await waitFor(
      (message) => message.available === "460" && message.frozen === "40" && message.total === "500",
    );
    const change = received.find((message) => message.available === "460")!;
    assert.equal(change.snapshot, false);
    assert.ok((change.seq as number) > (received[0]!.seq as number), "the order came after the snapshot");
    socket.stop();
  });

  it("/socket/user-open-orders and /socket/user-positions follow orders, fills and cancels", async () => {
    const buyer = await platform.fundedUser("1000");
    const seller = await platform.fundedUser("1000");
    const orders = await openSigned(platform, platform.partner, socketPaths.userOpenOrders, {
      cookie: buyer.client.sessionCookie!,
    });
    const positions = await openSigned(platform, platform.partner, socketPaths.userPositions, {
      query: { marketId: market.marketId, userId: buyer.userId },
      cookie: buyer.client.sessionCookie!,
    });
    const orderMessages = orders.inbox!;
    const positionMessages = positions.inbox!;
    const resting = await buyer.client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.yes,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.45,
      shares: 10,
    });
    // Each channel starts with its snapshot: nothing open, no position yet.
    const ordersSnapshot = await orderMessages.next((message) => message.snapshot === true);
    assert.deepEqual(ordersSnapshot.orders, []);
    const positionsSnapshot = await positionMessages.next((message) => message.snapshot === true);
    assert.deepEqual([positionsSnapshot.positions, positionsSnapshot.marketId], [[], market.marketId]);
    const open = await orderMessages.next((message) => message.orderId === resting.orderId);
    assert.equal(open.status, "OPEN");
    assert.equal(open.limitPrice, "0.45");
    assert.equal(open.snapshot, false);
    assert.ok((open.seq as number) > (ordersSnapshot.seq as number));
    // The seller buys No at 0.55: a mint against the resting Yes bid.
    await seller.client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.no,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.55,
      shares: 4,
    });
    const partial = await orderMessages.next(
      (message) => message.orderId === resting.orderId && message.status === "PARTIALLY_FILLED",
    );
    assert.equal(partial.filledShares, "4");
    const position = await positionMessages.next((message) => message.optionId === market.yes);
    assert.equal(position.shares, "4");
    assert.equal(position.userId, buyer.userId);
    await buyer.client.cancelOrder(resting.orderId);
    const cancelled = await orderMessages.next(
      (message) => message.orderId === resting.orderId && message.status === "CANCELLED",
    );
    assert.equal(cancelled.filledShares, "4");
    orders.socket!.close();
    positions.socket!.close();
  });

  it("/socket/user-open-orders lists the open orders at connect, in one snapshot", async () => {
    const trader = await platform.fundedUser("1000");
    const order = await trader.client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.no,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.3,
      shares: 5,
    });
    const opened = await openSigned(platform, platform.partner, socketPaths.userOpenOrders, {
      cookie: trader.client.sessionCookie!,
    });
    const first = await opened.inbox!.next();
    assert.equal(first.snapshot, true);
    assert.deepEqual([first.part, first.parts, first.userId], [1, 1, trader.userId]);
    const orders = first.orders as Record<string, unknown>[];
    assert.deepEqual(
      orders.map((open) => [open.orderId, open.status]),
      [[order.orderId, "OPEN"]],
    );
    opened.socket!.close();
  });
});

describe("/socket/market-price", () => {
  it("sends each option's price and chance when the price moves", async () => {
    const priced = await platform.openMarket("Priced market");
    const opened = await openSigned(platform, platform.partner, socketPaths.marketPrice, {
      query: { marketId: priced.marketId },
    });
    const messages = opened.inbox!;
    const { client } = await platform.fundedUser("1000");
    await client.createOrder({
      marketId: priced.marketId,
      outcomeId: priced.outcomeId,
      optionId: priced.yes,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.6,
      shares: 1,
    });
    // A No bid at 0.3 is a Yes ask at 0.7: the book has both sides, the price is the midpoint 0.65.
    await client.createOrder({
      marketId: priced.marketId,
      outcomeId: priced.outcomeId,
      optionId: priced.no,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.3,
      shares: 1,
    });
    const yes = await messages.next((message) => message.optionId === priced.yes && message.price === "0.65");
    const no = await messages.next((message) => message.optionId === priced.no && message.price === "0.35");
    assert.deepEqual(Object.keys(yes).sort(), [
      "chance",
      "marketId",
      "optionId",
      "outcomeId",
      "price",
      "timestamp",
    ]);
    assert.equal(Number(yes.price) + Number(no.price), 1);
    assert.equal(yes.chance, Number(yes.price));
    opened.socket!.close();
  });
});

describe("a dead session closes user channels with 1011 upstream unavailable", () => {
  it("and the SDK registers again (renewSession) and carries on with the new session", async () => {
    const partner = platform.partner;
    const { client, user } = await platform.registeredUser({ partner });
    const registration = {
      userEmail: `${user.userId}-again@example.com`,
      merchantId: partner.merchantId,
      marchantUserId: `renew-${user.userId}`,
    };
    // The session the socket starts with comes from this registration, which renewSession repeats
    // (registering again finds the same user by marchantUserId and opens a fresh session).
    await client.register(registration);
    const received: Record<string, unknown>[] = [];
    const socket = new SignedSocket({
      baseUrl: platform.addresses.gateway,
      credentials: partner,
      path: socketPaths.userInfo,
      cookie: () => client.sessionCookie,
      renewSession: () => client.register(registration).then(() => undefined),
      backoff: { delayMsBase: 10, delayMsMax: 20 },
      onMessage: (message) => received.push(message as Record<string, unknown>),
    });
    socket.start();
    await waitUntil(() => received.length > 0, { intervalMs: 10 });
    const cookieBefore = client.sessionCookie;
    const userId = String(received[0]!.userId);
    await platform.revokeSessions(userId);
    await waitUntil(() => client.sessionCookie !== cookieBefore && received.length >= 2, {
      what: () => `a renewal, not only ${JSON.stringify(received)} ${socket.state}`,
      timeoutMs: 5_000,
      intervalMs: 10,
    });
    assert.equal(socket.state, "open");
    assert.equal(received.at(-1)!.userId, userId);
    socket.stop();
  });

  it("when the operator revokes the user's sessions", async () => {
    const { client, userId } = await platform.fundedUser("10");
    const opened = await openSigned(platform, platform.partner, socketPaths.userInfo, {
      cookie: client.sessionCookie!,
    });
    const close = closed(opened.socket!);
    await platform.revokeSessions(userId);
    assert.deepEqual(await close, { code: 1011, reason: "upstream unavailable" });
  });

  it("when the session expires", async () => {
    const { client } = await platform.fundedUser("10");
    const opened = await openSigned(platform, platform.partner, socketPaths.userOpenOrders, {
      cookie: client.sessionCookie!,
    });
    const close = closed(opened.socket!);
    clockOffsetMs = 2 * dayMs;
    try {
      assert.deepEqual(await close, { code: 1011, reason: "upstream unavailable" });
    } finally {
      clockOffsetMs = 0;
    }
  });

  it("and the SDK sees the 1011, reconnects, and stops for good when the handshake refuses the dead session", async () => {
    const { client, userId } = await platform.fundedUser("10");
    const closes: number[] = [];
    const socket = new SignedSocket({
      baseUrl: platform.addresses.gateway,
      credentials: platform.partner,
      path: socketPaths.userPositions,
      query: { userId },
      cookie: () => client.sessionCookie,
      backoff: { delayMsBase: 10, delayMsMax: 20 },
      onMessage: () => undefined,
      onClose: (code) => closes.push(code),
    });
    socket.start();
    await waitUntil(() => socket.state === "open", { intervalMs: 10 });
    await platform.revokeSessions(userId);
    // After the 1011 the SDK reconnects; the dead session is then refused at the handshake (401),
    // which retrying cannot fix, so the socket stops for good.
    await waitUntil(() => (socket.state as string) === "closed", { timeoutMs: 3_000, intervalMs: 10 });
    assert.equal(closes[0], 1011);
    assert.equal(socket.state, "closed");
  });
});
