// Every signed channel refuses a bad handshake with the spec's HTTP errors, written before any
// upgrade: the gateway's 400/401 plain text, 401/1401 for the API key and the session, 400 text/plain
// for a missing query field, 404/1404 for unknown ids, 200/4054 for a book that does not exist yet.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { socketPaths } from "../../src/contract/paths.js";
import {
  openSigned,
  openSignedWithoutApiKey,
  type RealtimePlatform,
  startRealtimePlatform,
} from "../realtime/fixtures.js";

let platform: RealtimePlatform;
let market: Awaited<ReturnType<RealtimePlatform["openMarket"]>>;
let cookie: string;
let userId: string;

before(async () => {
  platform = await startRealtimePlatform();
  market = await platform.openMarket();
  const user = await platform.fundedUser();
  cookie = user.client.sessionCookie!;
  userId = user.userId;
});
after(() => platform.close());

const channels = [
  {
    path: socketPaths.clobPriceUpdate,
    user: false,
    query: () => ({ marketId: market.marketId, outcomeId: market.outcomeId }),
  },
  { path: socketPaths.marketPrice, user: false, query: () => ({ marketId: market.marketId }) },
  { path: socketPaths.userInfo, user: true, query: () => ({}) },
  { path: socketPaths.userPositions, user: true, query: () => ({ marketId: market.marketId, userId }) },
  { path: socketPaths.userOpenOrders, user: true, query: () => ({}) },
  { path: socketPaths.userTrades, user: true, query: () => ({}) },
];

const envelope = (body: string | undefined) =>
  JSON.parse(body ?? "null") as { code: number; message: string; data: null };

for (const channel of channels) {
  describe(`handshake of ${channel.path}`, () => {
    const cookieFor = () => (channel.user ? cookie : undefined);

    it("accepts a correctly signed upgrade", async () => {
      const opened = await openSigned(platform, platform.partner, channel.path, {
        query: channel.query(),
        ...(cookieFor() === undefined ? {} : { cookie: cookieFor()! }),
      });
      assert.ok(opened.socket, `expected an open socket, got ${opened.status} ${opened.body}`);
      opened.socket.close();
    });

    it("refuses a bad signature with 400 Invalid Signature", async () => {
      const opened = await openSigned(
        platform,
        { ...platform.partner, appSecret: "not-the-secret" },
        channel.path,
        { query: channel.query(), ...(cookieFor() === undefined ? {} : { cookie: cookieFor()! }) },
      );
      assert.equal(opened.status, 400);
      assert.equal(opened.body, "Invalid Signature");
    });

    it("refuses a missing API key with 401/1401 Missing X-API-KEY header", async () => {
      const query = Object.fromEntries(
        Object.entries(channel.query()).map(([key, value]) => [key, String(value)]),
      );
      const opened = await openSignedWithoutApiKey(
        platform,
        platform.partner,
        channel.path,
        query,
        cookieFor(),
      );
      assert.equal(opened.status, 401);
      assert.deepEqual(envelope(opened.body), {
        code: 1401,
        message: "unauthorized: Missing X-API-KEY header",
        data: null,
      });
    });

    if (channel.user) {
      it("refuses a missing cookie with 401/1401 Missing Cookie header", async () => {
        const opened = await openSigned(platform, platform.partner, channel.path, { query: channel.query() });
        assert.equal(opened.status, 401);
        assert.deepEqual(envelope(opened.body), {
          code: 1401,
          message: "unauthorized: Missing Cookie header",
          data: null,
        });
      });

      it("refuses an unknown session with 401/1401 Invalid or expired session", async () => {
        const opened = await openSigned(platform, platform.partner, channel.path, {
          query: channel.query(),
          cookie: "predex_session=not-a-session",
        });
        assert.equal(opened.status, 401);
        assert.deepEqual(envelope(opened.body), {
          code: 1401,
          message: "unauthorized: Invalid or expired session",
          data: null,
        });
      });

      it("refuses a session of another partner with 401/1401", async () => {
        const other = await platform.createPartner();
        const opened = await openSigned(platform, other, channel.path, { query: channel.query(), cookie });
        assert.equal(opened.status, 401);
        assert.equal(envelope(opened.body).message, "unauthorized: Invalid or expired session");
      });
    }
  });
}

describe("handshake details", () => {
  it("refuses an upgrade whose signed API key was removed with 400 Invalid Signature", async () => {
    const opened = await openSigned(platform, platform.partner, socketPaths.marketPrice, {
      query: { marketId: market.marketId },
      headers: { "x-api-key": "" },
    });
    assert.equal(opened.status, 400);
    assert.equal(opened.body, "Invalid Signature");
  });

  it("refuses a user channel whose cookie is sent but not signed with 401/1401", async () => {
    const opened = await openSigned(platform, platform.partner, socketPaths.userInfo, {
      headers: { cookie },
    });
    assert.equal(opened.status, 401);
    assert.equal(
      envelope(opened.body).message,
      "unauthorized: Cookie header must be signed on user channels",
    );
  });

  it("refuses another user's userId on /socket/user-positions with 401/1401", async () => {
    const other = await platform.fundedUser();
    const opened = await openSigned(platform, platform.partner, socketPaths.userPositions, {
      query: { marketId: market.marketId, userId: other.userId },
      cookie,
    });
    assert.equal(opened.status, 401);
    assert.deepEqual(envelope(opened.body), {
      code: 1401,
      message: "unauthorized: userId does not match the session",
      data: null,
    });
  });

  it("answers a missing marketId with the spec's text/plain 400", async () => {
    const opened = await openSigned(platform, platform.partner, socketPaths.clobPriceUpdate, {
      query: { outcomeId: market.outcomeId },
    });
    assert.equal(opened.status, 400);
    assert.equal(opened.body, "Query deserialize error: missing field `marketId`");
  });

  it("answers an unknown market with 404/1404", async () => {
    const opened = await openSigned(platform, platform.partner, socketPaths.marketPrice, {
      query: { marketId: "999999" },
    });
    assert.equal(opened.status, 404);
    assert.deepEqual(envelope(opened.body), {
      code: 1404,
      message: "resource not found: Market not found",
      data: null,
    });
  });

  it("answers the book of a draft market with 200/4054, as GET /orderbook/book does", async () => {
    const draft = await platform.createDraftMarket();
    const opened = await openSigned(platform, platform.partner, socketPaths.clobPriceUpdate, {
      query: { marketId: draft.marketId, outcomeId: draft.outcomeId },
    });
    assert.equal(opened.status, 200);
    assert.equal(envelope(opened.body).code, 4054);
  });
});
