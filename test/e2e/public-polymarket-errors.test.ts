// The Polymarket-compatible reads refuse what Polymarket refuses, with its status codes and bare
// {"error": …} bodies, never a 500; raw requests, for what clob-client will not send. Also: the
// paging cursor, the listener's /docs, and condition ids that survive a restart.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ClobClient } from "@polymarket/clob-client";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { startPlatform } from "../../src/server.js";
import type { RawResponse } from "./harness.js";
import { testPlatformConfig } from "./harness.js";
import { type BinaryMarket, isoAt, startTradingPlatform, type TradingPlatform } from "./trading-fixtures.js";

let platform: TradingPlatform;
let market: BinaryMarket;
let yesAsset: string;
let draftAsset: string;

async function assetIdOf(optionId: string): Promise<string> {
  return platform.platform.deps.engine.read((state) => state.options.get(Number(optionId))!.assetId);
}

function get(path: string): Promise<RawResponse> {
  return platform.raw("public", { path });
}

function post(path: string, body: string, contentType = "application/json"): Promise<RawResponse> {
  return platform.raw("public", { method: "POST", path, headers: { "content-type": contentType }, body });
}

function assertError(response: RawResponse, status: number, error: string): void {
  assert.equal(response.status, status, response.text);
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
  assert.deepEqual(response.json, { error });
}

before(async () => {
  platform = await startTradingPlatform();
  market = await platform.openMarket({ title: "One-sided book" });
  yesAsset = await assetIdOf(market.yes);
  const draft = await platform.createMarket({ title: "Still a draft" });
  draftAsset = await assetIdOf(draft.outcomes[0]!.options[0]!.optionId);
  // Only a bid: the book has no asks, so no midpoint, spread or SELL price.
  const maker = await platform.fundedUser("100");
  await maker.client.createOrder({
    marketId: market.marketId,
    outcomeId: market.outcomeId,
    optionId: market.yes,
    side: "BUY",
    orderType: "LIMIT",
    limitPrice: 0.3,
    shares: 5,
  });
});
after(() => platform.close());

