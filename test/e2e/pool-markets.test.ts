// AMM and parimutuel markets end to end through the SDK against a real server (DESIGN §3): the
// operator creates and opens each, users trade with MARKET orders through POST
// /ordering/create-order, the detail shows the pools' figures, the operator settles, and the
// winners claim exactly; balances are exact to the atom.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { formatAtoms, parseAtoms } from "../../src/core/money.js";
import { PredexApiError } from "../../src/sdk/errors.js";
import { startTradingPlatform, type TradingPlatform, usdtOf } from "./trading-fixtures.js";

function atoms(decimal: string): bigint {
  const parsed = parseAtoms(decimal);
  assert.ok(parsed.ok, decimal);
  return parsed.atoms;
}

async function refused(promise: Promise<unknown>, status: number, code: number, message: string) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof PredexApiError, String(error));
    assert.deepEqual([error.status, error.code, error.message], [status, code, message]);
    return true;
  });
}

describe("AMM and parimutuel markets through the SDK", () => {
  let platform: TradingPlatform;
  before(async () => {
    platform = await startTradingPlatform();
  });
  after(() => platform.close());

  it("refuses an AMM market with too little liquidity or weights that do not add up to 1", async () => {
    await refused(
      platform.createMarket({ modelType: "AMM", liquidity: 99.9 }),
      400,
      1001,
      "bad request: Liquidity cannot be less than 100",
    );
    await refused(
      platform.createMarket({ modelType: "AMM", weights: [0.5, 0.4] }),
      400,
      1001,
      "bad request: The weights must add up to 1",
    );
  });

  it("AMM: create, buy, sell, settle, claim; the detail shows liquidity, fees and the pool's prices", async () => {
    const market = await platform.openMarket({
      title: "Will the AMM hold?",
      modelType: "AMM",
      liquidity: 1000,
      weights: [0.6, 0.4],
      buyFee: 100,
      sellFee: 100,
    });
    const detail = market.detail;
    assert.deepEqual(
      [detail.modelType, detail.liquidity, detail.buyFee, detail.sellFee, detail.totalStake],
      ["AMM", 1000, 100, 100, null],
    );
    assert.deepEqual(
      detail.outcomes[0]!.options.map((option) => [option.price, option.chance]),
      [
        ["0.6", 0.6],
        ["0.39999999", 0.39999999],
      ],
    );
    const alice = await platform.fundedUser("100");
    const common = { marketId: market.marketId, outcomeId: market.outcomeId, optionId: market.yes };
    await refused(
      alice.client.createOrder({ ...common, side: "BUY", orderType: "LIMIT", limitPrice: 0.5, shares: 1 }),
      400,
      1001,
      "bad request: LIMIT orders are not supported on AMM markets",
    );
    const bought = await alice.client.createOrder({
      ...common,
      side: "BUY",
      orderType: "MARKET",
      amount: 10,
    });
    assert.deepEqual([bought.status, bought.fee, bought.trades.length], ["FILLED", "0.1", 1]);
    const shares = atoms(bought.filledShares);
    assert.ok(shares > atoms("16") && shares < atoms("16.5"), bought.filledShares);
    const after = await alice.client.getMarketDetail(market.marketId);
    assert.ok(after.outcomes[0]!.options[0]!.chance > 0.6);
    assert.ok(after.outcomes[0]!.options[0]!.priceBuy > after.outcomes[0]!.options[0]!.priceSell);
    // The outcome's last trade price (and so the live market-price channel) follows the pool.
    const price = await alice.client.getPrice({ marketId: market.marketId, outcomeId: market.outcomeId });
    assert.equal(price.bestBid, null);
    assert.ok(
      Number(price.lastTradePrice) > 0.6 && Number(price.lastTradePrice) < 0.62,
      price.lastTradePrice!,
    );

    const half = shares / 2n;
    const sold = await alice.client.createOrder({
      ...common,
      side: "SELL",
      orderType: "MARKET",
      shares: Number(formatAtoms(half)),
    });
    assert.equal(sold.status, "FILLED");
    assert.ok(atoms(sold.fee) > 0n, "the sell fee was taken");
    const { available } = await usdtOf(alice.client);

    await platform.operator.closeMarket(market.marketId);
    await platform.operator.resolveMarket(market.marketId, {
      outcomes: [{ outcomeId: market.outcomeId, winningOptionId: market.yes }],
    });
    await platform.operator.finalizeMarket(market.marketId);
    const [position] = (await alice.client.getPositions({ marketId: market.marketId })).records;
    assert.equal(position!.claimable, formatAtoms(shares - half));
    const claim = await alice.client.claim(position!.positionId);
    assert.equal(claim.claimedAmount, formatAtoms(shares - half));
    assert.equal((await usdtOf(alice.client)).available, formatAtoms(atoms(available) + shares - half));
  });

  it("parimutuel: stakes, totalStake and chance, SELL refused, pro-rata payouts less the fee", async () => {
    const market = await platform.openMarket({
      title: "Who wins the pool?",
      modelType: "parimutuel",
      settlementFee: 500,
    });
    const [alice, bob, carol] = await Promise.all([
      platform.fundedUser("100"),
      platform.fundedUser("100"),
      platform.fundedUser("100"),
    ]);
    const stake = (user: typeof alice, optionId: string, amount: number) =>
      user.client.createOrder({
        marketId: market.marketId,
        outcomeId: market.outcomeId,
        optionId,
        side: "BUY",
        orderType: "MARKET",
        amount,
      });
    await stake(alice, market.yes, 10);
    await stake(bob, market.no, 20);
    await stake(carol, market.yes, 5);
    await refused(
      alice.client.createOrder({
        marketId: market.marketId,
        outcomeId: market.outcomeId,
        optionId: market.yes,
        side: "SELL",
        orderType: "MARKET",
        shares: 1,
      }),
      400,
      1001,
      "bad request: SELL orders are not supported on parimutuel markets",
    );
    const detail = await alice.client.getMarketDetail(market.marketId);
    assert.deepEqual(
      [detail.modelType, detail.totalStake, detail.outcomes[0]!.options.map((option) => option.chance)],
      ["parimutuel", "35", [0.42857142, 0.57142857]],
    );

    await platform.operator.closeMarket(market.marketId);
    await platform.operator.resolveMarket(market.marketId, {
      outcomes: [{ outcomeId: market.outcomeId, winningOptionId: market.yes }],
    });
    await platform.operator.finalizeMarket(market.marketId);
    // Pool 35, fee 5% = 1.75; 33.25 shared by the 15 staked on Yes, rounded down.
    const positionOf = async (user: typeof alice) =>
      (await user.client.getPositions({ marketId: market.marketId })).records[0]!;
    assert.equal((await positionOf(alice)).claimable, "22.16666666");
    const aliceClaim = await alice.client.claim((await positionOf(alice)).positionId);
    const carolClaim = await carol.client.claim((await positionOf(carol)).positionId);
    assert.deepEqual([aliceClaim.claimedAmount, carolClaim.claimedAmount], ["22.16666666", "11.08333333"]);
    await refused(
      bob.client.claim((await positionOf(bob)).positionId),
      400,
      1001,
      "bad request: No claimable rewards",
    );
    assert.equal((await usdtOf(alice.client)).available, "112.16666666");
    assert.equal((await usdtOf(bob.client)).available, "80");
  });
});
