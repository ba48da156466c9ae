// The read routes the web console uses, over real sockets: the operator's lists on the admin host
// (partners without secrets, markets in every status, a market's resting orders, users with balances
// and sessions, deposits, categories offline too) and the public host's /console-api (categories,
// listed markets and search, one market with its asset ids, recent trades). Both hosts serve the
// console's page at `/` without credentials while the admin API stays guarded.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTradingPlatform, type TradingPlatform } from "./trading-fixtures.js";

let platform: TradingPlatform;

before(async () => {
  platform = await startTradingPlatform();
});
after(() => platform.close());

interface Envelope<Data> {
  code: number;
  message: string;
  data: Data;
}

async function adminData<Data>(path: string): Promise<Data> {
  const response = await platform.admin("GET", path);
  assert.equal(response.status, 200, response.text);
  return (response.json as Envelope<Data>).data;
}

async function publicData<Data>(path: string): Promise<Data> {
  const response = await platform.raw("public", { path });
  assert.equal(response.status, 200, response.text);
  return (response.json as Envelope<Data>).data;
}

describe("the operator's lists (admin host)", () => {
  it("lists partners newest first without any secret", async () => {
    const partner = await platform.createPartner({ name: "console-list-partner", commissionRate: "0.125" });
    const page = await adminData<{ total: number; records: Record<string, unknown>[] }>("/admin/partners");
    const listed = page.records.find((record) => record.merchantId === partner.merchantId);
    assert.deepEqual(Object.keys(listed ?? {}).sort(), [
      "appKey",
      "commissionRate",
      "createdAt",
      "merchantId",
      "name",
      "signedNonceRequired",
      "userCount",
      "webhookUrl",
    ]);
    assert.equal(listed?.commissionRate, "0.125");
    assert.equal(listed?.signedNonceRequired, false);
    assert.equal(listed?.appKey, partner.appKey);
    assert.equal(page.records[0]?.merchantId, partner.merchantId, "newest first");
    assert.ok(page.total >= 2);
  });

  it("lists markets in every status, drafts too, filtered by status and title", async () => {
    const draft = await platform.createMarket({ title: "Console draft: will snow fall in Lisbon?" });
    const open = await platform.openMarket({ title: "Console open: will the river freeze?" });
    const all = await adminData<{ records: { marketId: string; status: string; category: string }[] }>(
      "/admin/markets?pageSize=100",
    );
    assert.equal(all.records.find((record) => record.marketId === draft.marketId)?.status, "draft");
    assert.equal(all.records.find((record) => record.marketId === open.marketId)?.category, "Weather");
    const drafts = await adminData<{ records: { status: string }[] }>("/admin/markets?status=draft");
    assert.ok(drafts.records.length > 0 && drafts.records.every((record) => record.status === "draft"));
    const found = await adminData<{ total: number; records: { marketId: string }[] }>(
      `/admin/markets?keyword=${encodeURIComponent("snow fall")}`,
    );
    assert.deepEqual(
      found.records.map((record) => record.marketId),
      [draft.marketId],
    );
    const byId = await adminData<{ records: { marketId: string }[] }>(
      `/admin/markets?keyword=${open.marketId}`,
    );
    assert.ok(byId.records.some((record) => record.marketId === open.marketId));

    const refused = await platform.admin("GET", "/admin/markets?status=sideways");
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.json, {
      code: 1001,
      message: "bad request: status must be one of draft, open, closed, resolving, settled, void",
      data: null,
    });

    const detail = await adminData<{ status: string; title: string }>(`/admin/markets/${draft.marketId}`);
    assert.deepEqual([detail.status, detail.title], ["draft", "Console draft: will snow fall in Lisbon?"]);
    const missing = await platform.admin("GET", "/admin/markets/999999");
    assert.deepEqual([missing.status, (missing.json as Envelope<null>).code], [404, 1404]);
  });

  it("shows the orders resting in a market with their owners, and users with balances and sessions", async () => {
    const market = await platform.openMarket({ title: "Console orders: will the tram run late?" });
    const { client, userId } = await platform.fundedUser("100");
    const order = await client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.yes,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.3,
      shares: 20,
    });
    const orders = await adminData<{ total: number; records: Record<string, unknown>[] }>(
      `/admin/markets/${market.marketId}/orders`,
    );
    assert.equal(orders.total, 1);
    assert.deepEqual(
      [orders.records[0]?.orderId, orders.records[0]?.userId, orders.records[0]?.limitPrice],
      [order.orderId, userId, "0.3"],
    );
    assert.equal(orders.records[0]?.remainingShares, "20");
    const none = await platform.admin("GET", "/admin/markets/999999/orders");
    assert.equal(none.status, 404);

    const users = await adminData<{ records: Record<string, unknown>[] }>(`/admin/users?keyword=${userId}`);
    const user = users.records.find((record) => record.userId === userId);
    // 100 deposited, 0.3 × 20 = 6 frozen in the resting BUY.
    assert.deepEqual([user?.available, user?.frozen, user?.activeSessions], ["94", "6", 1]);
    await platform.revokeSessions(userId);
    const after = await adminData<{ records: Record<string, unknown>[] }>(`/admin/users?keyword=${userId}`);
    assert.equal(after.records.find((record) => record.userId === userId)?.activeSessions, 0);
    const ofNobody = await adminData<{ total: number }>("/admin/users?merchantId=999999");
    assert.equal(ofNobody.total, 0);
  });

  it("lists deposits newest first, for everyone or one user", async () => {
    const { userId } = await platform.fundedUser("25");
    const mine = await adminData<{
      total: number;
      records: { userId: string; amount: string; txHash: string }[];
    }>(`/admin/deposits?userId=${userId}`);
    assert.equal(mine.total, 1);
    assert.deepEqual([mine.records[0]?.userId, mine.records[0]?.amount], [userId, "25"]);
    const everyone = await adminData<{ total: number }>("/admin/deposits");
    assert.ok(everyone.total > 1);
  });

  it("lists categories with the offline ones, and hides deleted ones unless asked", async () => {
    const offline = await platform.operator.createCategory({ name: "Console offline" });
    await platform.admin("PATCH", `/admin/categories/${offline.id}`, { online: false });
    const gone = await platform.operator.createCategory({ name: "Console deleted" });
    await platform.admin("DELETE", `/admin/categories/${gone.id}`);
    const listed = await adminData<{ id: string; online: boolean }[]>("/admin/categories");
    assert.equal(listed.find((category) => category.id === offline.id)?.online, false);
    assert.equal(
      listed.some((category) => category.id === gone.id),
      false,
    );
    const withDeleted = await adminData<{ id: string; deleted: boolean }[]>(
      "/admin/categories?includeDeleted=true",
    );
    assert.equal(withDeleted.find((category) => category.id === gone.id)?.deleted, true);
  });

  it("keeps every list behind the admin token, and serves the desk's page without it", async () => {
    for (const path of [
      "/admin/partners",
      "/admin/markets",
      "/admin/users",
      "/admin/deposits",
      "/admin/categories",
    ]) {
      const response = await platform.raw("admin", { path });
      assert.equal(response.status, 401, path);
    }
    const page = await platform.raw("admin", { path: "/" });
    assert.ok(page.status === 200 || page.status === 503, String(page.status));
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(page.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
  });
});

