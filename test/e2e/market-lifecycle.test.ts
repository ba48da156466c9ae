// The spec's whole typical user flow, steps 1–10 (spec 000 "Typical user flow"), end to end through
// the SDK against a real server, with every balance exact to the atom; then the rest of a market's
// end: claim errors, claim_all with mixed results, positions, void, and a challenge.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PredexClient } from "../../src/sdk/client.js";
import { apiError } from "./harness.js";
import {
  atoms,
  type BinaryMarket,
  startTradingPlatform,
  type TradingPlatform,
  usdtOf,
} from "./trading-fixtures.js";

/** The promise must fail with this HTTP status, code and message. */
async function refused(promise: Promise<unknown>, status: number, code: number, message: string) {
  await assert.rejects(promise, apiError(status, code, message));
}

/** Alice buys `shares` Yes and Bob `shares` No at 0.5 each (a mint). */
async function mint(market: BinaryMarket, alice: PredexClient, bob: PredexClient, shares: number) {
  const common = { marketId: market.marketId, outcomeId: market.outcomeId, side: "BUY" as const };
  await alice.createOrder({ ...common, optionId: market.yes, orderType: "LIMIT", limitPrice: 0.5, shares });
  const filled = await bob.createOrder({
    ...common,
    optionId: market.no,
    orderType: "LIMIT",
    limitPrice: 0.5,
    shares,
  });
  assert.equal(filled.status, "FILLED");
}

async function positionIdOf(client: PredexClient, market: BinaryMarket, optionId: string): Promise<string> {
  const { records } = await client.getPositions({ marketId: market.marketId });
  const position = records.find((record) => record.optionId === optionId);
  assert.ok(position, `a position in option ${optionId}`);
  return position.positionId;
}

