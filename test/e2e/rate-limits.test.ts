// Rate limits on a real platform whose clock the test holds still and moves (no sleeping):
// the legacy interface's 50 requests per second per merchant (by JWT, by API key on authorize, by
// address without credentials) with its exact 429, and a partner's own limit on the signed host,
// set by the operator and answered 502/2002 with Retry-After.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { legacyPaths } from "../../src/contract/legacy/paths.js";
import { type LegacyPlatform, type Merchant, refusal, startLegacyPlatform } from "../legacy/fixtures.js";
import { startTradingPlatform } from "./trading-fixtures.js";

let nowMs = Date.now();
let platform: LegacyPlatform;
before(async () => {
  platform = await startLegacyPlatform(startTradingPlatform({ platform: { nowMs: () => nowMs } }));
});
after(() => platform.close());

describe("legacy rate limit (@fastify/rate-limit)", () => {
  let merchant: Merchant;
  let token: string;
  before(async () => {
    merchant = await platform.createMerchant();
    nowMs += 1_000; // a fresh window, whatever creating the merchant counted
    ({ token } = await platform.legacyClient(merchant).authorize());
  });
  const withToken = (bearer: string) =>
    platform.raw("legacy", {
      path: legacyPaths.requestResult("x"),
      headers: { authorization: `Bearer ${bearer}` },
    });

  it("allows 50 requests in a second for a merchant, then answers 429 with the spec's body until the window ends", async () => {
    nowMs += 1_000;
    for (let index = 0; index < 50; index += 1)
      assert.notEqual((await withToken(token)).status, 429, `request ${index + 1}`);
    const limited = await withToken(token);
    assert.equal(limited.status, 429);
    assert.deepEqual(limited.json, {
      code: 429,
      msg: "Too many requests",
      data: { retryAfter: 1, limit: 50, window: "1s" },
    });
    assert.equal(limited.headers.get("retry-after"), "1");

    // The same merchant's authorize (keyed by its API key) shares the budget.
    assert.deepEqual((await refusal(platform.legacyClient(merchant).authorize()))[0], 429);

    nowMs += 999;
    assert.equal((await withToken(token)).status, 429, "still inside the window");
    nowMs += 1;
    assert.notEqual((await withToken(token)).status, 429, "a new window");
  });

  it("counts calls without credentials by client address, apart from the merchants' budgets", async () => {
    nowMs += 1_000;
    const anonymous = () => platform.raw("legacy", { path: legacyPaths.requestResult("x") });
    for (let index = 0; index < 50; index += 1) assert.notEqual((await anonymous()).status, 429);
    const limited = await anonymous();
    assert.equal(limited.status, 429);
    assert.deepEqual((limited.json as { data: unknown }).data, { retryAfter: 1, limit: 50, window: "1s" });
    assert.notEqual((await withToken(token)).status, 429, "the merchant's own budget is untouched");
  });
});

describe("a partner's own limit on the signed host", () => {
  it("is set by the operator, refuses the request over it with 502/2002 and Retry-After, and can be removed", async () => {
    const limited = await platform.createPartner();
    const other = await platform.createPartner();
    const set = await platform.admin("POST", `/admin/partners/${limited.merchantId}/rate-limit`, {
      rateLimitPerSecond: 3,
    });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.json, {
      code: 0,
      message: "ok",
      data: { merchantId: limited.merchantId, rateLimitPerSecond: 3 },
    });
    const read = await platform.admin("GET", `/admin/partners/${limited.merchantId}/rate-limit`);
    assert.deepEqual((read.json as { data: unknown }).data, {
      merchantId: limited.merchantId,
      rateLimitPerSecond: 3,
    });

    nowMs += 1_000;
    const categories = (partner: typeof limited) =>
      platform.signed(partner, { path: "/markets/category-tree" });
    for (let index = 0; index < 3; index += 1) assert.equal((await categories(limited)).status, 200);
    const refused = await categories(limited);
    assert.equal(refused.status, 502);
    assert.deepEqual(refused.json, {
      code: 2002,
      message: "upstream unavailable: rate limit of 3 requests per second exceeded, retry after 1s",
      data: null,
    });
    assert.equal(refused.headers.get("retry-after"), "1");
    // Other partners have no limit of their own.
    for (let index = 0; index < 5; index += 1) assert.equal((await categories(other)).status, 200);

    nowMs += 1_000;
    assert.equal((await categories(limited)).status, 200, "a new window");

    const removed = await platform.admin("POST", `/admin/partners/${limited.merchantId}/rate-limit`, {
      rateLimitPerSecond: null,
    });
    assert.equal(removed.status, 200);
    for (let index = 0; index < 6; index += 1) assert.equal((await categories(limited)).status, 200);
  });

  it("refuses a limit that is not a positive integer, and an unknown partner", async () => {
    const partner = await platform.createPartner();
    for (const rateLimitPerSecond of [0, -1, 2.5, "10"]) {
      const response = await platform.admin("POST", `/admin/partners/${partner.merchantId}/rate-limit`, {
        rateLimitPerSecond,
      });
      assert.equal(response.status, 400, String(rateLimitPerSecond));
      assert.equal((response.json as { code: number }).code, 1001);
    }
    const unknown = await platform.admin("POST", "/admin/partners/999999/rate-limit", {
      rateLimitPerSecond: 5,
    });
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.json, {
      code: 1404,
      message: "resource not found: Partner not found",
      data: null,
    });
  });
});
