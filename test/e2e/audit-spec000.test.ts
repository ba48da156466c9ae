// A black-box audit of the signed host against spec 000 and DESIGN §6/§8: the answers a partner
// gets for the requests its integration should never send (overlong or malformed path segments,
// claim lists of the wrong shape), plus the spec's own error rows and page rules as regressions.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type PartnerCredentials,
  type RawResponse,
  startTestPlatform,
  type TestPlatform,
} from "./harness.js";

let platform: TestPlatform;
let partner: PartnerCredentials;
let cookie: string;

before(async () => {
  platform = await startTestPlatform();
  partner = await platform.createPartner();
  const { client } = await platform.registeredUser({ partner });
  cookie = client.sessionCookie!;
});
after(() => platform.close());

function assertEnvelope(response: RawResponse, status: number, code: number, message?: string): void {
  assert.equal(response.status, status, response.text);
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
  const body = response.json as { code: unknown; message: unknown; data: unknown };
  assert.deepEqual(Object.keys(body).sort(), ["code", "data", "message"]);
  assert.equal(body.code, code);
  assert.equal(body.data, null);
  if (message !== undefined) assert.equal(body.message, message);
}

describe("path segments the router refuses", () => {
  it("an overlong path parameter is a 400/1001 envelope, not Fastify's 414 body", async () => {
    for (const path of [`/markets/${"9".repeat(300)}/detail`, `/user/${"x".repeat(300)}`]) {
      const response = await platform.signed(partner, { path });
      assertEnvelope(response, 400, 1001);
      assert.match((response.json as { message: string }).message, /^bad request: /);
    }
  });

  it("a malformed %-escape in a path parameter is a 400/1001 envelope", async () => {
    const response = await platform.signed(partner, { path: "/markets/%E0%A4%A/detail" });
    assertEnvelope(response, 400, 1001);
  });
});

describe("POST /ordering/claim_all with elements that are not ids", () => {
  for (const element of [{}, null, [], true]) {
    it(`refuses the whole list when an element is ${JSON.stringify(element)}`, async () => {
      const response = await platform.signed(partner, {
        method: "POST",
        path: "/ordering/claim_all",
        body: JSON.stringify({ positionIdList: ["1", element] }),
        cookie,
      });
      assertEnvelope(response, 400, 1001);
      assert.match(
        (response.json as { message: string }).message,
        /^bad request: Missing or invalid positionIdList/,
      );
    });
  }

  it("still answers per position for strings and numbers that name no position", async () => {
    const response = await platform.signed(partner, {
      method: "POST",
      path: "/ordering/claim_all",
      body: JSON.stringify({ positionIdList: ["999999", 999998, "abc"] }),
      cookie,
    });
    assert.equal(response.status, 200, response.text);
    const { data } = response.json as {
      data: { claimedAmount: string; results: Array<{ positionId: string; error?: { code: number } }> };
    };
    assert.equal(data.claimedAmount, "0");
    assert.deepEqual(
      data.results.map((result) => [result.positionId, result.error?.code]),
      [
        ["999999", 1404],
        ["999998", 1404],
        ["abc", 1001],
      ],
    );
  });
});

describe("spec 000 error rows (regressions)", () => {
  it("claim without a positionId, and a LIMIT order without a numeric limitPrice", async () => {
    const claim = await platform.signed(partner, {
      method: "POST",
      path: "/ordering/claim",
      body: "{}",
      cookie,
    });
    assertEnvelope(claim, 400, 1001, "bad request: Missing or invalid positionId field");
    const order = await platform.signed(partner, {
      method: "POST",
      path: "/ordering/create-order",
      body: JSON.stringify({
        marketId: "1",
        outcomeId: "1",
        optionId: "1",
        side: "BUY",
        orderType: "LIMIT",
        shares: 1,
        limitPrice: "0.5",
      }),
      cookie,
    });
    assertEnvelope(order, 400, 1001, "bad request: LIMIT order requires numeric limitPrice");
  });

  it("missing cookie, dead session, unknown user, unknown route, text/plain body", async () => {
    assertEnvelope(
      await platform.signed(partner, { path: "/user/profile" }),
      401,
      1401,
      "unauthorized: Missing Cookie header",
    );
    assertEnvelope(
      await platform.signed(partner, { path: "/user/profile", cookie: "predex_session=not-a-session" }),
      401,
      1401,
      "unauthorized: Invalid or expired session",
    );
    assertEnvelope(
      await platform.signed(partner, { path: "/user/99999999" }),
      404,
      1404,
      "resource not found: User not found",
    );
    assertEnvelope(await platform.signed(partner, { path: "/no/such/route" }), 404, 1404);
    assertEnvelope(
      await platform.signed(partner, {
        method: "POST",
        path: "/ordering/open-orders",
        body: "page=1",
        contentType: "text/plain",
        cookie,
      }),
      415,
      1415,
    );
  });

  it("open orders: pageSize above 100 is truncated, page 0 is 400/1001, fields beside data", async () => {
    const big = await platform.signed(partner, {
      method: "POST",
      path: "/ordering/open-orders",
      body: '{"pageSize":1000}',
      cookie,
    });
    assert.equal(big.status, 200, big.text);
    const body = big.json as Record<string, unknown>;
    assert.deepEqual(
      { current: body.current, size: body.size, total: body.total, pages: body.pages, data: body.data },
      { current: 1, size: 100, total: 0, pages: 0, data: [] },
    );
    assertEnvelope(
      await platform.signed(partner, {
        method: "POST",
        path: "/ordering/open-orders",
        body: '{"page":0}',
        cookie,
      }),
      400,
      1001,
    );
  });

  it("a query that cannot be deserialized is text/plain 400", async () => {
    const response = await platform.signed(partner, { path: "/orderbook/book", cookie });
    assert.equal(response.status, 400);
    assert.match(response.headers.get("content-type") ?? "", /^text\/plain/);
    assert.match(response.text, /marketId/);
  });
});

describe("integer query fields take integer literals only", () => {
  it("page=1.5 or pageSize=2e1 is a text/plain 400 naming the field, not silently page 1", async () => {
    for (const [path, query, field] of [
      ["/markets/list", { page: "1.5" }, "page"],
      ["/markets/list", { pageSize: "2e1" }, "pageSize"],
      ["/trades", { page: "0x2" }, "page"],
      ["/account/history", { pageSize: "10.0" }, "pageSize"],
    ] as const) {
      const response = await platform.signed(partner, { path, query, cookie });
      assert.equal(response.status, 400, `${path} ${JSON.stringify(query)}: ${response.text}`);
      assert.match(response.headers.get("content-type") ?? "", /^text\/plain/);
      assert.match(response.text, new RegExp(`\`${field}\``));
    }
    const fine = await platform.signed(partner, {
      path: "/markets/list",
      query: { page: "2", pageSize: "+5" },
    });
    assert.equal(fine.status, 200, fine.text);
    assert.deepEqual(
      [
        (fine.json as { data: { current: number; size: number } }).data.current,
        (fine.json as { data: { size: number } }).data.size,
      ],
      [2, 5],
    );
  });
});
