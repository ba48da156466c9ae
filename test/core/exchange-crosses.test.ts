// Matching on the binary book: the three kinds of cross, price-time priority, the maker's price.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { balanceOf, bestPrices, bookSnapshot } from "../../src/core/exchange.js";
import { atoms, bookKinds, Exchange, eventsOfType, mintPairs, sharesHeld } from "./exchange-harness.js";

const alice = 1;
const bob = 2;
const carol = 3;
const dave = 4;

for (const kind of bookKinds) {
  describe(`crosses on the binary book (${kind} book)`, () => {
    function given() {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket();
      for (const user of [alice, bob, carol, dave]) exchange.deposit(user, "100");
      return { exchange, market };
    }

    it("mints a Yes+No pair when a Yes buyer and a No buyer together pay at least 1", () => {
      const { exchange, market } = given();
      exchange.accept(exchange.limit(alice, market, market.yes, "BUY", "0.6", "10"));
      const events = exchange.accept(exchange.limit(bob, market, market.no, "BUY", "0.45", "4"));
      const [trade] = eventsOfType(events, "TradeExecuted");
      assert.equal(trade?.cross, "MINT");
      assert.equal(trade.yesPrice, atoms("0.6"), "the maker's price is the trade price");
      assert.equal(trade.takerPrice, atoms("0.4"), "the No buyer pays 1 − 0.6, better than its 0.45");
      assert.equal(trade.collateralDelta, atoms("4"));
      assert.equal(sharesHeld(exchange, alice, market.yes), atoms("4"));
      assert.equal(sharesHeld(exchange, bob, market.no), atoms("4"));
      assert.equal(exchange.state.outcomes.get(market.outcomeId)?.collateral, atoms("4"));
      assert.deepEqual(balanceOf(exchange.state, bob), {
        available: atoms("98.4"),
        frozen: 0n,
        total: atoms("98.4"),
      });
      assert.deepEqual(balanceOf(exchange.state, alice), {
        available: atoms("94"),
        frozen: atoms("3.6"),
        total: atoms("97.6"),
      });
    });

    it("does not mint when the two buyers' prices add up to less than 1", () => {
      const { exchange, market } = given();
      exchange.accept(exchange.limit(alice, market, market.yes, "BUY", "0.5", "10"));
      const events = exchange.accept(exchange.limit(bob, market, market.no, "BUY", "0.49", "10"));
      assert.equal(eventsOfType(events, "TradeExecuted").length, 0);
      const book = bookSnapshot(exchange.state, market);
      assert.ok(book.ok);
      assert.deepEqual(book.value.bids, [{ price: atoms("0.5"), size: atoms("10") }]);
      assert.deepEqual(book.value.asks, [{ price: atoms("0.51"), size: atoms("10") }]);
    });

    it("transfers Yes shares from a seller to a buyer for cash at the resting price", () => {
      const { exchange, market } = given();
      mintPairs(exchange, market, alice, bob, "10");
      exchange.accept(exchange.limit(carol, market, market.yes, "BUY", "0.65", "4"));
      const events = exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.62", "4"));
      const [trade] = eventsOfType(events, "TradeExecuted");
      assert.equal(trade?.cross, "TRANSFER");
      assert.equal(trade.yesPrice, atoms("0.65"));
      assert.equal(trade.makerNotional, atoms("2.6"));
      assert.equal(trade.collateralDelta, 0n);
      assert.equal(sharesHeld(exchange, alice, market.yes), atoms("6"));
      assert.equal(sharesHeld(exchange, carol, market.yes), atoms("4"));
      assert.deepEqual(balanceOf(exchange.state, carol).total, atoms("97.4"));
      assert.deepEqual(balanceOf(exchange.state, alice).total, atoms("97.6"));
    });

    it("transfers No shares between a No seller and a No buyer", () => {
      const { exchange, market } = given();
      mintPairs(exchange, market, alice, bob, "10");
      exchange.accept(exchange.limit(bob, market, market.no, "SELL", "0.4", "2"));
      const events = exchange.accept(exchange.limit(dave, market, market.no, "BUY", "0.45", "2"));
      const [trade] = eventsOfType(events, "TradeExecuted");
      assert.equal(trade?.cross, "TRANSFER");
      assert.equal(trade.takerPrice, atoms("0.4"), "Dave pays the resting No price, not his 0.45");
      assert.equal(sharesHeld(exchange, dave, market.no), atoms("2"));
      assert.equal(balanceOf(exchange.state, dave).total, atoms("99.2"));
    });

    it("merges a Yes seller and a No seller whose prices add up to at most 1, paying out collateral", () => {
      const { exchange, market } = given();
      mintPairs(exchange, market, alice, bob, "10");
      exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.5", "3"));
      const events = exchange.accept(exchange.limit(bob, market, market.no, "SELL", "0.45", "3"));
      const [trade] = eventsOfType(events, "TradeExecuted");
      assert.equal(trade?.cross, "MERGE");
      assert.equal(trade.makerNotional, atoms("1.5"));
      assert.equal(trade.takerNotional, atoms("1.5"), "Bob receives 1 − 0.5 per share, more than his 0.45");
      assert.equal(trade.collateralDelta, -atoms("3"));
      assert.equal(exchange.state.outcomes.get(market.outcomeId)?.collateral, atoms("7"));
      assert.equal(balanceOf(exchange.state, alice).total, atoms("96.5"));
      assert.equal(balanceOf(exchange.state, bob).total, atoms("96.5"));
    });

    it("fills the best price first and, at one price, the earliest order first", () => {
      const { exchange, market } = given();
      mintPairs(exchange, market, alice, bob, "30");
      const [first] = eventsOfType(
        exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.6", "5")),
        "OrderPlaced",
      );
      const [second] = eventsOfType(
        exchange.accept(exchange.limit(bob, market, market.no, "BUY", "0.4", "5")),
        "OrderPlaced",
      );
      const [better] = eventsOfType(
        exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.58", "5")),
        "OrderPlaced",
      );
      const events = exchange.accept(exchange.limit(carol, market, market.yes, "BUY", "0.6", "12"));
      const trades = eventsOfType(events, "TradeExecuted");
      assert.deepEqual(
        trades.map((trade) => [trade.makerOrderId, trade.yesPrice, trade.shares]),
        [
          [better?.orderId, atoms("0.58"), atoms("5")],
          [first?.orderId, atoms("0.6"), atoms("5")],
          [second?.orderId, atoms("0.6"), atoms("2")],
        ],
      );
      assert.equal(trades[2]?.cross, "MINT", "Bob's No bid is on the Yes ask side, so Carol and Bob mint");
      const [placed] = eventsOfType(events, "OrderPlaced");
      assert.equal(placed?.status, "FILLED");
      assert.equal(placed.filledAmount, atoms("7.1"));
    });

    it("a buyer crossing at a better price than its limit pays only the resting price", () => {
      const { exchange, market } = given();
      mintPairs(exchange, market, alice, bob, "10");
      exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.55", "10"));
      exchange.accept(exchange.limit(carol, market, market.yes, "BUY", "0.7", "10"));
      assert.deepEqual(balanceOf(exchange.state, carol), {
        available: atoms("94.5"),
        frozen: 0n,
        total: atoms("94.5"),
      });
    });

    it("shows the No option's book as the mirror image in No prices", () => {
      const { exchange, market } = given();
      mintPairs(exchange, market, alice, bob, "10");
      exchange.accept(exchange.limit(carol, market, market.yes, "BUY", "0.3", "2"));
      exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.7", "3"));
      const yes = bookSnapshot(exchange.state, { ...market, optionId: market.yes });
      const no = bookSnapshot(exchange.state, { ...market, optionId: market.no });
      assert.ok(yes.ok && no.ok);
      assert.deepEqual(yes.value.bids, [{ price: atoms("0.3"), size: atoms("2") }]);
      assert.deepEqual(no.value.bids, [{ price: atoms("0.3"), size: atoms("3") }]);
      assert.deepEqual(no.value.asks, [{ price: atoms("0.7"), size: atoms("2") }]);
      assert.equal(no.value.assetId, exchange.state.options.get(market.no)?.assetId);
      const prices = bestPrices(exchange.state, { ...market, optionId: market.no });
      assert.deepEqual(prices, {
        ok: true,
        value: {
          bestBid: atoms("0.3"),
          bestAsk: atoms("0.7"),
          midPrice: atoms("0.5"),
          spread: atoms("0.4"),
          lastTradePrice: atoms("0.5"),
        },
      });
    });
  });
}
