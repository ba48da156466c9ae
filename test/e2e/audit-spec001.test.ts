// Black-box audit of the legacy interface against spec 001 (the earlier token-authenticated
// interface): the mismatches found, each pinned over real HTTP, plus the contract points the audit
// checked that no other legacy test pins (nonce length bounds, header-before-signature order,
// malformed input never answered outside the envelope).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { signAuthorizeRequest } from "../../src/sdk/legacy/signer.js";
import { type LegacyPlatform, type Merchant, startLegacyPlatform } from "../legacy/fixtures.js";
import type { RawResponse } from "./harness.js";
import type { BinaryMarket } from "./trading-fixtures.js";

const authorizePath = "/api/user/openapi/authorize";
const submitPath = "/api/order/openapi/order/submit";
const claimPath = "/api/order/openapi/order/claim";
const monthlyBillPath = "/api/order/openapi/merchant-commission-bill/query/month";
const positionsPath = "/api/order/openapi/positions";

let platform: LegacyPlatform;
let merchant: Merchant;
let market: BinaryMarket;
let token: string;

before(async () => {
  platform = await startLegacyPlatform();
  merchant = await platform.createMerchant();
  market = await platform.openMarket({ title: "Audit spec 001 market" });
  const client = await platform.fundedLegacyUser(merchant, "100");
  token = client.token!;
});
after(() => platform.close());

/** The envelope of a legacy error: [HTTP status, code, msg, data.errorCode]. */
function envelope(response: RawResponse): [number, unknown, unknown, unknown] {
  const body = response.json as { code?: unknown; msg?: unknown; data?: { errorCode?: unknown } } | undefined;
  assert.ok(body !== undefined && typeof body === "object", `not JSON: ${response.text}`);
  return [response.status, body.code, body.msg, body.data?.errorCode];
}

function post(path: string, body: string, bearer?: string) {
  return platform.raw("legacy", {
    method: "POST",
    path,
    headers: {
      "content-type": "application/json",
      ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
    },
    body,
  });
}

