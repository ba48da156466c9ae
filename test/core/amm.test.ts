// The AMM (fixed-product market maker) of DESIGN §3: its math against known values of the Gnosis
// FPMM, and its markets through the decider: creation and funding, MARKET BUY and SELL, fees,
// bounds, price protection, refusals that change nothing, settlement, void and claims.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ceilSqrt,
  initialFunding,
  marginalBuyPrice,
  marginalPrice,
  marginalSellPrice,
  quoteBuy,
  quoteSell,
} from "../../src/core/pools/amm/fpmm.js";
import { platformPoolFundingNet } from "../../src/core/pools/invariants.js";
import { available, claimAll, openPoolMarket, sellAtoms, settle } from "./amm-harness.js";
import { atoms, bookKinds, Exchange, eventsOfType, sharesHeld } from "./exchange-harness.js";

const alice = 1;
const bob = 2;

describe("FPMM math", () => {
  it("buys the Gnosis FPMM's amount: 10 into a 100/100 pool gives 19.09090909 shares", () => {
    const quote = quoteBuy([atoms("100"), atoms("100")], 0, atoms("10"));
    // endingOutcomeBalance = ceil(100 × 100 / 110) = 90.90909091; bought = 100 + 10 − 90.90909091.
    assert.equal(quote.shares, atoms("19.09090909"));
    assert.deepEqual(quote.balancesAfter, [atoms("90.90909091"), atoms("110")]);
  });

  it("sells for the largest return that keeps the product: the quadratic's smaller root, rounded down", () => {
    const balances = [atoms("90.90909091"), atoms("110")] as const;
    const quote = quoteSell(balances, 0, atoms("19.09090909"));
    // Selling back what 10 bought returns just under 10: the pool kept the rounding.
    assert.ok(quote.returned <= atoms("10") && quote.returned > atoms("9.99999990"), String(quote.returned));
    const product = balances[0] * balances[1];
    assert.ok(quote.balancesAfter[0] * quote.balancesAfter[1] >= product);
    const [own, other] = [balances[0] + atoms("19.09090909"), balances[1]];
    assert.ok((own - quote.returned - 1n) * (other - quote.returned - 1n) < product, "r + 1 would break k");
  });

  it("funds a pool whose prices are the weights, the rest of the sets going to the funder", () => {
    const funding = initialFunding(atoms("100"), [atoms("0.25"), atoms("0.75")]);
    assert.deepEqual(funding.balances, [atoms("100"), atoms("33.33333333")]);
    assert.deepEqual(funding.funderShares, [0n, atoms("66.66666667")]);
    assert.equal(marginalPrice(funding.balances, 0), atoms("0.24999999"));
    assert.equal(marginalPrice([atoms("100"), atoms("100")], 1), atoms("0.5"));
  });

  it("prices the next share with the fee: buy 0.5 / (1 − 2%) rounded up, sell 0.5 × (1 − 2%) rounded down", () => {
    const balances = [atoms("100"), atoms("100")] as const;
    assert.equal(marginalBuyPrice(balances, 0, 200), atoms("0.51020409"));
    assert.equal(marginalSellPrice(balances, 0, 200), atoms("0.49"));
  });

  it("takes exact ceiling square roots", () => {
    for (const n of [0n, 1n, 2n, 4n, 99n, 100n, 101n, 10n ** 40n + 1n, (10n ** 20n + 7n) ** 2n]) {
      const root = ceilSqrt(n);
      assert.ok(root * root >= n && (root === 0n || (root - 1n) * (root - 1n) < n), String(n));
    }
  });
});

