// Order types and time in force, market orders with price protection, self-trade prevention,
// cancels and expiry, and idempotent clientOrderId.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { balanceOf, openOrdersOfUser } from "../../src/core/exchange.js";
import { atoms, bookKinds, Exchange, eventsOfType, mintPairs, sharesHeld } from "./exchange-harness.js";

const alice = 1;
const bob = 2;
const carol = 3;

for (const kind of bookKinds) {
  describe(`orders and time in force (${kind} book)`, () => {
    function given() {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket();
      for (const user of [alice, bob, carol]) exchange.deposit(user, "100");
      mintPairs(exchange, market, alice, bob, "50");
      return { exchange, market };
    }

    it("GTC: the unfilled rest of an order stays on the book, PARTIALLY_FILLED", () => {
      const { exchange, market } = given();
      exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.6", "3"));
      const events = exchange.accept(exchange.limit(carol, market, market.yes, "BUY", "0.6", "5"));
      const [placed] = eventsOfType(events, "OrderPlaced");
      assert.equal(placed?.status, "PARTIALLY_FILLED");
      assert.equal(placed.filledShares, atoms("3"));
      assert.equal(placed.restingShares, atoms("2"));
      assert.equal(placed.frozenAmount, atoms("1.2"));
      const [open] = openOrdersOfUser(exchange.state, carol);
      assert.equal(open?.status, "PARTIALLY_FILLED");
      assert.equal(open.remainingShares, atoms("2"));
    });

    it("FOK: fills completely or is refused with nothing changed", () => {
      const { exchange, market } = given();
      exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.6", "3"));
      exchange.refuse(
        exchange.limit(carol, market, market.yes, "BUY", "0.6", "4", { timeInForce: "FOK" }),
        "FOK_NOT_FILLED",
      );
      const events = exchange.accept(
        exchange.limit(carol, market, market.yes, "BUY", "0.6", "3", { timeInForce: "FOK" }),
      );
      assert.equal(eventsOfType(events, "OrderPlaced")[0]?.status, "FILLED");
    });

    it("FAK: fills what it can now and cancels the rest; with nothing to fill it is refused", () => {
      const { exchange, market } = given();
      exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.6", "3"));
      const events = exchange.accept(
        exchange.limit(carol, market, market.yes, "BUY", "0.6", "5", { timeInForce: "FAK" }),
      );
      const [placed] = eventsOfType(events, "OrderPlaced");
      assert.equal(placed?.status, "CANCELLED");
      assert.equal(placed.filledShares, atoms("3"));
      assert.equal(placed.restingShares, 0n);
      assert.equal(openOrdersOfUser(exchange.state, carol).length, 0);
      exchange.refuse(
        exchange.limit(carol, market, market.yes, "BUY", "0.6", "5", { timeInForce: "FAK" }),
        "NO_LIQUIDITY",
      );
    });

    it("GTD: rests until expiresAt, then the scheduler's ExpireOrders returns its funds", () => {
      const { exchange, market } = given();
      const expiresAtMs = exchange.nowMs + 60_000;
      exchange.accept(
        exchange.limit(carol, market, market.yes, "BUY", "0.4", "5", { timeInForce: "GTD", expiresAtMs }),
      );
      assert.equal(balanceOf(exchange.state, carol).frozen, atoms("2"));
      exchange.nowMs = expiresAtMs - 1;
      assert.deepEqual(exchange.accept({ type: "ExpireOrders" }), []);
      exchange.nowMs = expiresAtMs;
      const [expired] = exchange.accept({ type: "ExpireOrders" });
      assert.equal(expired?.type, "OrderExpired");
      assert.equal(expired.releasedAmount, atoms("2"));
      assert.deepEqual(balanceOf(exchange.state, carol), {
        available: atoms("100"),
        frozen: 0n,
        total: atoms("100"),
      });
    });

    it("GTD: an expired order never trades, even before the scheduler has run", () => {
      const { exchange, market } = given();
      const expiresAtMs = exchange.nowMs + 1_000;
      exchange.accept(
        exchange.limit(alice, market, market.yes, "SELL", "0.5", "5", { timeInForce: "GTD", expiresAtMs }),
      );
      exchange.accept(exchange.limit(bob, market, market.no, "BUY", "0.45", "5"));
      exchange.nowMs = expiresAtMs + 1;
      const events = exchange.accept(exchange.limit(carol, market, market.yes, "BUY", "0.6", "5"));
      assert.deepEqual(
        events.map((event) => event.type),
        ["OrderPlaced", "OrderExpired", "TradeExecuted"],
      );
      assert.equal(eventsOfType(events, "TradeExecuted")[0]?.makerUserId, bob);
      assert.equal(sharesHeld(exchange, alice, market.yes), atoms("50"));
    });

    it("GTD: an expiresAt that has already passed is refused", () => {
      const { exchange, market } = given();
      exchange.refuse(
        exchange.limit(carol, market, market.yes, "BUY", "0.4", "5", {
          timeInForce: "GTD",
          expiresAtMs: exchange.nowMs,
        }),
        "ORDER_EXPIRED",
      );
    });

    it("MARKET BUY spends its amount, taker fee included, level by level down to the last whole lot", () => {
      const { exchange, market } = given();
      exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.5", "4"));
      exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.55", "10"));
      const events = exchange.accept(exchange.marketBuy(carol, market, market.yes, "5"));
      const [placed] = eventsOfType(events, "OrderPlaced");
      assert.equal(placed?.status, "FILLED");
      assert.equal(placed.filledShares, atoms("9.4545"));
      assert.equal(placed.filledAmount, atoms("4.999975"));
      assert.equal(balanceOf(exchange.state, carol).available, atoms("95.000025"));
    });

    it("MARKET BUY stops at the price protection and cancels the rest", () => {
      const { exchange, market } = given();
      exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.5", "2"));
      exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.65", "10"));
      const events = exchange.accept(exchange.marketBuy(carol, market, market.yes, "5"));
      const [placed] = eventsOfType(events, "OrderPlaced");
      assert.equal(placed?.status, "CANCELLED");
      assert.equal(placed.filledShares, atoms("2"), "0.65 is more than 0.1 above the best ask of 0.5");
      assert.equal(balanceOf(exchange.state, carol).total, atoms("99"));
    });

    it("MARKET SELL sells its shares down to the price protection", () => {
      const { exchange, market } = given();
      exchange.accept(exchange.limit(carol, market, market.yes, "BUY", "0.5", "2"));
      exchange.accept(exchange.limit(carol, market, market.yes, "BUY", "0.4", "2"));
      exchange.accept(exchange.limit(carol, market, market.yes, "BUY", "0.35", "10"));
      const events = exchange.accept(exchange.marketSell(alice, market, market.yes, "5"));
      const [placed] = eventsOfType(events, "OrderPlaced");
      assert.equal(placed?.status, "CANCELLED");
      assert.equal(placed.filledShares, atoms("4"));
      assert.equal(placed.filledAmount, atoms("1.8"));
    });

    it("MARKET BUY of No fills against Yes bids at 1 − the bid, within the protection in No prices", () => {
      const { exchange, market } = given();
      exchange.accept(exchange.limit(alice, market, market.yes, "BUY", "0.6", "2"));
      exchange.accept(exchange.limit(alice, market, market.yes, "BUY", "0.55", "2"));
      exchange.accept(exchange.limit(alice, market, market.yes, "BUY", "0.45", "10"));
      const events = exchange.accept(exchange.marketBuy(carol, market, market.no, "3"));
      const trades = eventsOfType(events, "TradeExecuted");
      assert.deepEqual(
        trades.map((trade) => [trade.cross, trade.takerPrice, trade.shares]),
        [
          ["MINT", atoms("0.4"), atoms("2")],
          ["MINT", atoms("0.45"), atoms("2")],
        ],
        "the No ask at 0.55 (Yes bid 0.45) is beyond 0.4 + 0.1",
      );
      const [placed] = eventsOfType(events, "OrderPlaced");
      assert.equal(placed?.status, "CANCELLED");
      assert.equal(balanceOf(exchange.state, carol).total, atoms("98.3"));
      assert.equal(sharesHeld(exchange, carol, market.no), atoms("4"));
    });

    it("MARKET orders on an empty opposite side are refused", () => {
      const { exchange, market } = given();
      exchange.refuse(exchange.marketBuy(carol, market, market.yes, "5"), "NO_LIQUIDITY");
      exchange.refuse(exchange.marketSell(alice, market, market.yes, "5"), "NO_LIQUIDITY");
    });

    it("a LIMIT order more than 0.5 through the best opposite price is refused; at 0.5 it is accepted", () => {
      const { exchange, market } = given();
      exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.3", "1"));
      exchange.refuse(exchange.limit(carol, market, market.yes, "BUY", "0.81", "1"), "PRICE_PROTECTION");
      exchange.refuse(exchange.limit(carol, market, market.no, "SELL", "0.19", "1"), "INSUFFICIENT_SHARES");
      exchange.accept(exchange.limit(carol, market, market.yes, "BUY", "0.8", "1"));
      // A passive order far from the best price harms no one, so it is not refused.
      exchange.accept(exchange.limit(carol, market, market.yes, "BUY", "0.01", "1"));
    });

    it("self-trade prevention cancels the user's own resting order and trades on past it", () => {
      const { exchange, market } = given();
      const [own] = eventsOfType(
        exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.5", "5")),
        "OrderPlaced",
      );
      exchange.accept(exchange.limit(bob, market, market.no, "BUY", "0.48", "5"));
      const events = exchange.accept(exchange.limit(alice, market, market.yes, "BUY", "0.55", "3"));
      const [cancelled] = eventsOfType(events, "OrderCancelled");
      assert.ok(cancelled);
      assert.equal(cancelled?.orderId, own?.orderId);
      assert.equal(cancelled.reason, "SELF_TRADE");
      assert.equal(cancelled.releasedShares, atoms("5"));
      const trades = eventsOfType(events, "TradeExecuted");
      assert.equal(trades.length, 1);
      assert.equal(trades[0]?.makerUserId, bob);
      assert.equal(trades[0]?.yesPrice, atoms("0.52"));
    });

    it("a cancel returns exactly what was frozen, and only the owner may cancel", () => {
      const { exchange, market } = given();
      const [buy] = eventsOfType(
        exchange.accept(exchange.limit(carol, market, market.yes, "BUY", "0.37", "3")),
        "OrderPlaced",
      );
      const [sell] = eventsOfType(
        exchange.accept(exchange.limit(alice, market, market.yes, "SELL", "0.9", "7")),
        "OrderPlaced",
      );
      assert.equal(balanceOf(exchange.state, carol).frozen, atoms("1.11"));
      assert.equal(exchange.state.accounts.get(alice)?.positions.get(market.yes)?.frozenShares, atoms("7"));
      exchange.refuse({ type: "CancelOrder", userId: alice, orderId: buy!.orderId }, "ORDER_NOT_FOUND");
      exchange.accept({ type: "CancelOrder", userId: carol, orderId: buy!.orderId });
      exchange.accept({ type: "CancelOrder", userId: alice, orderId: sell!.orderId });
      assert.deepEqual(balanceOf(exchange.state, carol), {
        available: atoms("100"),
        frozen: 0n,
        total: atoms("100"),
      });
      assert.equal(exchange.state.accounts.get(alice)?.positions.get(market.yes)?.shares, atoms("50"));
      exchange.refuse({ type: "CancelOrder", userId: carol, orderId: buy!.orderId }, "ORDER_NOT_CANCELLABLE");
      exchange.refuse({ type: "CancelOrder", userId: carol, orderId: 999 }, "ORDER_NOT_FOUND");
    });

    it("the same clientOrderId again returns the first order and places nothing", () => {
      const { exchange, market } = given();
      const first = exchange.accept(
        exchange.limit(carol, market, market.yes, "BUY", "0.4", "1", { clientOrderId: "c-1" }),
      );
      const [placed] = eventsOfType(first, "OrderPlaced");
      const again = exchange.accept(
        exchange.limit(carol, market, market.yes, "BUY", "0.3", "9", { clientOrderId: "c-1" }),
      );
      assert.deepEqual(again, [
        {
          type: "OrderRepeated",
          orderId: placed?.orderId,
          userId: carol,
          clientOrderId: "c-1",
          atMs: exchange.nowMs,
        },
      ]);
      assert.equal(openOrdersOfUser(exchange.state, carol).length, 1);
      // Still the first order after it is gone from the book, and per user: another user's c-1 is new.
      exchange.accept({ type: "CancelOrder", userId: carol, orderId: placed!.orderId });
      const later = exchange.accept(
        exchange.limit(carol, market, market.yes, "BUY", "0.3", "9", { clientOrderId: "c-1" }),
      );
      assert.equal(later[0]?.type, "OrderRepeated");
      const other = exchange.accept(
        exchange.limit(bob, market, market.yes, "BUY", "0.3", "1", { clientOrderId: "c-1" }),
      );
      assert.equal(other[0]?.type, "OrderPlaced");
    });
  });
}
