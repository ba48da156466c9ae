// Exclusive events through the real listeners (DESIGN §10, issue 30): the operator creates one with
// `exclusive: true` (an order book of two outcomes or more, anything else 400/1001), sees the flag
// in the detail and the list, and resolves it with exactly one winning outcome (anything else
// 400/1001, nothing changed); the legacy interface serves its outcomes as any market's. Users
// convert No shares with POST /ordering/convert through the SDK: the answer, balance, positions,
// the CONVERT ledger entry and the user channels; every refusal changes nothing; settlement and
// void pay what the shares converted would have paid.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { AdminMarketDetail } from "../../src/contract/admin.js";
import type { ConvertRequest } from "../../src/contract/partner/convert.js";
import { socketPaths } from "../../src/contract/paths.js";
import type { PredexClient } from "../../src/sdk/client.js";
import { openSigned } from "../realtime/fixtures.js";
import { apiError } from "./harness.js";
import { startTradingPlatform, type TradingPlatform, usdtOf } from "./trading-fixtures.js";

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
    // The market pages' read says so too.
    const console = await platform.raw("public", { path: `/console-api/markets/${created.marketId}` });
    assert.equal((console.json as { data: { exclusive: boolean } }).data.exclusive, true);
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

describe("POST /ordering/convert", () => {
  let platform: TradingPlatform;
  before(async () => {
    platform = await startTradingPlatform();
  });
  after(() => platform.close());

  interface Exclusive {
    marketId: string;
    outcomeIds: string[];
    yes: string[];
    no: string[];
  }

  async function openExclusive(names: readonly string[] = candidates): Promise<Exclusive> {
    const created = await platform.createMarket({
      title: `Who wins? ${names.join(" or ")}`,
      outcomes: outcomesOf(names),
      exclusive: true,
    });
    const detail = await platform.operator.openMarket(created.marketId);
    return {
      marketId: detail.marketId,
      outcomeIds: detail.outcomes.map((outcome) => outcome.outcomeId),
      yes: detail.outcomes.map((outcome) => outcome.options[0]!.optionId),
      no: detail.outcomes.map((outcome) => outcome.options[1]!.optionId),
    };
  }

  /** `buyer` buys `shares` No of outcome `index` at `price`, minted against `yesBuyer`'s Yes bid. */
  async function buyNo(
    market: Exclusive,
    index: number,
    buyer: PredexClient,
    yesBuyer: PredexClient,
    price: number,
    shares: number,
  ): Promise<void> {
    const where = {
      marketId: market.marketId,
      outcomeId: market.outcomeIds[index]!,
      orderType: "LIMIT" as const,
    };
    await yesBuyer.createOrder({
      ...where,
      optionId: market.yes[index]!,
      side: "BUY",
      limitPrice: Number((1 - price).toFixed(2)),
      shares,
    });
    const order = await buyer.createOrder({
      ...where,
      optionId: market.no[index]!,
      side: "BUY",
      limitPrice: price,
      shares,
    });
    assert.equal(order.status, "FILLED");
  }

  const heldShares = async (client: PredexClient, marketId: string) => {
    const page = await client.getPositions({ marketId, pageSize: 100 });
    return Object.fromEntries(page.records.map((position) => [position.optionId, position.shares]));
  };

  it("turns No of k outcomes into k − 1 USDT a share and the Yes of the others, on the user channels too", async () => {
    const market = await openExclusive();
    const trader = await platform.fundedUser("100");
    const maker = await platform.fundedUser("100");
    await buyNo(market, 0, trader.client, maker.client, 0.8, 10);
    await buyNo(market, 1, trader.client, maker.client, 0.7, 10);
    const balance = await openSigned(platform, platform.partner, socketPaths.userInfo, {
      cookie: trader.client.sessionCookie!,
    });
    const positions = await openSigned(platform, platform.partner, socketPaths.userPositions, {
      query: { marketId: market.marketId, userId: trader.userId },
      cookie: trader.client.sessionCookie!,
    });
    await balance.inbox!.next((message) => message.snapshot === true && message.available === "85");
    await positions.inbox!.next((message) => message.snapshot === true);

    const result = await trader.client.convert({
      marketId: market.marketId,
      outcomeIds: [market.outcomeIds[0]!, market.outcomeIds[1]!],
      shares: 6,
    });
    assert.deepEqual(result, {
      converted: "6",
      collateral: "6",
      yesPositions: [2, 3].map((index) => ({
        outcomeId: market.outcomeIds[index]!,
        optionId: market.yes[index]!,
        positionId: result.yesPositions[index - 2]!.positionId,
        shares: "6",
      })),
    });
    assert.deepEqual(await usdtOf(trader.client), { available: "91", frozen: "0", total: "91" });
    assert.deepEqual(await heldShares(trader.client, market.marketId), {
      [market.no[0]!]: "4",
      [market.no[1]!]: "4",
      [market.yes[2]!]: "6",
      [market.yes[3]!]: "6",
    });
    const history = await trader.client.getAccountHistory({ type: "CONVERT" });
    assert.deepEqual(
      history.records.map((entry) => [entry.type, entry.amount, entry.balanceAfter]),
      [["CONVERT", "6", "91"]],
    );
    // The user channels show the new balance and the new positions.
    await balance.inbox!.next((message) => message.snapshot === false && message.available === "91");
    for (const index of [2, 3]) {
      const yes = await positions.inbox!.next((message) => message.optionId === market.yes[index]);
      assert.equal(yes.shares, "6");
    }
    const no = await positions.inbox!.next(
      (message) => message.optionId === market.no[0] && message.shares === "4",
    );
    assert.equal(no.userId, trader.userId);
    balance.socket!.close();
    positions.socket!.close();
  });

  it("refuses what it cannot do with the spec's codes, and changes nothing", async () => {
    const market = await openExclusive(["North", "South", "East"]);
    const plain = await platform.openMarket({ title: "Plain market" });
    const trader = await platform.fundedUser("100");
    const maker = await platform.fundedUser("100");
    await buyNo(market, 0, trader.client, maker.client, 0.6, 5);
    const before = [await usdtOf(trader.client), await heldShares(trader.client, market.marketId)];
    const convert = (body: Partial<ConvertRequest>) =>
      trader.client.convert({
        marketId: market.marketId,
        outcomeIds: [market.outcomeIds[0]!],
        shares: 1,
        ...body,
      });
    await assert.rejects(
      convert({ marketId: plain.marketId, outcomeIds: [plain.outcomeId] }),
      apiError(400, 1001, "bad request: Market is not exclusive"),
    );
    await assert.rejects(
      convert({ marketId: "999999" }),
      apiError(404, 1404, "resource not found: Market not found"),
    );
    await assert.rejects(convert({ shares: 6 }), apiError(400, 1001, "bad request: Insufficient shares"));
    await assert.rejects(
      convert({ outcomeIds: [market.outcomeIds[0]!, market.outcomeIds[1]!] }),
      apiError(400, 1001, "bad request: Insufficient shares"),
    );
    await assert.rejects(
      convert({ outcomeIds: market.outcomeIds }),
      apiError(400, 1001, "bad request: outcomeIds must list 1 to 2 outcomes of the market"),
    );
    await assert.rejects(
      convert({ outcomeIds: [market.outcomeIds[0]!, market.outcomeIds[0]!] }),
      apiError(400, 1001, "bad request: outcomeIds must list distinct outcome ids"),
    );
    await assert.rejects(
      convert({ outcomeIds: [plain.outcomeId] }),
      apiError(400, 1001, "bad request: outcomeIds must list 1 to 2 outcomes of the market"),
    );
    await assert.rejects(
      convert({ shares: 0.00001 }),
      apiError(400, 1001, "bad request: Shares must be a multiple of 0.0001"),
    );
    await assert.rejects(
      convert({ shares: 0.123456789 }),
      apiError(400, 1001, "bad request: shares has more than 8 decimal places"),
    );
    await assert.rejects(
      convert({ shares: -1 }),
      apiError(400, 1001, "bad request: shares must be positive"),
    );
    // Wrong types never reach the core: 400/1001 naming the field.
    for (const [field, value] of [
      ["shares", "1"],
      ["outcomeIds", "1"],
      ["outcomeIds", []],
    ] as const) {
      const raw = await platform.signed(platform.partner, {
        method: "POST",
        path: "/ordering/convert",
        body: JSON.stringify({
          marketId: market.marketId,
          outcomeIds: [market.outcomeIds[0]],
          shares: 1,
          [field]: value,
        }),
        contentType: "application/json",
        cookie: trader.client.sessionCookie!,
      });
      assert.equal(raw.status, 400, raw.text);
      assert.equal((raw.json as { code: number }).code, 1001);
      assert.match((raw.json as { message: string }).message, new RegExp(field));
    }
    // Without a session: unauthorized, as every user-scoped route.
    const anonymous = await platform.signed(platform.partner, {
      method: "POST",
      path: "/ordering/convert",
      body: JSON.stringify({ marketId: market.marketId, outcomeIds: [market.outcomeIds[0]], shares: 1 }),
      contentType: "application/json",
    });
    assert.equal(anonymous.status, 401);
    await platform.operator.closeMarket(market.marketId);
    await assert.rejects(convert({}), apiError(400, 1001, "bad request: Market is not open"));
    assert.deepEqual([await usdtOf(trader.client), await heldShares(trader.client, market.marketId)], before);
    assert.equal((await trader.client.getAccountHistory({ type: "CONVERT" })).records.length, 0);
  });

  it("pays after settlement exactly what the shares converted would have paid", async () => {
    const market = await openExclusive();
    const trader = await platform.fundedUser("100");
    const holder = await platform.fundedUser("100");
    const maker = await platform.fundedUser("100");
    // Both buy the same No shares; only the trader converts them.
    for (const client of [trader.client, holder.client]) {
      await buyNo(market, 0, client, maker.client, 0.75, 8);
      await buyNo(market, 3, client, maker.client, 0.75, 8);
    }
    await trader.client.convert({
      marketId: market.marketId,
      outcomeIds: [market.outcomeIds[0]!, market.outcomeIds[3]!],
      shares: 8,
    });
    await platform.operator.closeMarket(market.marketId);
    await platform.operator.resolveMarket(market.marketId, {
      outcomes: market.outcomeIds.map((outcomeId, index) => ({
        outcomeId,
        winningOptionId: index === 2 ? market.yes[index]! : market.no[index]!,
      })),
    });
    await platform.operator.finalizeMarket(market.marketId);
    for (const client of [trader.client, holder.client]) {
      const positions = await client.getPositions({
        marketId: market.marketId,
        status: "settled",
        pageSize: 100,
      });
      const claimed = await client.claimAll(positions.records.map((position) => position.positionId));
      assert.ok(claimed.results.length > 0);
    }
    // Cyd won: 8 No of Ada and 8 No of Dale pay 16; converted, 8 USDT and 8 Yes of Cyd pay 16 too.
    assert.deepEqual(await usdtOf(trader.client), await usdtOf(holder.client));
    assert.equal((await usdtOf(holder.client)).available, "104");
  });

  it("voids a converted market paying a Yes share 1/n and a No share (n − 1)/n", async () => {
    const market = await openExclusive();
    const trader = await platform.fundedUser("100");
    const maker = await platform.fundedUser("100");
    await buyNo(market, 1, trader.client, maker.client, 0.6, 10);
    await trader.client.convert({
      marketId: market.marketId,
      outcomeIds: [market.outcomeIds[1]!],
      shares: 4,
    });
    await platform.operator.voidMarket(market.marketId);
    const claimable = async (client: PredexClient) =>
      Object.fromEntries(
        (await client.getPositions({ marketId: market.marketId, pageSize: 100 })).records.map((position) => [
          position.optionId,
          position.claimable,
        ]),
      );
    // 6 No of Brook pay 6 × 3/4; 4 Yes of Ada, Cyd and Dale 4 × 1/4 each; the maker's 10 Yes of Brook 10 × 1/4.
    assert.deepEqual(await claimable(trader.client), {
      [market.no[1]!]: "4.5",
      [market.yes[0]!]: "1",
      [market.yes[2]!]: "1",
      [market.yes[3]!]: "1",
    });
    assert.deepEqual(await claimable(maker.client), { [market.yes[1]!]: "2.5" });
    for (const client of [trader.client, maker.client]) {
      const positions = await client.getPositions({ marketId: market.marketId, pageSize: 100 });
      await client.claimAll(positions.records.map((position) => position.positionId));
    }
    // The trader paid 6 and got 7.5 back; the maker paid 4 and got 2.5: the 10 USDT of collateral.
    assert.equal((await usdtOf(trader.client)).available, "101.5");
    assert.equal((await usdtOf(maker.client)).available, "98.5");
  });
});