describe("Polymarket-style errors of the public reads", () => {
  it("a missing or empty token_id is 400 Invalid token id", async () => {
    for (const path of ["/book", "/book?token_id=", "/midpoint", "/spread?token_id=%20", "/price?side=BUY"]) {
      assertError(await get(path), 400, "Invalid token id");
    }
    assertError(await get("/tick-size"), 400, "Invalid token id");
    assertError(await get("/midpoints"), 400, "Invalid token id");
    assertError(await get("/last-trades-prices?token_ids=,"), 400, "Invalid token id");
  });

  it("an unknown token, or one of a draft market, has no order book (404)", async () => {
    for (const tokenId of ["12345", "not-a-number", draftAsset]) {
      for (const route of ["/book", "/midpoint", "/spread", "/last-trade-price"]) {
        assertError(
          await get(`${route}?token_id=${tokenId}`),
          404,
          "No orderbook exists for the requested token id",
        );
      }
      assertError(
        await get(`/price?token_id=${tokenId}&side=BUY`),
        404,
        "No orderbook exists for the requested token id",
      );
      for (const route of ["/tick-size", "/neg-risk", "/fee-rate"]) {
        assertError(await get(`${route}?token_id=${tokenId}`), 404, "market not found");
      }
    }
  });

  it("/price needs side BUY or SELL (either case)", async () => {
    assertError(await get(`/price?token_id=${yesAsset}`), 400, "Invalid side");
    assertError(await get(`/price?token_id=${yesAsset}&side=up`), 400, "Invalid side");
    const lower = await get(`/price?token_id=${yesAsset}&side=buy`);
    assert.deepEqual([lower.status, lower.json], [200, { price: "0.3" }]);
    assertError(await get(`/prices?token_ids=${yesAsset}&sides=BUY,SELL`), 400, "Invalid side");
  });

  it("a one-sided book has no midpoint, spread or price on its empty side", async () => {
    assertError(
      await get(`/midpoint?token_id=${yesAsset}`),
      404,
      "No midpoint for the requested token id: the book has no bids or no asks",
    );
    assertError(
      await get(`/spread?token_id=${yesAsset}`),
      404,
      "No spread for the requested token id: the book has no bids or no asks",
    );
    assertError(
      await get(`/price?token_id=${yesAsset}&side=SELL`),
      404,
      "No price for the requested token id: the book has no asks",
    );
    const batch = await post("/midpoints", JSON.stringify([{ token_id: yesAsset }]));
    assert.deepEqual([batch.status, batch.json], [200, {}]);
  });

  it("a batch body that is not an array of {token_id} is 400 Invalid payload", async () => {
    for (const body of ["{}", "not json", "[1]", '[{"token_id": 5}]', '[{"side": "BUY"}]', ""]) {
      for (const route of ["/books", "/midpoints", "/prices", "/spreads", "/last-trades-prices"]) {
        assertError(await post(route, body), 400, "Invalid payload");
      }
    }
    assertError(
      await post("/books", JSON.stringify([{ token_id: yesAsset }]), "text/plain"),
      400,
      "Invalid payload",
    );
    assertError(
      await post("/prices", JSON.stringify([{ token_id: yesAsset, side: "HOLD" }])),
      400,
      "Invalid side",
    );
  });

  it("more than 500 tokens in one batch is 400 Payload exceeds the limit", async () => {
    const many = JSON.stringify(Array.from({ length: 501 }, () => ({ token_id: yesAsset, side: "BUY" })));
    for (const route of ["/books", "/midpoints", "/prices", "/spreads", "/last-trades-prices"]) {
      assertError(await post(route, many), 400, "Payload exceeds the limit");
    }
    const query = Array.from({ length: 501 }, (_, index) => String(index + 1)).join(",");
    assertError(await get(`/midpoints?token_ids=${query}`), 400, "Payload exceeds the limit");
  });

  it("a batch leaves out the tokens it has nothing for", async () => {
    const books = await post("/books", JSON.stringify([{ token_id: "12345" }, { token_id: yesAsset }]));
    assert.equal(books.status, 200);
    assert.deepEqual(
      (books.json as { asset_id: string }[]).map((book) => book.asset_id),
      [yesAsset],
    );
    const last = await get(`/last-trades-prices?token_ids=12345,${yesAsset}`);
    assert.deepEqual(last.json, [{ token_id: yesAsset, price: "0.5", side: "" }]);
  });

  it("/markets refuses a cursor it did not hand out and pages with next_cursor to LTE=", async () => {
    assertError(await get("/markets?next_cursor=%25%25"), 400, "invalid next_cursor");
    assertError(
      await get(`/markets?next_cursor=${Buffer.from("x").toString("base64")}`),
      400,
      "invalid next_cursor",
    );
    assertError(await get("/markets?limit=0"), 400, "invalid next_cursor");
    const end = await get("/markets?next_cursor=LTE=");
    assert.deepEqual(end.json, { limit: 500, count: 0, next_cursor: "LTE=", data: [] });
    await platform.openMarket({ title: "Another one" });
    const first = (await get("/markets?limit=1")).json as {
      count: number;
      next_cursor: string;
      data: unknown[];
    };
    assert.deepEqual([first.count, first.next_cursor], [1, "MQ=="]);
    const second = (await get(`/markets?limit=1&next_cursor=${first.next_cursor}`)).json as {
      next_cursor: string;
      data: { question: string }[];
    };
    assert.deepEqual([second.next_cursor, second.data[0]!.question], ["LTE=", "Another one"]);
    // The draft market is not listed.
    const all = (await get("/markets")).json as { data: { question: string }[] };
    assert.ok(!all.data.some((entry) => entry.question === "Still a draft"));
  });

  it("/markets/{condition_id} of nothing is 404 market not found", async () => {
    for (const conditionId of ["0x1234", `0x${"0".repeat(64)}`, "garbage"]) {
      assertError(await get(`/markets/${conditionId}`), 404, "market not found");
    }
  });

  it("the public listener's /docs documents every route", async () => {
    const docs = (await get("/docs/json")).json as { paths: Record<string, unknown> };
    for (const path of [
      "/time",
      "/book",
      "/books",
      "/midpoint",
      "/midpoints",
      "/price",
      "/prices",
      "/spread",
      "/spreads",
      "/last-trade-price",
      "/last-trades-prices",
      "/tick-size",
      "/neg-risk",
      "/fee-rate",
      "/markets",
      "/markets/{condition_id}",
      "/simplified-markets",
      "/sampling-markets",
      "/sampling-simplified-markets",
      "/live-activity/events/{condition_id}",
      "/rewards/markets/current",
      "/rewards/markets/{condition_id}",
      "/auth/validate-readonly-api-key",
    ]) {
      assert.ok(path in docs.paths, `${path} is documented`);
    }
  });
});

describe("condition ids across a restart", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-polymarket-restart-"));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it("a book's market and the /markets listing keep their condition id", { timeout: 60_000 }, async () => {
    const config = () => testPlatformConfig(dataDir);
    let running = await startPlatform(config());
    let conditionId: string;
    let assetId: string;
    try {
      const operator = new PredexAdminClient({ baseUrl: running.addresses.admin, token: running.adminToken });
      const category = await operator.createCategory({ name: "Restart" });
      const created = await operator.createMarket({
        title: "Will the ids hold?",
        categoryId: category.id,
        startTime: isoAt(Date.now() - 60_000),
        endTime: isoAt(Date.now() + 86_400_000),
        outcomes: [{ name: "Ids", options: [{ title: "Yes" }, { title: "No" }] }],
      });
      await operator.openMarket(created.marketId);
      const optionId = Number(created.outcomes[0]!.options[0]!.optionId);
      assetId = await running.deps.engine.read((state) => state.options.get(optionId)!.assetId);
      conditionId = (await new ClobClient(running.addresses.public, 137).getOrderBook(assetId)).market;
      assert.match(conditionId, /^0x[0-9a-f]{64}$/);
    } finally {
      await running.close();
    }
    running = await startPlatform(config());
    try {
      const clob = new ClobClient(running.addresses.public, 137);
      assert.equal((await clob.getOrderBook(assetId)).market, conditionId);
      const listed = await clob.getMarket(conditionId);
      assert.equal(listed.tokens[0].token_id, assetId);
    } finally {
      await running.close();
    }
  });
});
