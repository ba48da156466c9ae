// The legacy catalogue reads (spec 001 steps 2–4, DESIGN §8) through the legacy SDK: categories
// without credentials, the market list's filters and pagination, the outcome details, top holders
// with marketId in the query string, and notification list access rules.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LegacyClient } from "../../src/sdk/legacy/client.js";
import {
  type LegacyPlatform,
  type Merchant,
  mintPairs,
  refusal,
  startLegacyPlatform,
} from "../legacy/fixtures.js";

let platform: LegacyPlatform;
let merchant: Merchant;
let client: LegacyClient;
before(async () => {
  platform = await startLegacyPlatform();
  merchant = await platform.createMerchant();
  client = await platform.fundedLegacyUser(merchant, "50");
});
after(() => platform.close());

async function legacyGet(path: string, token?: string) {
  return platform.raw("legacy", {
    path,
    ...(token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }),
  });
}

describe("GET /api/market/openapi/category", () => {
  it("lists every visible category, parents before children, with numeric ids and no credentials", async () => {
    const parent = await platform.operator.createCategory({ name: "Sports" });
    const child = await platform.operator.createCategory({ name: "Football", parentId: parent.id });
    const response = await legacyGet("/api/market/openapi/category");
    assert.equal(response.status, 200);
    const body = response.json as { code: number; msg: string; data: { id: number; name: string }[] };
    assert.equal(body.code, 200);
    assert.equal(body.msg, "success");
    const ids = body.data.map((category) => category.id);
    assert.ok(ids.indexOf(Number(parent.id)) < ids.indexOf(Number(child.id)));
    assert.deepEqual(body.data[ids.indexOf(Number(child.id))], { id: Number(child.id), name: "Football" });
    assert.deepEqual(await client.getCategories(), body.data);
  });
});

describe("GET /api/market/openapi/market/list", () => {
  it("pages markets beside data, filters by category, status and keyword, with or without a JWT", async () => {
    const category = await platform.operator.createCategory({ name: `Listing ${process.pid}` });
    const first = await platform.openMarket({ title: "Alpha listing market", categoryId: category.id });
    const second = await platform.openMarket({ title: "Beta listing market", categoryId: category.id });
    await platform.operator.closeMarket(second.marketId);
    await platform.createMarket({ title: "Gamma draft market", categoryId: category.id });

    const all = await client.getMarketList({ categoryId: Number(category.id), pageSize: 1 });
    assert.equal(all.total, 2, "the draft is not listed");
    assert.equal(all.totalRow, 2);
    assert.equal(all.pages, 2);
    assert.equal(all.size, 1);
    assert.equal(all.empty, false);
    const anonymous = await client.getMarketList(
      { categoryId: Number(category.id), status: "closed" },
      { anonymous: true },
    );
    assert.deepEqual(
      anonymous.records.map((record) => record.marketId),
      [Number(second.marketId)],
    );
    const record = anonymous.records[0]!;
    assert.equal(record.categoryId, Number(category.id));
    assert.equal(record.coinId, 2);
    assert.equal(typeof record.outcomes[0]!.outcomeId, "number");
    assert.match(record.startTime, /^\d{4}-\d{2}-\d{2}T/);
    const searched = await client.getMarketList({
      keyword: "alpha listing",
      categoryId: Number(category.id),
    });
    assert.deepEqual(
      searched.records.map((found) => found.marketId),
      [Number(first.marketId)],
    );
    const beyond = await client.getMarketList({ categoryId: Number(category.id), page: 9 });
    assert.equal(beyond.empty, true);
    assert.deepEqual(beyond.records, []);
    const capped = await client.getMarketList({ pageSize: 500 });
    assert.equal(capped.size, 100);
  });

  it("answers a bad filter with 400 and a bad token with 401", async () => {
    assert.deepEqual(await refusal(client.getMarketList({ status: "draft" })), [400, 400, "parameter error"]);
    assert.deepEqual(await refusal(client.getMarketList({ page: 0 })), [400, 400, "parameter error"]);
    const forged = await legacyGet("/api/market/openapi/market/list", "not-a-token");
    assert.equal(forged.status, 401);
    assert.deepEqual(forged.json, {
      code: 401,
      msg: "invalid token / token has expired",
      data: { errorCode: 401 },
    });
  });
});