describe("the typical user flow, steps 1–10, and the end of a market", () => {
  let platform: TradingPlatform;
  before(async () => {
    platform = await startTradingPlatform();
  });
  after(() => platform.close());

  it("registers, trades, settles and claims, with the final balance exact to the atom", async () => {
    // A 1% taker fee, so that fees show up in the balances; makers pay none.
    const market = await platform.openMarket({ title: "Will it snow in Oslo on Monday?", takerFee: 100 });

    // 1. Register (the fixture keeps the session cookie); the operator credits the deposits.
    const alice = await platform.fundedUser("100");
    const bob = await platform.fundedUser("50");

    // 2. Balances.
    assert.deepEqual(await alice.client.getAssets(), [
      { coinId: "2", symbol: "USDT", available: "100", frozen: "0", total: "100" },
    ]);

    // 3. The market is listed, open and online.
    const listed = await alice.client.listMarkets({ pageSize: 100 });
    const record = listed.records.find((entry) => entry.marketId === market.marketId);
    assert.deepEqual([record?.status, record?.isOnline], ["open", true]);

    // 4. Its detail: open, nothing proposed, no winner yet, the default bond.
    const detail = await alice.client.getMarketDetail(market.marketId);
    assert.deepEqual(
      [detail.status, detail.isOnline, detail.ifHasChallenged, detail.challengeBondAmount, detail.takerFee],
      ["open", true, null, 10, 100],
    );
    assert.deepEqual(
      detail.outcomes[0]!.options.map((option) => [option.title, option.price, option.isWin]),
      [
        ["Yes", "0.5", null],
        ["No", "0.5", null],
      ],
    );

    // 5. An empty book and no prices yet.
    const book = await alice.client.getBook({ marketId: market.marketId, outcomeId: market.outcomeId });
    assert.deepEqual([book.bids, book.asks], [[], []]);
    assert.equal(
      (await alice.client.getPrice({ marketId: market.marketId, outcomeId: market.outcomeId })).bestBid,
      null,
    );

    // 6. Alice bids 10 Yes at 0.6 (6 USDT frozen); Bob buys 4 No at 0.4 against it (a mint, 1% fee),
    // then spends 1 USDT on No at market: 2.4752 shares at 0.4 (0.99008 + 0.0099008 fee).
    const bid = await alice.client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.yes,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.6,
      shares: 10,
    });
    assert.equal(bid.status, "OPEN");
    await bob.client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.no,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.4,
      shares: 4,
    });
    const marketBuy = await bob.client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.no,
      side: "BUY",
      orderType: "MARKET",
      amount: 1,
    });
    assert.deepEqual([marketBuy.filledShares, marketBuy.fee], ["2.4752", "0.0099008"]);
    assert.deepEqual(await usdtOf(bob.client), { available: "47.3840192", frozen: "0", total: "47.3840192" });

    // 7. Alice's bid is open, partly filled; she cancels the rest.
    const open = await alice.client.getOpenOrders({ marketId: market.marketId });
    assert.deepEqual(
      open.records.map((order) => [order.orderId, order.status, order.filledShares]),
      [[bid.orderId, "PARTIALLY_FILLED", "6.4752"]],
    );
    await alice.client.cancelOrder(bid.orderId);
    assert.deepEqual(await usdtOf(alice.client), { available: "96.11488", frozen: "0", total: "96.11488" });

    // 8. Trades: Alice made two fills at 0.6.
    const trades = await alice.client.getTrades({ marketId: market.marketId });
    assert.deepEqual(
      trades.records.map((trade) => [trade.role, trade.price, trade.shares]),
      [
        ["MAKER", "0.6", "2.4752"],
        ["MAKER", "0.6", "4"],
      ],
    );
    const yesPositionId = await positionIdOf(alice.client, market, market.yes);
    const noPositionId = await positionIdOf(bob.client, market, market.no);
    assert.deepEqual(
      (await alice.client.getPositions({ marketId: market.marketId })).records.map((position) => [
        position.shares,
        position.avgPrice,
        position.cost,
        position.status,
        position.claimable,
      ]),
      [["6.4752", "0.6", "3.88512", "open", "0"]],
    );
    await refused(alice.client.claim(yesPositionId), 400, 1001, "bad request: Market not settled");

    // 9. The market settles: the operator closes it, proposes Yes, and finalizes at once.
    await platform.operator.closeMarket(market.marketId);
    await refused(alice.client.claim(yesPositionId), 400, 1001, "bad request: Market not settled");
    const resolving = await platform.operator.resolveMarket(market.marketId, {
      outcomes: [{ outcomeId: market.outcomeId, winningOptionId: market.yes }],
    });
    assert.deepEqual([resolving.status, resolving.ifHasChallenged], ["resolving", false]);
    assert.deepEqual(
      resolving.outcomes[0]!.options.map((option) => option.isWin),
      [null, null],
    );
    const settled = await platform.operator.finalizeMarket(market.marketId);
    assert.deepEqual([settled.status, settled.isOnline, settled.ifHasChallenged], ["settled", true, false]);
    assert.deepEqual(
      settled.outcomes[0]!.options.map((option) => [option.title, option.isWin]),
      [
        ["Yes", true],
        ["No", false],
      ],
    );
    const afterSettlement = await alice.client.getMarketDetail(market.marketId);
    assert.equal(afterSettlement.status, "settled");

    // 10. Alice claims her 6.4752 winning shares: exactly 6.4752 USDT. Bob's No pays nothing.
    const [position] = (await alice.client.getPositions({ status: "settled" })).records;
    assert.deepEqual([position?.positionId, position?.claimable], [yesPositionId, "6.4752"]);
    const claim = await alice.client.claim(yesPositionId);
    assert.deepEqual([claim.positionId, claim.claimedAmount], [yesPositionId, "6.4752"]);
    assert.match(claim.transactionId, /^\d+$/);
    await refused(alice.client.claim(yesPositionId), 400, 1001, "bad request: Already claimed");
    await refused(bob.client.claim(noPositionId), 400, 1001, "bad request: No claimable rewards");
    assert.deepEqual(
      (await alice.client.getPositions({ status: "claimed" })).records.map((entry) => [
        entry.positionId,
        entry.status,
        entry.claimable,
      ]),
      [[yesPositionId, "claimed", "0"]],
    );

    // 96.11488 + 6.4752 = 102.59008; Bob keeps 47.3840192; the fees are 0.0259008: 150 in all.
    assert.deepEqual(await usdtOf(alice.client), { available: "102.59008", frozen: "0", total: "102.59008" });
    assert.deepEqual(await usdtOf(bob.client), { available: "47.3840192", frozen: "0", total: "47.3840192" });
    const final = await alice.client.getMarketDetail(market.marketId);
    assert.equal(final.fee, "0.0259008");
    assert.equal(atoms("102.59008") + atoms("47.3840192") + atoms(final.fee), atoms("150"));
  });

  it("answers a missing, malformed, unknown or another user's positionId as the spec says", async () => {
    const market = await platform.openMarket();
    const alice = await platform.fundedUser("10");
    const bob = await platform.fundedUser("10");
    await mint(market, alice.client, bob.client, 2);
    const alicePosition = await positionIdOf(alice.client, market, market.yes);
    const claimRaw = (body: string) =>
      platform.signed(platform.partner, {
        method: "POST",
        path: "/ordering/claim",
        body,
        contentType: "application/json",
        cookie: bob.client.sessionCookie!,
      });
    const invalid = { code: 1001, message: "bad request: Missing or invalid positionId field", data: null };
    for (const body of [
      "{}",
      '{"positionId": null}',
      '{"positionId": "abc"}',
      '{"positionId": ""}',
      '{"positionId": -1}',
      '{"positionId": 0}',
      '{"positionId": 1.5}',
      '{"positionId": true}',
      '{"positionId": {"id": 1}}',
      "[]",
      '"1"',
      "",
    ]) {
      const response = await claimRaw(body);
      assert.deepEqual([response.status, response.json], [400, invalid], `body ${body}`);
    }
    const notFound = { code: 1404, message: "resource not found: Position not found", data: null };
    for (const body of [`{"positionId": "${alicePosition}"}`, '{"positionId": 999999}']) {
      const response = await claimRaw(body);
      assert.deepEqual([response.status, response.json], [404, notFound], `body ${body}`);
    }
    // A number works as well as the string the API hands out.
    const ownPosition = await positionIdOf(bob.client, market, market.no);
    const unsettled = await claimRaw(`{"positionId": ${ownPosition}}`);
    assert.deepEqual(
      [unsettled.status, unsettled.json],
      [400, { code: 1001, message: "bad request: Market not settled", data: null }],
    );
  });

  it("claim_all answers each position with its amount or its error", async () => {
    const market = await platform.openMarket();
    const other = await platform.openMarket();
    const alice = await platform.fundedUser("20");
    const bob = await platform.fundedUser("20");
    await mint(market, alice.client, bob.client, 3);
    await mint(other, alice.client, bob.client, 1);
    for (const id of [market.marketId]) {
      await platform.operator.closeMarket(id);
      await platform.operator.resolveMarket(id, {
        outcomes: [{ outcomeId: market.outcomeId, winningOptionId: market.yes }],
      });
      await platform.operator.finalizeMarket(id);
    }
    const winning = await positionIdOf(alice.client, market, market.yes);
    const unsettled = await positionIdOf(alice.client, other, other.yes);
    const bobsLosing = await positionIdOf(bob.client, market, market.no);
    const result = await alice.client.claimAll([winning, winning, unsettled, bobsLosing, "x"]);
    assert.equal(result.claimedAmount, "3");
    assert.deepEqual(
      result.results.map((entry) => [entry.positionId, entry.claimedAmount ?? null, entry.error ?? null]),
      [
        [winning, "3", null],
        [winning, null, { code: 1001, message: "bad request: Already claimed" }],
        [unsettled, null, { code: 1001, message: "bad request: Market not settled" }],
        [bobsLosing, null, { code: 1404, message: "resource not found: Position not found" }],
        ["x", null, { code: 1001, message: "bad request: Missing or invalid positionId field" }],
      ],
    );
    // Whatever order the claims committed in, exactly one of the two identical ids paid.
    // 20 − 1.5 − 0.5 paid to mint, + 3 claimed.
    assert.deepEqual(await usdtOf(alice.client), { available: "21", frozen: "0", total: "21" });
    await refused(
      alice.client.claimAll([]),
      400,
      1001,
      "bad request: Missing or invalid positionIdList field: 1 to 100 position ids",
    );
  });

  it("void returns everything: resting orders unfrozen, every share paid 0.5", async () => {
    const market = await platform.openMarket();
    const alice = await platform.fundedUser("10");
    const bob = await platform.fundedUser("10");
    await mint(market, alice.client, bob.client, 4);
    // Alice sells 1 Yes to Bob at 0.7; Bob then rests a bid he will never fill.
    await alice.client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.yes,
      side: "SELL",
      orderType: "LIMIT",
      limitPrice: 0.7,
      shares: 1,
    });
    await bob.client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.yes,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.7,
      shares: 1,
    });
    await bob.client.createOrder({
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.yes,
      side: "BUY",
      orderType: "LIMIT",
      limitPrice: 0.3,
      shares: 5,
    });
    assert.deepEqual(await usdtOf(bob.client), { available: "5.8", frozen: "1.5", total: "7.3" });

    const voided = await platform.operator.voidMarket(market.marketId);
    assert.deepEqual([voided.status, voided.isOnline], ["void", false]);
    assert.deepEqual(
      voided.outcomes[0]!.options.map((option) => option.isWin),
      [null, null],
    );
    assert.equal((await bob.client.getOpenOrders()).total, 0);
    assert.deepEqual(await usdtOf(bob.client), { available: "7.3", frozen: "0", total: "7.3" });
    await refused(
      platform.operator.voidMarket(market.marketId),
      400,
      1001,
      "bad request: The current market status does not allow this operation",
    );

    // Alice: 3 Yes → 1.5; Bob: 4 No → 2 and 1 Yes → 0.5.
    const alicePositions = (await alice.client.getPositions({ marketId: market.marketId })).records;
    assert.deepEqual(
      alicePositions.map((position) => [position.status, position.claimable]),
      [["settled", "1.5"]],
    );
    const aliceClaim = await alice.client.claim(alicePositions[0]!.positionId);
    assert.equal(aliceClaim.claimedAmount, "1.5");
    const bobPositions = (await bob.client.getPositions({ marketId: market.marketId })).records;
    const bobClaims = await bob.client.claimAll(bobPositions.map((position) => position.positionId));
    assert.equal(bobClaims.claimedAmount, "2.5");
    // Alice paid 2 and got 0.7 + 1.5; Bob paid 2 + 0.7 and got 2.5: 20 in all, as deposited.
    assert.deepEqual(await usdtOf(alice.client), { available: "10.2", frozen: "0", total: "10.2" });
    assert.deepEqual(await usdtOf(bob.client), { available: "9.8", frozen: "0", total: "9.8" });
  });

  it("a challenge freezes the bond; a right one gets it back, a wrong one forfeits it", async () => {
    const alice = await platform.fundedUser("10");
    const bob = await platform.fundedUser("10");
    const carol = await platform.fundedUser("30");
    for (const right of [true, false]) {
      const market = await platform.openMarket();
      await mint(market, alice.client, bob.client, 2);
      await platform.operator.closeMarket(market.marketId);
      const resolving = await platform.operator.resolveMarket(market.marketId, {
        outcomes: [{ outcomeId: market.outcomeId, winningOptionId: market.yes }],
        challengeBondAmount: "12.5",
      });
      assert.equal(resolving.challengeBondAmount, 12.5);
      const challenged = await platform.operator.challengeMarket(market.marketId, {
        userId: carol.userId,
        reason: "The official source says No",
      });
      assert.equal(challenged.ifHasChallenged, true);
      assert.deepEqual(await usdtOf(carol.client), { available: "17.5", frozen: "12.5", total: "30" });
      await refused(
        platform.operator.challengeMarket(market.marketId, { userId: alice.userId }),
        400,
        1001,
        "bad request: The current market status does not allow this operation",
      );
      const settled = await platform.operator.finalizeMarket(market.marketId, {
        outcomes: [{ outcomeId: market.outcomeId, winningOptionId: right ? market.no : market.yes }],
      });
      assert.deepEqual(
        settled.outcomes[0]!.options.map((option) => option.isWin),
        right ? [false, true] : [true, false],
      );
      const winner = right ? bob : alice;
      const claim = await winner.client.claim(
        await positionIdOf(winner.client, market, right ? market.no : market.yes),
      );
      assert.equal(claim.claimedAmount, "2");
      if (!right) assert.equal(settled.fee, "12.5");
    }
    // Carol got her bond back once and lost it once.
    assert.deepEqual(await usdtOf(carol.client), { available: "17.5", frozen: "0", total: "17.5" });
  });

  it("lists positions with filters and pagination inside data, and refuses bad queries", async () => {
    const first = await platform.openMarket();
    const second = await platform.openMarket();
    const alice = await platform.fundedUser("10");
    const bob = await platform.fundedUser("10");
    await mint(first, alice.client, bob.client, 1);
    await mint(second, alice.client, bob.client, 2);
    const all = await alice.client.getPositions({ pageSize: 1 });
    assert.deepEqual([all.current, all.size, all.total, all.pages, all.records.length], [1, 1, 2, 2, 1]);
    const page2 = await alice.client.getPositions({ page: 2, pageSize: 1 });
    assert.deepEqual(
      [page2.records[0]?.marketId, page2.records[0]?.shares, page2.records[0]?.cost],
      [second.marketId, "2", "1"],
    );
    assert.equal((await alice.client.getPositions({ marketId: first.marketId })).total, 1);
    assert.equal((await alice.client.getPositions({ status: "settled" })).total, 0);
    await platform.operator.voidMarket(first.marketId);
    assert.deepEqual(
      (await alice.client.getPositions({ status: "settled" })).records.map((record) => [
        record.marketId,
        record.claimable,
      ]),
      [[first.marketId, "0.5"]],
    );
    assert.equal((await alice.client.getPositions({ status: "open" })).total, 1);
    const query = (parameters: Record<string, string>) =>
      platform.signed(platform.partner, {
        path: "/account/positions",
        query: parameters,
        cookie: alice.client.sessionCookie!,
      });
    const badStatus = await query({ status: "won" });
    assert.equal(badStatus.status, 400);
    assert.match(badStatus.headers.get("content-type") ?? "", /text\/plain/);
    const badPage = await query({ page: "0" });
    assert.deepEqual(
      [badPage.status, badPage.json],
      [400, { code: 1001, message: "bad request: page must be >= 1", data: null }],
    );
  });

  it("only a closed market can be resolved and only a resolving one finalized", async () => {
    const market = await platform.openMarket();
    const winners = { outcomes: [{ outcomeId: market.outcomeId, winningOptionId: market.yes }] };
    const conflict = "bad request: The current market status does not allow this operation";
    await refused(platform.operator.resolveMarket(market.marketId, winners), 400, 1001, conflict);
    await refused(platform.operator.finalizeMarket(market.marketId), 400, 1001, conflict);
    await platform.operator.closeMarket(market.marketId);
    await refused(
      platform.operator.resolveMarket(market.marketId, {
        outcomes: [{ outcomeId: market.outcomeId, winningOptionId: "999999" }],
      }),
      404,
      1404,
      "resource not found: Option not found",
    );
    await refused(
      platform.operator.resolveMarket("999999", winners),
      404,
      1404,
      "resource not found: Market not found",
    );
    // finalize takes no body at all as well as corrected winners.
    await platform.operator.resolveMarket(market.marketId, winners);
    const bare = await platform.admin("POST", `/admin/markets/${market.marketId}/finalize`);
    assert.equal(bare.status, 200, bare.text);
    assert.equal((bare.json as { data: { status: string } }).data.status, "settled");
  });
});