function get(path: string, bearer?: string) {
  return platform.raw("legacy", {
    path,
    headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` },
  });
}

function signedAuthorize(overrides: { nonce?: string; timestampMs?: number } = {}) {
  const body = JSON.stringify({ marchantUserId: `audit-${process.pid}`, merchantId: merchant.merchantId });
  const { headers } = signAuthorizeRequest({
    apiKey: merchant.apiKey,
    privateKey: merchant.privateKey,
    method: "POST",
    pathAndQuery: authorizePath,
    body,
    ...overrides,
  });
  return platform.raw("legacy", { method: "POST", path: authorizePath, headers, body });
}

describe("authorize (spec 001 Authentication, DESIGN §8)", () => {
  it("takes nonces of exactly 16 and 64 characters and refuses 15 and 65 as a validation error", async () => {
    const stamp = String(Date.now()).padStart(16, "0");
    assert.equal((await signedAuthorize({ nonce: stamp.slice(-16) })).status, 200);
    assert.equal((await signedAuthorize({ nonce: `${stamp}${"n".repeat(48)}` })).status, 200);
    for (const nonce of ["n".repeat(15), "m".repeat(65)]) {
      assert.deepEqual(envelope(await signedAuthorize({ nonce })), [400, 400, "parameter error", 400]);
    }
  });

  it("checks the headers before the clock: a bad nonce with a stale timestamp is 400, not 401", async () => {
    const response = await signedAuthorize({ nonce: "short", timestampMs: Date.now() - 3_600_000 });
    assert.deepEqual(envelope(response), [400, 400, "parameter error", 400]);
  });

  it("answers {token, expiresIn: 86400, userId} with userId a number", async () => {
    const response = await signedAuthorize();
    const body = response.json as { code: number; msg: string; data: Record<string, unknown> };
    assert.deepEqual([response.status, body.code, body.msg], [200, 200, "success"]);
    assert.deepEqual(Object.keys(body.data).sort(), ["expiresIn", "token", "userId"]);
    assert.equal(body.data.expiresIn, 86_400);
    assert.equal(typeof body.data.userId, "number");
  });
});

describe("JWT routes: a missing token is 401 before the body or query is looked at", () => {
  // Spec 001: "Invalid or expired tokens give HTTP 401". Found: a malformed body without a token
  // was 400 (the schema ran before the token check) on submit, claim, bill, positions, activity.
  for (const [label, request] of [
    ["submit, body an array", () => post(submitPath, "[]")],
    ["submit, body not JSON", () => post(submitPath, "{oops")],
    ["claim, marketId a string", () => post(claimPath, JSON.stringify({ marketId: "1" }))],
    ["monthly bill, body an array", () => post(monthlyBillPath, "[]")],
    ["positions, page not an integer", () => post(positionsPath, JSON.stringify({ page: "x" }))],
    ["activity, page not an integer", () => get("/api/order/openapi/query-user-activity?page=abc")],
    ["result, id too long", () => get(`/api/user/openapi/request/result/${"x".repeat(200)}`)],
  ] as const) {
    it(label, async () => {
      assert.deepEqual(envelope(await request()), [401, 401, "invalid token / token has expired", 401]);
    });
  }

  it("the anonymous-or-JWT reads still refuse a bad token with 401 before a bad query", async () => {
    const response = await get("/api/market/openapi/market/list?page=0", "not-a-token");
    assert.deepEqual(envelope(response), [401, 401, "invalid token / token has expired", 401]);
  });

  it("with a valid token the same malformed input is still 400 parameter error", async () => {
    assert.deepEqual(envelope(await post(submitPath, "[]", token)), [400, 400, "parameter error", 400]);
  });
});

describe("paths the router refuses are answered in the legacy envelope", () => {
  // Found: Fastify's own body `{error, code: "FST_ERR_…", message, statusCode}` with HTTP 414 for
  // a path parameter over 100 characters, and 400 for a bad %-escape.
  it("a request id of 101 to 128 characters reaches the route: 404 Request not found", async () => {
    const response = await get(`/api/user/openapi/request/result/${"r".repeat(128)}`, token);
    assert.deepEqual(envelope(response), [404, 404, "Request not found", 404]);
  });

  it("a request id over 128 characters is 400 parameter error", async () => {
    const response = await get(`/api/user/openapi/request/result/${"r".repeat(200)}`, token);
    assert.deepEqual(envelope(response), [400, 400, "parameter error", 400]);
  });

  it("a path segment over 256 characters is 400 parameter error, not Fastify's 414", async () => {
    for (const path of [
      `/api/user/openapi/request/result/${"r".repeat(1000)}`,
      `/api/market/openapi/${"1".repeat(1000)}/outcome`,
    ]) {
      const response = await get(path, token);
      assert.deepEqual(envelope(response), [400, 400, "parameter error", 400]);
      assert.ok(!response.text.includes("FST_ERR"), response.text);
    }
  });

  it("a malformed %-escape is 400 parameter error in the envelope", async () => {
    for (const path of ["/api/user/openapi/request/result/%zz", "/api/market/openapi/%zz/outcome"]) {
      const response = await get(path, token);
      assert.deepEqual(envelope(response), [400, 400, "parameter error", 400]);
      assert.ok(!response.text.includes("FST_ERR"), response.text);
    }
  });
});

describe("monthly bill: every 400 says `Invalid request parameters` (spec 001 per-endpoint messages)", () => {
  // Found: a body that is not a JSON object was `parameter error`, unlike every other 400 of it.
  for (const [label, body] of [
    ["body an array", "[]"],
    ["body null", "null"],
    ["body not JSON", "{oops"],
    ["body a number", "202611"],
  ] as const) {
    it(label, async () => {
      assert.deepEqual(envelope(await post(monthlyBillPath, body, token)), [
        400,
        400,
        "Invalid request parameters",
        400,
      ]);
    });
  }

  it("no body at all", async () => {
    const response = await platform.raw("legacy", {
      method: "POST",
      path: monthlyBillPath,
      headers: { authorization: `Bearer ${token}` },
    });
    assert.deepEqual(envelope(response), [400, 400, "Invalid request parameters", 400]);
  });
});

describe("order submit: nasty input is a 4xx in the envelope, never a 500", () => {
  const order = () => ({
    marketId: Number(market.marketId),
    outcomeId: Number(market.outcomeId),
    optionId: Number(market.yes),
    direction: "BUY",
    orderType: "MARKET",
  });
  type Order = ReturnType<typeof order>;
  for (const [label, build, expected] of [
    [
      "ids as strings",
      (o: Order) => ({ ...o, marketId: market.marketId, amount: 10 }),
      [400, 400, "parameter error", 400],
    ],
    ["id 1e20", (o: Order) => ({ ...o, marketId: 1e20, amount: 10 }), [400, 400, "parameter error", 400]],
    ["amount 1e300", (o: Order) => ({ ...o, amount: 1e300 }), [422, 422, "amount not in range", 5003]],
    ["amount 1e-300", (o: Order) => ({ ...o, amount: 1e-300 }), [400, 400, "amount precision error", 5005]],
    ["amount negative", (o: Order) => ({ ...o, amount: -5 }), [422, 422, "amount not in range", 5003]],
    ["amount a boolean", (o: Order) => ({ ...o, amount: true }), [400, 400, "parameter error", 400]],
    [
      "SELL shares 1e7",
      (o: Order) => ({ ...o, direction: "SELL", shares: 1e7 }),
      [422, 422, "share is too large", 5008],
    ],
    [
      "SELL shares 9 decimals",
      (o: Order) => ({ ...o, direction: "SELL", shares: 1.123456789 }),
      [400, 400, "share precision error", 5006],
    ],
    [
      "direction 100,000 characters",
      (o: Order) => ({ ...o, direction: "B".repeat(100_000), amount: 10 }),
      [400, 400, "parameter error", 400],
    ],
    [
      "PARIMUTUEL on an orderbook market",
      (o: Order) => ({ ...o, orderType: "PARIMUTUEL", amount: 10 }),
      [400, 400, "parameter error", 400],
    ],
  ] as const) {
    it(label, async () => {
      assert.deepEqual(envelope(await post(submitPath, JSON.stringify(build(order())), token)), expected);
    });
  }
});
