// The catalogue of spec 000 through the SDK on a real server: every field of the list record,
// detail, holders and live volume has the spec's JSON type and no other field appears; the list's
// pagination sits inside `data`; drafts are not listed; holders come from real trades; clicks and
// hotScore move with views and trades; unknown markets and categories are 404/1404.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { computeSignature } from "../../src/contract/signing/gateway-signature.js";
import { formatGatewayDate } from "../../src/contract/signing/string-to-sign.js";
import { PredexApiError } from "../../src/sdk/errors.js";
import {
  assertListRecord,
  assertShape,
  decimalString,
  detailCreatorShape,
  detailOptionShape,
  detailOutcomeShape,
  detailShape,
  holderShape,
  holdersOptionShape,
  holdersOutcomeShape,
  isoUtcSeconds,
  listPageShape,
  liveVolumeShape,
} from "./catalogue-contract.js";
import { type BinaryMarket, startTradingPlatform, type TradingPlatform } from "./trading-fixtures.js";

const rejectsWith = (status: number, code: number, message?: string) => (error: unknown) => {
  assert.ok(error instanceof PredexApiError, String(error));
  assert.deepEqual([error.status, error.code], [status, code]);
  if (message !== undefined) assert.equal(error.message, message);
  return true;
};

describe("catalogue: list, detail, holders, live volume", () => {
  let platform: TradingPlatform;
  let traded: BinaryMarket;
  let quiet: BinaryMarket;
  let draftId: string;
  let categoryId: string;

  before(async () => {
    platform = await startTradingPlatform();
    const category = await platform.operator.createCategory({
      name: "Politics",
      names: { "en-US": "Politics & elections", "zh-CN": "政治" },
    });
    categoryId = category.id;
    quiet = await platform.openMarket({ title: "A quiet market", categoryId });
    traded = await platform.openMarket({ title: "A busy market", categoryId, tags: "busy,trading" });
    draftId = (await platform.createMarket({ title: "A draft nobody sees listed" })).marketId;
  });
  after(() => platform.close());

  it("lists markets with exactly the spec's record fields and types, pagination inside data", async () => {
    const { client } = await platform.fundedUser("0");
    const page = await client.listMarkets();
    assertShape(page, listPageShape, "data");
    assert.deepEqual([page.current, page.size, page.total, page.pages, page.empty], [1, 10, 2, 1, false]);
    for (const [index, record] of page.records.entries()) assertListRecord(record, `records[${index}]`);
    const record = page.records.find((market) => market.marketId === quiet.marketId)!;
    assert.deepEqual(
      [record.category, record.status, record.coinId, record.isOnline, record.modelType, record.volume],
      ["Politics & elections", "open", "2", true, "orderbook", "0"],
    );
    assert.match(record.startTime, isoUtcSeconds);
    assert.match(record.endTime, isoUtcSeconds);
    assert.match(record.marketLogo, /^https?:\/\//);
    assert.deepEqual(
      record.outcomes[0]!.options.map((option) => [
        option.title,
        option.price,
        option.chance,
        option.optionIndex,
      ]),
      [
        ["Yes", "0.5", 0.5, 0],
        ["No", "0.5", 0.5, 1],
      ],
    );
  });

  it("never lists a draft, but reads it by id with status draft", async () => {
    const { client } = await platform.fundedUser("0");
    const page = await client.listMarkets({ pageSize: 100 });
    assert.ok(!page.records.some((record) => record.marketId === draftId));
    const draft = await client.getMarketDetail(draftId);
    assert.deepEqual([draft.status, draft.isOnline], ["draft", false]);
  });

  it("pages: page 2 is empty, pageSize above 100 is truncated, page 0 is 400/1001", async () => {
    const { client } = await platform.fundedUser("0");
    const second = await client.listMarkets({ page: 2, pageSize: 1 });
    assert.deepEqual(
      [second.current, second.size, second.total, second.pages, second.records.length],
      [2, 1, 2, 2, 1],
    );
    const beyond = await client.listMarkets({ page: 3, pageSize: 1 });
    assert.deepEqual([beyond.records, beyond.empty, beyond.totalRow], [[], true, null]);
    assert.equal((await client.listMarkets({ pageSize: 1000 })).size, 100);
    await assert.rejects(client.listMarkets({ page: 0 }), rejectsWith(400, 1001));
    await assert.rejects(client.listMarkets({ pageSize: 0 }), rejectsWith(400, 1001));
  });

  it("filters by category and status", async () => {
    const { client } = await platform.fundedUser("0");
    assert.equal((await client.listMarkets({ categoryId })).total, 2);
    assert.equal((await client.listMarkets({ categoryId: "999" })).total, 0);
    assert.equal((await client.listMarkets({ status: "closed" })).total, 0);
  });

  it("holders come from real trades: both traders appear with their shares; volume and hotScore move", async () => {
    const yesBuyer = await platform.fundedUser("100");
    const noBuyer = await platform.fundedUser("100");
    const { client } = await platform.fundedUser("0");
    const before = await client.getMarketDetail(traded.marketId);
    await yesBuyer.client.createOrder({
      marketId: traded.marketId,
      outcomeId: traded.outcomeId,
      optionId: traded.yes,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.6,
      shares: 10,
    });
    // A No buyer at 0.4 meets the Yes bid at 0.6: a mint of 10 Yes + 10 No (10 USDT change hands).
    await noBuyer.client.createOrder({
      marketId: traded.marketId,
      outcomeId: traded.outcomeId,
      optionId: traded.no,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.4,
      shares: 10,
    });

    const holders = await client.getMarketHolders(traded.marketId);
    assert.equal(holders.length, 1);
    for (const [outcomeIndex, outcome] of holders.entries()) {
      assertShape(outcome, holdersOutcomeShape, `data[${outcomeIndex}]`);
      for (const [optionIndex, option] of outcome.outcomeOptionHolderVoList.entries()) {
        assertShape(option, holdersOptionShape, `data[${outcomeIndex}].options[${optionIndex}]`);
        for (const [holderIndex, holder] of option.holderVoList.entries())
          assertShape(holder, holderShape, `holder ${holderIndex}`);
      }
    }
    const [yes, no] = holders[0]!.outcomeOptionHolderVoList;
    assert.deepEqual(
      [yes!.optionId, yes!.yes, yes!.optionIndex, no!.optionId, no!.yes, no!.optionIndex],
      [traded.yes, true, 0, traded.no, false, 1],
    );
    assert.deepEqual(
      yes!.holderVoList.map((holder) => [holder.userId, holder.share]),
      [[yesBuyer.userId, 10]],
    );
    assert.deepEqual(
      no!.holderVoList.map((holder) => [holder.userId, holder.share]),
      [[noBuyer.userId, 10]],
    );
    assert.match(yes!.holderVoList[0]!.avatarUrl, /^https?:\/\//);
    assert.ok(yes!.holderVoList[0]!.userName.length > 0);

    const volume = await client.getLiveVolume(traded.marketId);
    assertShape(volume, liveVolumeShape, "data");
    assert.deepEqual(volume, { marketId: traded.marketId, volume: "10" });

    const after = await client.getMarketDetail(traded.marketId);
    assert.equal(after.volume, "10");
    assert.ok((after.hotScore ?? 0) > (before.hotScore ?? 0) + 9, "10 USDT traded adds about 10 to hotScore");
    // The busy market now leads the list.
    const page = await client.listMarkets();
    assert.equal(page.records[0]!.marketId, traded.marketId);
    assert.equal(page.records[0]!.volume, "10");
  });

  it("the detail has exactly the spec's fields and types; each view counts one click", async () => {
    const { client } = await platform.fundedUser("0");
    const first = await client.getMarketDetail(quiet.marketId);
    const second = await client.getMarketDetail(quiet.marketId);
    for (const detail of [first, second]) {
      assertShape(detail, detailShape, "detail");
      assertShape(detail.creator, detailCreatorShape, "detail.creator");
      for (const outcome of detail.outcomes) {
        assertShape(outcome, detailOutcomeShape, "detail.outcome");
        for (const option of outcome.options) assertShape(option, detailOptionShape, "detail.option");
      }
      assert.match(detail.volume, decimalString);
      assert.match(detail.fee, decimalString);
    }
    assert.equal(second.clicks, first.clicks + 1);
    assert.ok((second.hotScore ?? 0) > (first.hotScore ?? 0));
    assert.equal(first.category, "Politics & elections");
  });

  it("answers 404/1404 Market not found for an unknown or malformed market id", async () => {
    const { client } = await platform.fundedUser("0");
    const notFound = rejectsWith(404, 1404, "resource not found: Market not found");
    for (const id of ["99999", "abc"]) {
      await assert.rejects(client.getMarketDetail(id), notFound);
      await assert.rejects(client.getMarketHolders(id), notFound);
      await assert.rejects(client.getLiveVolume(id), notFound);
    }
  });

  it("refuses a market in an unknown or deleted category: 404/1404 Category not found", async () => {
    const doomed = await platform.operator.createCategory({ name: "Doomed" });
    await platform.operator.deleteCategory(doomed.id);
    for (const id of ["99999", doomed.id]) {
      await assert.rejects(
        platform.createMarket({ categoryId: id }),
        rejectsWith(404, 1404, "resource not found: Category not found"),
      );
    }
  });

  it("needs the API key: 401/1401 on the catalogue routes", async () => {
    for (const path of ["/markets/list", "/markets/category-tree", "/search?keyword=x"]) {
      const date = formatGatewayDate(new Date());
      const stringToSign = ["GET", "application/json", "", "", date, path].join("\n");
      const response = await platform.raw("gateway", {
        path,
        headers: {
          accept: "application/json",
          date,
          "x-ca-key": platform.partner.appKey,
          "x-ca-signature": computeSignature(platform.partner.appSecret, stringToSign),
        },
      });
      assert.equal(response.status, 401, path);
      assert.deepEqual(response.json, {
        code: 1401,
        message: "unauthorized: Missing X-API-KEY header",
        data: null,
      });
    }
  });
});