for (const kind of bookKinds) {
  describe(`AMM markets (${kind} book)`, () => {
    it("creates a market funded by the platform: one AmmPoolFunded per outcome, money conserved", () => {
      const exchange = new Exchange(kind);
      const market = openPoolMarket(exchange, "AMM", {
        liquidity: atoms("1000"),
        weights: [atoms("0.6"), atoms("0.4")],
      });
      const funded = eventsOfType(exchange.journal, "AmmPoolFunded");
      assert.equal(funded.length, 1);
      assert.equal(funded[0]!.amount, atoms("1000"));
      assert.equal(exchange.state.outcomes.get(market.outcomeId)!.collateral, atoms("1000"));
      assert.equal(platformPoolFundingNet(exchange.state), atoms("1000"));
      const pool = exchange.state.pools.ammPools.get(market.outcomeId)!;
      assert.ok(marginalPrice(pool.balances, 0) >= atoms("0.59999999"));
    });

    it("refuses liquidity below 100 and weights that do not add up to exactly 1", () => {
      const exchange = new Exchange(kind);
      const create = (pool: object) => ({
        type: "CreateMarket" as const,
        ...openArgs(),
        pool,
      });
      for (const pool of [
        { liquidity: atoms("99.99999999") },
        { weights: [atoms("0.5"), atoms("0.49999999")] },
        { weights: [atoms("1"), 0n] },
        { weights: [atoms("0.5")] },
        { buyFeeBps: 1_001 },
        { buyAmountMin: atoms("10"), buyAmountMax: atoms("5") },
      ]) {
        exchange.refuse(create(pool), "INVALID_INPUT");
      }
      const decision = exchange.decider.decide(exchange.state, create({ liquidity: atoms("50") }), {
        nowMs: 0,
        sequence: 1n,
      });
      assert.deepEqual(decision, {
        ok: false,
        rejection: { code: "INVALID_INPUT", message: "Liquidity cannot be less than 100" },
      });
      const weights = exchange.decider.decide(
        exchange.state,
        create({ weights: [atoms("0.3"), atoms("0.3")] }),
        { nowMs: 0, sequence: 1n },
      );
      assert.deepEqual(weights, {
        ok: false,
        rejection: { code: "INVALID_INPUT", message: "The weights must add up to 1" },
      });
    });

    it("a MARKET BUY spends exactly its amount: the fee to fee income, the rest into the pool for shares", () => {
      const exchange = new Exchange(kind);
      const market = openPoolMarket(exchange, "AMM", { liquidity: atoms("100"), buyFeeBps: 100 });
      exchange.deposit(alice, "50");
      const events = exchange.accept(exchange.marketBuy(alice, market, market.yes, "10.1"));
      assert.deepEqual(
        events.map((event) => event.type),
        ["OrderPlaced", "PoolTradeExecuted"],
      );
      const [placed] = eventsOfType(events, "OrderPlaced");
      const [trade] = eventsOfType(events, "PoolTradeExecuted");
      assert.equal(placed!.status, "FILLED");
      assert.equal(trade!.fee, atoms("0.101"));
      assert.equal(trade!.amount, atoms("9.999"));
      assert.equal(trade!.shares, quoteBuy([atoms("100"), atoms("100")], 0, atoms("9.999")).shares);
      assert.equal(available(exchange, alice), atoms("39.9"));
      assert.equal(sharesHeld(exchange, alice, market.yes), trade!.shares);
      assert.equal(exchange.state.markets.get(market.marketId)!.feeIncome, atoms("0.101"));
    });

    it("a MARKET SELL returns the pool's amount less the sell fee, rounded in the pool's favour", () => {
      const exchange = new Exchange(kind);
      const market = openPoolMarket(exchange, "AMM", { liquidity: atoms("100"), sellFeeBps: 200 });
      exchange.deposit(alice, "50");
      const [, bought] = exchange.accept(exchange.marketBuy(alice, market, market.no, "10"));
      assert.ok(bought?.type === "PoolTradeExecuted");
      const events = exchange.accept(sellAtoms(alice, market, market.no, bought.shares));
      const [sold] = eventsOfType(events, "PoolTradeExecuted");
      assert.ok(sold!.amount <= atoms("10"));
      assert.equal(sold!.fee, (sold!.amount * 200n) / 10_000n);
      assert.equal(available(exchange, alice), atoms("40") + sold!.amount - sold!.fee);
      assert.equal(sharesHeld(exchange, alice, market.no), 0n);
    });

    it("refuses LIMIT orders, amounts out of range, missing funds or shares, and too much slippage, changing nothing", () => {
      const exchange = new Exchange(kind);
      const market = openPoolMarket(exchange, "AMM", {
        liquidity: atoms("100"),
        buyAmountMin: atoms("1"),
        buyAmountMax: atoms("20"),
        sellSharesMin: atoms("1"),
      });
      exchange.deposit(alice, "100");
      exchange.refuse(exchange.limit(alice, market, market.yes, "BUY", "0.5", "1"), "MODEL_NOT_SUPPORTED");
      const limit = exchange.decider.decide(
        exchange.state,
        exchange.limit(alice, market, market.yes, "BUY", "0.5", "1"),
        { nowMs: exchange.nowMs, sequence: 99n },
      );
      assert.deepEqual(limit, {
        ok: false,
        rejection: { code: "MODEL_NOT_SUPPORTED", message: "LIMIT orders are not supported on AMM markets" },
      });
      exchange.refuse(exchange.marketBuy(alice, market, market.yes, "0.99999999"), "AMOUNT_OUT_OF_RANGE");
      exchange.refuse(exchange.marketBuy(alice, market, market.yes, "20.00000001"), "AMOUNT_OUT_OF_RANGE");
      exchange.refuse(exchange.marketBuy(bob, market, market.yes, "5"), "INSUFFICIENT_BALANCE");
      exchange.refuse(exchange.marketSell(alice, market, market.yes, "1"), "INSUFFICIENT_SHARES");
      // 20 into 100/100 moves Yes from 0.5 to 0.59 (≤ 0.1): accepted. Protection 0.05: refused.
      const tight = openPoolMarket(
        exchange,
        "AMM",
        { liquidity: atoms("100") },
        { marketOrderPriceProtection: atoms("0.05") },
      );
      exchange.refuse(exchange.marketBuy(alice, tight, tight.yes, "20"), "PRICE_PROTECTION");
      exchange.accept(exchange.marketBuy(alice, market, market.yes, "20"));
    });

    it("price protection bounds the marginal price after the order against the one at arrival", () => {
      const exchange = new Exchange(kind);
      const market = openPoolMarket(exchange, "AMM", { liquidity: atoms("100") });
      exchange.deposit(alice, "1000");
      // Yes after investing x into 100/100: (100 + x) / (100 + x + 10000/(100 + x)). 0.6 at x ≈ 22.47.
      exchange.accept(exchange.marketBuy(alice, market, market.yes, "22.4"));
      const pool = exchange.state.pools.ammPools.get(market.outcomeId)!;
      assert.ok(marginalPrice(pool.balances, 0) <= atoms("0.6"));
      const second = openPoolMarket(exchange, "AMM", { liquidity: atoms("100") });
      exchange.refuse(exchange.marketBuy(alice, second, second.yes, "22.5"), "PRICE_PROTECTION");
    });

    it("settles: a winning share claims 1, the pool and funder shares go back to the platform", () => {
      const exchange = new Exchange(kind);
      const market = openPoolMarket(exchange, "AMM", { liquidity: atoms("100") });
      exchange.deposit(alice, "10");
      exchange.deposit(bob, "10");
      exchange.accept(exchange.marketBuy(alice, market, market.yes, "10"));
      exchange.accept(exchange.marketBuy(bob, market, market.no, "10"));
      const aliceShares = sharesHeld(exchange, alice, market.yes);
      const events = settle(exchange, market, market.yes);
      const [pool] = eventsOfType(events, "PoolSettled");
      assert.equal(pool!.returnedToPlatform, atoms("120") - aliceShares);
      assert.equal(claimAll(exchange, alice, market), aliceShares);
      assert.equal(claimAll(exchange, bob, market), 0n);
      assert.equal(exchange.state.outcomes.get(market.outcomeId)!.collateral, 0n);
    });

    it("void: every share claims half a USDT, rounded down; the rest returns to the platform", () => {
      const exchange = new Exchange(kind);
      const market = openPoolMarket(exchange, "AMM", { liquidity: atoms("100") });
      exchange.deposit(alice, "10");
      exchange.accept(exchange.marketBuy(alice, market, market.yes, "10"));
      const held = sharesHeld(exchange, alice, market.yes);
      exchange.accept({ type: "VoidMarket", marketId: market.marketId });
      assert.equal(claimAll(exchange, alice, market), held / 2n);
      assert.equal(exchange.state.outcomes.get(market.outcomeId)!.collateral, 0n);
    });
  });
}