describe("the market pages' routes (public host)", () => {
  it("lists markets by category and finds them by keyword, never a draft", async () => {
    const category = await platform.operator.createCategory({ name: "Console public" });
    const open = await platform.openMarket({
      title: "Console listed: will the ferry sail?",
      categoryId: category.id,
    });
    const draft = await platform.createMarket({
      title: "Console hidden: will the ferry sink?",
      categoryId: category.id,
    });
    const tree = await publicData<{ id: string; nameDisplay: string }[]>(
      "/console-api/categories?language=en-US",
    );
    assert.ok(tree.some((node) => node.id === category.id && node.nameDisplay === "Console public"));

    const listed = await publicData<{ total: number; records: { marketId: string }[] }>(
      `/console-api/markets?categoryId=${category.id}`,
    );
    assert.deepEqual(
      listed.records.map((record) => record.marketId),
      [open.marketId],
    );
    const found = await publicData<{ records: { marketId: string }[] }>("/console-api/markets?keyword=ferry");
    assert.deepEqual(
      found.records.map((record) => record.marketId),
      [open.marketId],
    );
    assert.notEqual(draft.marketId, open.marketId);

    const badPage = await platform.raw("public", { path: "/console-api/markets?page=0" });
    assert.deepEqual(
      [badPage.status, (badPage.json as Envelope<null>).message],
      [400, "bad request: page must be >= 1"],
    );
    const badLanguage = await platform.raw("public", { path: "/console-api/categories?language=xx" });
    assert.equal(badLanguage.status, 400);
  });

  it("gives one market with the asset id of each option, and its latest trades in an option's terms", async () => {
    const market = await platform.openMarket({ title: "Console trades: will the bridge open?" });
    const seller = await platform.fundedUser("100");
    const buyer = await platform.fundedUser("100");
    const order = (client: typeof seller.client, optionId: string, limitPrice: number, shares: number) =>
      client.createOrder({
        marketId: market.marketId,
        outcomeId: market.outcomeId,
        optionId,
        side: "BUY",
        orderType: "LIMIT",
        limitPrice,
        shares,
      });
    // A No buyer at 0.35 rests as a Yes ask at 0.65; a Yes buyer at 0.65 takes it (a mint).
    await order(seller.client, market.no, 0.35, 10);
    await order(buyer.client, market.yes, 0.65, 4);

    const found = await publicData<{
      market: { marketId: string; title: string };
      assets: { outcomeId: string; optionId: string; optionIndex: number; assetId: string }[];
      exclusive: boolean;
    }>(`/console-api/markets/${market.marketId}`);
    assert.equal(found.market.title, "Console trades: will the bridge open?");
    assert.equal(found.exclusive, false);
    assert.deepEqual(
      found.assets.map((asset) => [asset.optionId, asset.optionIndex]),
      [
        [market.yes, 0],
        [market.no, 1],
      ],
    );
    for (const asset of found.assets) {
      const history = await platform.raw("public", {
        path: `/prices-history?market=${asset.assetId}&interval=1d`,
      });
      assert.equal(history.status, 200, "the asset id is the one /prices-history knows");
    }

    const yes = await publicData<{ price: string; shares: string; side: string }[]>(
      `/console-api/markets/${market.marketId}/trades`,
    );
    assert.deepEqual(yes, [{ ...yes[0]!, price: "0.65", shares: "4", side: "BUY" }]);
    const no = await publicData<{ price: string; side: string }[]>(
      `/console-api/markets/${market.marketId}/trades?optionId=${market.no}`,
    );
    assert.deepEqual([no[0]?.price, no[0]?.side], ["0.35", "SELL"]);

    const unknown = await platform.raw("public", { path: "/console-api/markets/999999" });
    assert.deepEqual([unknown.status, (unknown.json as Envelope<null>).code], [404, 1404]);
    const wrongOption = await platform.raw("public", {
      path: `/console-api/markets/${market.marketId}/trades?optionId=999999`,
    });
    assert.equal(wrongOption.status, 404);
  });

  it("serves the market pages at / without credentials", async () => {
    const page = await platform.raw("public", {
      path: "/",
      headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
    });
    assert.ok(page.status === 200 || page.status === 503, String(page.status));
    assert.match(page.text, /predex/);
  });
});
