// Parimutuel markets (DESIGN §3): stakes per option, totalStake and chance from the pools, SELL and
// LIMIT refused, and settlement: the pool less the settlement fee split pro rata among the
// winners, rounded down, the dust to fee income; no winning stake or void returns every stake.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chanceOf } from "../../src/core/pools/parimutuel/parimutuel-payout.js";
import { available, claimAll, openPoolMarket, settle } from "./amm-harness.js";
import { atoms, bookKinds, Exchange, eventsOfType } from "./exchange-harness.js";

const [alice, bob, carol] = [1, 2, 3];

for (const kind of bookKinds) {
  describe(`parimutuel markets (${kind} book)`, () => {
    it("a stake joins the option's pool whole; the position counts it as shares at price 1", () => {
      const exchange = new Exchange(kind);
      const market = openPoolMarket(exchange, "parimutuel", { settlementFeeBps: 500 });
      exchange.deposit(alice, "10");
      const events = exchange.accept(exchange.marketBuy(alice, market, market.yes, "4"));
      const [trade] = eventsOfType(events, "PoolTradeExecuted");
      assert.deepEqual([trade!.shares, trade!.amount, trade!.fee], [atoms("4"), atoms("4"), 0n]);
      assert.equal(available(exchange, alice), atoms("6"));
      const pool = exchange.state.pools.parimutuelPools.get(market.outcomeId)!;
      assert.deepEqual(pool.stakes, [atoms("4"), 0n]);
      assert.equal(chanceOf(pool.stakes, 0), atoms("1"));
      assert.equal(chanceOf([0n, 0n], 0), atoms("0.5"));
      assert.equal(chanceOf([atoms("1"), atoms("2")], 0), atoms("0.33333333"));
    });

    it("refuses SELL and LIMIT orders and stakes out of range, changing nothing", () => {
      const exchange = new Exchange(kind);
      const market = openPoolMarket(exchange, "parimutuel", { buyAmountMin: atoms("1") });
      exchange.deposit(alice, "10");
      exchange.accept(exchange.marketBuy(alice, market, market.yes, "4"));
      exchange.refuse(exchange.marketSell(alice, market, market.yes, "1"), "MODEL_NOT_SUPPORTED");
      const sell = exchange.decider.decide(
        exchange.state,
        exchange.marketSell(alice, market, market.yes, "1"),
        {
          nowMs: exchange.nowMs,
          sequence: 99n,
        },
      );
      assert.deepEqual(sell, {
        ok: false,
        rejection: {
          code: "MODEL_NOT_SUPPORTED",
          message: "SELL orders are not supported on parimutuel markets",
        },
      });
      exchange.refuse(exchange.limit(alice, market, market.yes, "BUY", "0.5", "1"), "MODEL_NOT_SUPPORTED");
      exchange.refuse(exchange.marketBuy(alice, market, market.yes, "0.5"), "AMOUNT_OUT_OF_RANGE");
      exchange.refuse(exchange.marketBuy(alice, market, market.yes, "7"), "INSUFFICIENT_BALANCE");
    });

    it("splits the pool less the fee pro rata among the winners, rounding down, the dust to fee income", () => {
      const exchange = new Exchange(kind);
      const market = openPoolMarket(exchange, "parimutuel", { settlementFeeBps: 500 });
      for (const user of [alice, bob, carol]) exchange.deposit(user, "100");
      exchange.accept(exchange.marketBuy(alice, market, market.yes, "10"));
      exchange.accept(exchange.marketBuy(bob, market, market.no, "20"));
      exchange.accept(exchange.marketBuy(carol, market, market.yes, "5"));
      const [pool] = eventsOfType(settle(exchange, market, market.yes), "PoolSettled");
      // Pool 35, fee 5% = 1.75, distributable 33.25 over a winning stake of 15.
      assert.equal(pool!.fee, atoms("1.75"));
      assert.equal(pool!.distributable, atoms("33.25"));
      assert.equal(pool!.winningStake, atoms("15"));
      assert.equal(pool!.dust, 1n);
      assert.equal(claimAll(exchange, alice, market), atoms("22.16666666"));
      assert.equal(claimAll(exchange, carol, market), atoms("11.08333333"));
      assert.equal(claimAll(exchange, bob, market), 0n);
      assert.equal(exchange.state.markets.get(market.marketId)!.feeIncome, atoms("1.75") + 1n);
      assert.equal(exchange.state.outcomes.get(market.outcomeId)!.collateral, 0n);
    });

    it("returns every stake, with no fee, when nobody staked on the winner", () => {
      const exchange = new Exchange(kind);
      const market = openPoolMarket(exchange, "parimutuel", { settlementFeeBps: 500 });
      exchange.deposit(alice, "10");
      exchange.accept(exchange.marketBuy(alice, market, market.no, "3"));
      const [pool] = eventsOfType(settle(exchange, market, market.yes), "PoolSettled");
      assert.deepEqual([pool!.fee, pool!.dust, pool!.winningStake], [0n, 0n, 0n]);
      assert.equal(claimAll(exchange, alice, market), atoms("3"));
      assert.equal(available(exchange, alice), atoms("10"));
    });

    it("void returns every stake in full", () => {
      const exchange = new Exchange(kind);
      const market = openPoolMarket(exchange, "parimutuel", { settlementFeeBps: 500 });
      exchange.deposit(alice, "10");
      exchange.deposit(bob, "10");
      exchange.accept(exchange.marketBuy(alice, market, market.yes, "3"));
      exchange.accept(exchange.marketBuy(bob, market, market.no, "2"));
      exchange.accept({ type: "VoidMarket", marketId: market.marketId });
      assert.equal(claimAll(exchange, alice, market), atoms("3"));
      assert.equal(claimAll(exchange, bob, market), atoms("2"));
      assert.deepEqual([available(exchange, alice), available(exchange, bob)], [atoms("10"), atoms("10")]);
    });
  });
}