describe("pool markets through the whole lifecycle", () => {
  it("an AMM market of two outcomes funds, trades and settles each outcome on its own", () => {
    const exchange = new Exchange("fast");
    const [created] = exchange.accept({
      ...openArgs(),
      type: "CreateMarket",
      outcomes: [
        { name: "A", options: null },
        { name: "B", options: ["Up", "Down"] },
      ],
      pool: { liquidity: atoms("200") },
    });
    assert.ok(created?.type === "MarketCreated");
    assert.equal(eventsOfType(exchange.journal, "AmmPoolFunded").length, 2);
    exchange.accept({ type: "OpenMarket", marketId: created.marketId });
    const [first, second] = created.outcomes.map((outcome) => ({
      marketId: created.marketId,
      outcomeId: outcome.outcomeId,
      yes: outcome.options[0]!.optionId,
      no: outcome.options[1]!.optionId,
    }));
    exchange.deposit(alice, "100");
    exchange.accept(exchange.marketBuy(alice, first!, first!.yes, "10"));
    exchange.accept(exchange.marketBuy(alice, second!, second!.no, "10"));
    const winningShares = sharesHeld(exchange, alice, first!.yes);
    exchange.accept({ type: "CloseMarket", marketId: created.marketId });
    exchange.accept({
      type: "ResolveMarket",
      marketId: created.marketId,
      proposerId: null,
      winners: [
        { outcomeId: first!.outcomeId, winningOptionId: first!.yes },
        { outcomeId: second!.outcomeId, winningOptionId: second!.yes },
      ],
      challengeWindowMs: 1_000,
      challengeBond: null,
    });
    // The scheduler's settlement once the window has passed, unchallenged.
    exchange.nowMs += 1_000;
    const settled = exchange.accept({ type: "SettleMarket", marketId: created.marketId });
    assert.deepEqual(
      settled.map((event) => event.type),
      ["MarketSettled", "PoolSettled", "PoolSettled"],
    );
    assert.equal(claimAll(exchange, alice, first!), winningShares);
    assert.equal(
      platformPoolFundingNet(exchange.state),
      atoms("400") -
        eventsOfType(settled, "PoolSettled").reduce((sum, event) => sum + event.returnedToPlatform, 0n),
    );
  });

  it("a parimutuel market settles through the scheduler too, its challenge bond forfeited to fees", () => {
    const exchange = new Exchange("fast");
    const market = openPoolMarket(exchange, "parimutuel", { settlementFeeBps: 100 });
    exchange.deposit(alice, "100");
    exchange.deposit(bob, "100");
    exchange.accept(exchange.marketBuy(alice, market, market.yes, "30"));
    exchange.accept(exchange.marketBuy(bob, market, market.no, "10"));
    exchange.accept({ type: "CloseMarket", marketId: market.marketId });
    exchange.accept({
      type: "ResolveMarket",
      marketId: market.marketId,
      proposerId: null,
      winners: [{ outcomeId: market.outcomeId, winningOptionId: market.yes }],
      challengeWindowMs: 1_000,
      challengeBond: atoms("5"),
    });
    exchange.accept({
      type: "ChallengeResolution",
      marketId: market.marketId,
      userId: bob,
      reason: "No won",
    });
    const events = exchange.accept({ type: "FinalizeMarket", marketId: market.marketId, winners: null });
    assert.deepEqual(
      events.map((event) => event.type),
      ["ChallengeBondForfeited", "MarketSettled", "PoolSettled"],
    );
    // Pool 40, fee 0.4, Alice's 30 of the winning 30 takes the 39.6 left.
    assert.equal(claimAll(exchange, alice, market), atoms("39.6"));
    assert.equal(exchange.state.markets.get(market.marketId)!.feeIncome, atoms("5.4"));
  });
});

function openArgs() {
  return {
    title: "AMM",
    modelType: "AMM" as const,
    outcomes: [{ name: "AMM", options: null }],
    tickSize: null,
    minOrderSize: null,
    makerFeeBps: null,
    takerFeeBps: null,
    marketOrderPriceProtection: null,
    limitOrderPriceProtection: null,
    startTimeMs: null,
    endTimeMs: null,
    creatorId: null,
    details: null,
  };
}
