// The category tree (spec 000 rules 1–5) and search (DESIGN §8) through the SDK on a real server:
// online, non-deleted nodes with the spec's types; language, Accept-Language q-weights and the
// nameDisplay fallbacks; 400/1001 for a bad language or category1Id; search ranked by bm25 with
// titles first, Creator search, pagination beside `data`, and no query syntax that can cause a 500.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PredexClient } from "../../src/sdk/client.js";
import { PredexApiError } from "../../src/sdk/errors.js";
import { assertCategoryNode, assertListRecord } from "./catalogue-contract.js";
import { startTradingPlatform, type TradingPlatform } from "./trading-fixtures.js";

const rejectsWith = (status: number, code: number) => (error: unknown) => {
  assert.ok(error instanceof PredexApiError, String(error));
  assert.deepEqual([error.status, error.code], [status, code]);
  return true;
};

describe("category tree", () => {
  let platform: TradingPlatform;
  let client: PredexClient;
  const ids: Record<string, string> = {};

  before(async () => {
    platform = await startTradingPlatform();
    client = (await platform.fundedUser("0")).client;
    const create = async (
      key: string,
      body: Parameters<TradingPlatform["operator"]["createCategory"]>[0],
    ) => {
      ids[key] = (await platform.operator.createCategory(body)).id;
    };
    await create("sports", {
      name: "sports",
      names: { "en-US": "Sports", "zh-CN": "体育", "ko-KR": "스포츠" },
      logoUrl: "https://img.example/sports.png",
    });
    await create("football", { name: "football", parentId: ids.sports!, names: { "en-US": "Football" } });
    await create("cup", { name: "world-cup", parentId: ids.football! });
    await create("offline", { name: "offline", parentId: ids.sports! });
    await create("deleted", { name: "deleted" });
    await create("crypto", { name: "crypto", names: { "vi-VN": "Tiền mã hóa" } });
    await platform.operator.updateCategory(ids.offline!, { online: false });
    await platform.operator.deleteCategory(ids.deleted!);
  });
  after(() => platform.close());

  /** The tree without the fixture's own category (it files the fixture's markets). */
  const treeOf = async (query: Parameters<PredexClient["getCategoryTree"]>[0] = {}) =>
    (await client.getCategoryTree(query)).filter((node) => node.id === ids.sports || node.id === ids.crypto);

  it("shows online, non-deleted nodes as a tree with the spec's types and ancestor ids", async () => {
    for (const [index, node] of (await client.getCategoryTree()).entries())
      assertCategoryNode(node, `data[${index}]`);
    const tree = await treeOf();
    assert.deepEqual(
      tree.map((node) => node.id),
      [ids.sports, ids.crypto],
    );
    const sports = tree[0]!;
    assert.deepEqual(
      [sports.level, sports.level1Id, sports.level2Id, sports.logoUrl],
      [1, null, null, "https://img.example/sports.png"],
    );
    assert.deepEqual(
      sports.children.map((child) => child.id),
      [ids.football],
    );
    const football = sports.children[0]!;
    assert.deepEqual(
      [football.level, football.level1Id, football.level2Id, football.logoUrl],
      [2, ids.sports, null, ""],
    );
    const cup = football.children[0]!;
    assert.deepEqual(
      [cup.id, cup.level, cup.level1Id, cup.level2Id, cup.children],
      [ids.cup, 3, ids.sports, ids.football, []],
    );
  });

  it("keeps only the tree of category1Id; a bad category1Id or language is 400/1001", async () => {
    const only = await client.getCategoryTree({ category1Id: Number(ids.crypto) });
    assert.deepEqual(
      only.map((node) => node.id),
      [ids.crypto],
    );
    assert.deepEqual(await client.getCategoryTree({ category1Id: 99999 }), []);
    for (const category1Id of ["abc", "-1", "1.5", "0"]) {
      await assert.rejects(client.getCategoryTree({ category1Id }), rejectsWith(400, 1001));
    }
    for (const language of ["fr-FR", "zh", "EN-us", ""]) {
      await assert.rejects(client.getCategoryTree({ language }), rejectsWith(400, 1001));
    }
  });

  it("nameDisplay: the language, else en-US, else name", async () => {
    const names = async (query: Parameters<PredexClient["getCategoryTree"]>[0]) => {
      const [sports, crypto] = await treeOf(query);
      return [sports!.nameDisplay, sports!.children[0]!.children[0]!.nameDisplay, crypto!.nameDisplay];
    };
    assert.deepEqual(await names({ language: "zh-CN" }), ["体育", "world-cup", "crypto"]);
    assert.deepEqual(await names({ language: "vi-VN" }), ["Sports", "world-cup", "Tiền mã hóa"]);
    assert.deepEqual(await names({}), ["Sports", "world-cup", "crypto"]);
    const [sports] = await treeOf({ language: "pt-BR" });
    assert.deepEqual([sports!.name, sports!.children[0]!.nameDisplay], ["sports", "Football"]);
  });

  it("without language, takes the highest-weight supported language of Accept-Language", async () => {
    const sportsName = async (acceptLanguage: string) => (await treeOf({ acceptLanguage }))[0]!.nameDisplay;
    assert.equal(await sportsName("fr-FR, ko-KR;q=0.5, zh-CN;q=0.8"), "体育");
    assert.equal(await sportsName("zh-CN;q=0.2, ko-KR;q=0.9"), "스포츠");
    assert.equal(await sportsName("fr, de;q=0.9"), "Sports");
    assert.equal(await sportsName("zh-CN;q=0, ko-KR;q=0.1"), "스포츠");
    assert.equal(await sportsName("zh;q=0.7, en;q=0.6"), "体育");
    assert.equal(await sportsName("*"), "Sports");
    // An explicit language wins over the header.
    assert.equal((await treeOf({ language: "en-US", acceptLanguage: "zh-CN" }))[0]!.nameDisplay, "Sports");
  });
});

