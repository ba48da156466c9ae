// Exclusive events through the real listeners (DESIGN §10, issue 30): the operator creates one with
// `exclusive: true` (an order book of two outcomes or more, anything else 400/1001), sees the flag
// in the detail and the list, and resolves it with exactly one winning outcome (anything else
// 400/1001, nothing changed); the legacy interface serves its outcomes as any market's.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { AdminMarketDetail } from "../../src/contract/admin.js";
import { apiError } from "./harness.js";
import { startTradingPlatform, type TradingPlatform } from "./trading-fixtures.js";

const candidates = ["Ada", "Brook", "Cyd", "Dale"];
const outcomesOf = (names: readonly string[]) =>
  names.map((name) => ({ name, options: [{ title: "Yes" }, { title: "No" }] }));

describe("exclusive markets: the operator's side", () => {
  let platform: TradingPlatform;
  before(async () => {
    platform = await startTradingPlatform();
  });
  after(() => platform.close());

  const createExclusive = (title = "Who wins the election?") =>
    platform.createMarket({
      title,
      outcomes: outcomesOf(candidates),
      exclusive: true,
    }) as Promise<AdminMarketDetail>;

  it("creates an exclusive order book, shown as exclusive in the detail and the list", async () => {
    const created = await createExclusive();
    assert.equal(created.exclusive, true);
    assert.equal(created.outcomes.length, 4);
    const plain = (await platform.createMarket({ outcomes: outcomesOf(["A", "B"]) })) as AdminMarketDetail;
    assert.equal(plain.exclusive, false);
    assert.equal((await platform.operator.openMarket(created.marketId)).exclusive, true);
    const read = await platform.admin("GET", `/admin/markets/${created.marketId}`);
    assert.equal((read.json as { data: AdminMarketDetail }).data.exclusive, true);
    const listed = await platform.admin("GET", "/admin/markets?pageSize=100");
    const records = (listed.json as { data: { records: { marketId: string; exclusive: boolean }[] } }).data
      .records;
    assert.deepEqual(
      [created.marketId, plain.marketId].map((id) => records.find((row) => row.marketId === id)?.exclusive),
      [true, false],
    );
    // The partner's detail keeps the spec's fields only.
    const { client } = await platform.fundedUser("0");
    const partnerDetail = await client.getMarketDetail(created.marketId);
    assert.equal("exclusive" in partnerDetail, false);
  });

  it("refuses an exclusive market that is not an order book of two outcomes or more", async () => {
    const refused = apiError(
      400,
      1001,
      "bad request: an exclusive market is an orderbook market with at least two outcomes",
    );
    await assert.rejects(platform.createMarket({ outcomes: outcomesOf(["Only"]), exclusive: true }), refused);
    await assert.rejects(
      platform.createMarket({ modelType: "parimutuel", outcomes: outcomesOf(["A", "B"]), exclusive: true }),
      refused,
    );
    const wrongType = await platform.admin("POST", "/admin/markets", {
      title: "Typed",
      categoryId: 1,
      startTime: "2030-01-01T00:00:00Z",
      endTime: "2030-01-02T00:00:00Z",
      outcomes: outcomesOf(["A", "B"]),
      exclusive: "yes",
    });
    assert.equal(wrongType.status, 400);
    assert.equal((wrongType.json as { code: number }).code, 1001);
    assert.match((wrongType.json as { message: string }).message, /exclusive/);
  });

  it("resolves with exactly one winning outcome; any other result is refused and changes nothing", async () => {
    const market = await createExclusive("Who wins the cup?");
    await platform.operator.openMarket(market.marketId);
    await platform.operator.closeMarket(market.marketId);
    const winners = (yes: readonly number[]) =>
      market.outcomes.map((outcome, index) => ({
        outcomeId: outcome.outcomeId,
        winningOptionId: outcome.options[yes.includes(index) ? 0 : 1]!.optionId,
      }));
    const refused = apiError(
      400,
      1001,
      "bad request: an exclusive market has exactly one winning outcome: its Yes wins and every other outcome's No",
    );
    await assert.rejects(
      platform.operator.resolveMarket(market.marketId, { outcomes: winners([0, 2]) }),
      refused,
    );
    await assert.rejects(
      platform.operator.resolveMarket(market.marketId, { outcomes: winners([]) }),
      refused,
    );
    const unchanged = (await platform.admin("GET", `/admin/markets/${market.marketId}`)).json as {
      data: AdminMarketDetail;
    };
    assert.equal(unchanged.data.status, "closed");
    const resolving = await platform.operator.resolveMarket(market.marketId, { outcomes: winners([2]) });
    assert.equal(resolving.status, "resolving");
    await assert.rejects(
      platform.operator.finalizeMarket(market.marketId, { outcomes: winners([1, 3]) }),
      refused,
    );
    const settled = await platform.operator.finalizeMarket(market.marketId);
    assert.equal(settled.status, "settled");
    assert.equal(settled.exclusive, true);
    assert.deepEqual(
      settled.outcomes.map((outcome) => outcome.options.map((option) => option.isWin)),
      [
        [false, true],
        [false, true],
        [true, false],
        [false, true],
      ],
    );
  });

  it("serves an exclusive market's outcomes on the legacy interface as any market's", async () => {
    const exclusive = await createExclusive("Legacy exclusive");
    const plain = await platform.createMarket({ title: "Legacy plain", outcomes: outcomesOf(candidates) });
    for (const market of [exclusive, plain]) await platform.operator.openMarket(market.marketId);
    const outcomeOf = async (marketId: string) => {
      const response = await platform.raw("legacy", { path: `/api/market/openapi/${marketId}/outcome` });
      assert.equal(response.status, 200);
      const body = response.json as { code: number; data: Record<string, unknown> & { outcomes: unknown[] } };
      assert.equal(body.code, 200);
      return body.data;
    };
    const [fromExclusive, fromPlain] = await Promise.all([
      outcomeOf(exclusive.marketId),
      outcomeOf(plain.marketId),
    ]);
    // The same fields, the same outcomes and options; only ids, titles and times differ.
    assert.deepEqual(Object.keys(fromExclusive).sort(), Object.keys(fromPlain).sort());
    const shape = (data: typeof fromPlain) =>
      JSON.stringify(data.outcomes, (key, value) => (/Id$/.test(key) ? typeof value : value));
    assert.equal(shape(fromExclusive), shape(fromPlain));
    assert.equal(fromExclusive.outcomes.length, 4);
  });
});