describe("GET /api/market/openapi/{marketId}/outcome", () => {
  it("gives the details with outcomes, options and prices; unknown is 404 3009", async () => {
    const market = await platform.openMarket({ title: "Outcome details market" });
    const detail = await client.getMarketOutcome(Number(market.marketId), { anonymous: true });
    assert.equal(detail.marketId, Number(market.marketId));
    assert.equal(detail.status, "open");
    assert.equal(detail.creatorId, 0);
    const [yes, no] = detail.outcomes[0]!.options;
    assert.deepEqual(
      [yes!.optionId, yes!.optionIndex, yes!.price, yes!.isWin],
      [Number(market.yes), 0, 0.5, null],
    );
    assert.equal(no!.optionIndex, 1);
    assert.deepEqual(await refusal(client.getMarketOutcome(999_999)), [404, 3009, "market does not exist"]);
    const malformed = await legacyGet("/api/market/openapi/abc/outcome");
    assert.equal(malformed.status, 400);
  });
});

describe("GET /api/market/openapi/top-holders", () => {
  it("lists holders by option; marketId is required in the query string", async () => {
    const market = await platform.openMarket({ title: "Holders market" });
    const buyer = await platform.fundedLegacyUser(merchant, "20");
    const seller = await platform.fundedLegacyUser(merchant, "20");
    await mintPairs(market, buyer, seller, { price: 0.5, yesAmount: 2, noAmount: 2 });

    const holders = await client.getTopHolders(Number(market.marketId), { anonymous: true });
    const yesOption = holders[0]!.options.find((option) => option.optionId === Number(market.yes))!;
    assert.deepEqual(
      yesOption.holders.map((holder) => [holder.userId, holder.shares]),
      [[buyer.userId, 4]],
    );
    const missing = await legacyGet("/api/market/openapi/top-holders");
    assert.equal(missing.status, 400);
    assert.deepEqual((missing.json as { data: unknown }).data, {
      errorCode: 400,
      field: "marketId",
      reason: "is required",
    });
    assert.equal((await legacyGet("/api/market/openapi/top-holders?marketId=x1")).status, 400);
    assert.deepEqual(await refusal(client.getTopHolders(999_999)), [404, 3009, "market does not exist"]);
  });
});

describe("GET /api/user/notification/list", () => {
  it("notifies a holder when its market is voided", async () => {
    const market = await platform.openMarket({ title: "Voided notification market" });
    const holder = await platform.fundedLegacyUser(merchant, "10");
    const counterpart = await platform.fundedLegacyUser(merchant, "10");
    await mintPairs(market, holder, counterpart, { price: 0.5, yesAmount: 1, noAmount: 1 });
    await platform.operator.voidMarket(market.marketId);
    const [voided] = (await holder.getNotifications({ pageSize: 1 })).records;
    assert.equal(voided!.type, "MARKET_VOIDED");
    assert.equal(voided!.title, "Market voided: Voided notification market");
    assert.deepEqual(JSON.parse(voided!.content).winners, []);
    assert.equal(JSON.parse(voided!.content).claimable, 1);
  });

  it("needs a JWT and userId, and shows only the token's own user", async () => {
    const other = await platform.fundedLegacyUser(merchant, "0");
    assert.equal((await client.getNotifications()).total, 0);
    assert.deepEqual(await refusal(client.getNotifications({ userId: other.userId! })), [
      404,
      3005,
      "user is not exist / email not registered",
    ]);
    const missing = await legacyGet("/api/user/notification/list", client.token);
    assert.equal(missing.status, 400);
    assert.equal((await legacyGet(`/api/user/notification/list?userId=${client.userId}`)).status, 401);
  });
});