describe("search", () => {
  let platform: TradingPlatform;
  let client: PredexClient;
  const markets: Record<string, string> = {};

  before(async () => {
    platform = await startTradingPlatform();
    const creator = await platform.fundedUser("0");
    client = creator.client;
    const profile = await client.getProfile();
    const open = async (key: string, overrides: Parameters<TradingPlatform["openMarket"]>[0]) => {
      markets[key] = (await platform.openMarket(overrides)).marketId;
    };
    await open("titleMatch", { title: "Bitcoin above 100k by December?", description: "Crypto prices" });
    await open("descriptionMatch", {
      title: "Ethereum merge anniversary",
      description: "Compared with bitcoin",
    });
    await open("tagMatch", { title: "Solana outage this year", tags: "bitcoin,crypto" });
    await open("userMarket", { title: "Will it snow in Oslo?", creatorId: profile.userId });
    markets.draft = (await platform.createMarket({ title: "Bitcoin draft never found" })).marketId;
    markets.userName = profile.userName;
  });
  after(() => platform.close());

  it("ranks title matches first, then tags, then descriptions; drafts are never found", async () => {
    const found = await client.search({ keyword: "bitcoin" });
    for (const [index, record] of found.records.entries()) assertListRecord(record, `data[${index}]`);
    assert.deepEqual(
      found.records.map((record) => record.marketId),
      [markets.titleMatch, markets.tagMatch, markets.descriptionMatch],
    );
  });

  it("puts current, size, total and pages beside data", async () => {
    const envelope = await client.requestEnvelope<unknown[]>("GET", "/search", {
      query: { keyword: "bitcoin", page: "2", pageSize: "2" },
    });
    assert.deepEqual(
      [envelope.code, envelope.message, envelope.current, envelope.size, envelope.total, envelope.pages],
      [0, "ok", 2, 2, 3, 2],
    );
    assert.ok(Array.isArray(envelope.data));
    assert.equal(envelope.data.length, 1);
    assert.equal((await client.search({ keyword: "bitcoin", pageSize: 500 })).size, 100);
    await assert.rejects(client.search({ keyword: "bitcoin", page: 0 }), rejectsWith(400, 1001));
  });

  it("matches words as prefixes, all of them, whatever the case and accents", async () => {
    assert.deepEqual(
      (await client.search({ keyword: "BITCO decem" })).records.map((record) => record.marketId),
      [markets.titleMatch],
    );
    assert.deepEqual(
      (await client.search({ keyword: "ôslo" })).records.map((record) => record.marketId),
      [markets.userMarket],
    );
    assert.equal((await client.search({ keyword: "bitcoin oslo" })).total, 0);
  });

  it("searchBy=Creator finds the platform's markets as predex and a user's by userName", async () => {
    const platformMarkets = await client.search({ keyword: "predex", searchBy: "Creator" });
    assert.deepEqual(
      platformMarkets.records.map((record) => record.marketId).sort(),
      [markets.titleMatch, markets.descriptionMatch, markets.tagMatch].sort(),
    );
    const userMarkets = await client.search({ keyword: markets.userName!, searchBy: "Creator" });
    assert.deepEqual(
      userMarkets.records.map((record) => record.marketId),
      [markets.userMarket],
    );
    // A Market search does not look at creator names.
    assert.equal((await client.search({ keyword: "predex" })).total, 0);
  });

  it("never fails on FTS query syntax in the keyword; a missing keyword is a plain-text 400", async () => {
    for (const keyword of [
      '"',
      "bitcoin OR",
      "NEAR(a b)",
      "*",
      "title:bitcoin",
      "a AND",
      "(",
      "^x",
      "-",
      "💥",
    ]) {
      const found = await client.search({ keyword });
      assert.ok(found.total >= 0, keyword);
    }
    assert.equal((await client.search({ keyword: "title:bitcoin" })).total, 0);
    const missing = await platform.signed(platform.partner, { path: "/search" });
    assert.equal(missing.status, 400);
    assert.match(missing.headers.get("content-type") ?? "", /text\/plain/);
    await assert.rejects(
      client.search({ keyword: "x", searchBy: "Nobody" as "Market" }),
      (error: unknown) => {
        assert.ok(error instanceof PredexApiError);
        assert.equal(error.status, 400);
        return true;
      },
    );
  });
});
