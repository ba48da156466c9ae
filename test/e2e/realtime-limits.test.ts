// Connection limits are named constants, enforced at the handshake: sockets per partner on the
// signed host, sockets per client address on the public host. A closed socket frees its place.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { socketPaths } from "../../src/contract/paths.js";
import {
  closed,
  openSigned,
  openSocket,
  type RealtimePlatform,
  startRealtimePlatform,
} from "../realtime/fixtures.js";

let platform: RealtimePlatform;
let market: Awaited<ReturnType<RealtimePlatform["openMarket"]>>;

before(async () => {
  platform = await startRealtimePlatform({ socketsPerPartnerMax: 2, socketsPerIpMax: 2 });
  market = await platform.openMarket();
});
after(() => platform.close());

describe("connection limits", () => {
  it("refuses a partner's socket beyond socketsPerPartnerMax with 429, and frees the place on close", async () => {
    const open = () =>
      openSigned(platform, platform.partner, socketPaths.marketPrice, {
        query: { marketId: market.marketId },
      });
    const first = await open();
    const second = await open();
    assert.ok(first.socket && second.socket);
    const third = await open();
    assert.equal(third.status, 429);
    assert.deepEqual(JSON.parse(third.body ?? ""), {
      code: 1429,
      message: "too many requests: WebSocket connection limit reached",
      data: null,
    });
    // Another partner has its own allowance.
    const other = await platform.createPartner();
    const theirs = await openSigned(platform, other, socketPaths.marketPrice, {
      query: { marketId: market.marketId },
    });
    assert.ok(theirs.socket);
    theirs.socket.close();
    const gone = closed(first.socket);
    first.socket.close();
    await gone;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const again = await open();
    assert.ok(again.socket, `expected a socket after one closed, got ${again.status}`);
    again.socket.close();
    second.socket.close();
  });

  it("refuses a client address's public socket beyond socketsPerIpMax with 429", async () => {
    const url = new URL("/ws/market", platform.addresses.public.replace(/^http/, "ws")).href;
    const first = await openSocket(url);
    const second = await openSocket(url);
    const third = await openSocket(url);
    assert.equal(third.status, 429);
    assert.deepEqual(JSON.parse(third.body ?? ""), { error: "too many connections" });
    first.socket?.close();
    second.socket?.close();
  });
});
