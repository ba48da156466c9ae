// The market makers' kit in the core (DESIGN §9), over both book implementations. Every step runs
// through the harness, which checks that decide never touches the state, that a refusal changes
// nothing, and that the invariants hold after every accepted command.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createStateCodec } from "../../src/core/codec.js";
import { bookKinds, Exchange, eventsOfType } from "./exchange-harness.js";

for (const kind of bookKinds) {
  describe(`post-only orders (${kind} book)`, () => {
    it("rests like any LIMIT order when it does not cross, and says so on its OrderPlaced", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket();
      exchange.deposit(1, "100");
      exchange.deposit(2, "100");
      exchange.accept(exchange.limit(2, market, market.no, "BUY", "0.4", "10")); // a Yes ask at 0.6
      const [placed] = eventsOfType(
        exchange.accept(exchange.limit(1, market, market.yes, "BUY", "0.59", "10", { postOnly: true })),
        "OrderPlaced",
      );
      assert.equal(placed?.status, "OPEN");
      assert.equal(placed?.postOnly, true);
      assert.equal(exchange.state.orders.get(placed!.orderId)?.postOnly, true);
      // An ordinary order's event carries no flag at all: the journal keeps its shape.
      const [plain] = eventsOfType(
        exchange.accept(exchange.limit(1, market, market.yes, "BUY", "0.3", "1")),
        "OrderPlaced",
      );
      assert.equal("postOnly" in plain!, false);
      assert.equal(exchange.state.orders.get(plain!.orderId)?.postOnly, false);
    });

    it("is refused, changing nothing, when it would trade at once, whichever option it names", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket();
      exchange.deposit(1, "100");
      exchange.deposit(2, "100");
      exchange.accept(exchange.limit(2, market, market.no, "BUY", "0.4", "10")); // Yes ask 0.6
      exchange.refuse(
        exchange.limit(1, market, market.yes, "BUY", "0.6", "1", { postOnly: true }),
        "POST_ONLY_WOULD_TRADE",
      );
      exchange.refuse(
        exchange.limit(1, market, market.yes, "BUY", "0.7", "1", {
          postOnly: true,
          timeInForce: "GTD",
          expiresAtMs: exchange.nowMs + 60_000,
        }),
        "POST_ONLY_WOULD_TRADE",
      );
      exchange.accept(exchange.limit(2, market, market.yes, "BUY", "0.5", "10")); // Yes bid 0.5
      // BUY No at 0.5 is a Yes ask at 0.5: it meets the bid.
      exchange.refuse(
        exchange.limit(1, market, market.no, "BUY", "0.5", "1", { postOnly: true }),
        "POST_ONLY_WOULD_TRADE",
      );
      // One tick away it rests.
      exchange.accept(exchange.limit(1, market, market.no, "BUY", "0.49", "1", { postOnly: true }));
    });

    it("counts the user's own crossing order (no self-trade cancel) but not an expired one", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket();
      exchange.deposit(1, "100");
      exchange.deposit(2, "100");
      const [own] = eventsOfType(
        exchange.accept(exchange.limit(1, market, market.no, "BUY", "0.4", "10")), // Yes ask 0.6
        "OrderPlaced",
      );
      exchange.refuse(
        exchange.limit(1, market, market.yes, "BUY", "0.6", "1", { postOnly: true }),
        "POST_ONLY_WOULD_TRADE",
      );
      assert.ok(exchange.state.orders.has(own!.orderId), "the user's own order is still there");
      exchange.accept({ type: "CancelOrder", userId: 1, orderId: own!.orderId });

      // User 2's Yes ask at 0.7 expires; until the scheduler removes it, it would not trade.
      exchange.accept(
        exchange.limit(2, market, market.no, "BUY", "0.3", "10", {
          timeInForce: "GTD",
          expiresAtMs: exchange.nowMs + 1_000,
        }),
      );
      exchange.nowMs += 1_000;
      const events = exchange.accept(
        exchange.limit(1, market, market.yes, "BUY", "0.7", "1", { postOnly: true }),
      );
      assert.equal(eventsOfType(events, "OrderPlaced")[0]?.status, "OPEN");
      // No trade; the expired ask leaves the book as it is met, as it does for any incoming order.
      assert.deepEqual(
        events.map((event) => event.type),
        ["OrderPlaced", "OrderExpired"],
      );
    });

    it("is only for LIMIT orders that rest: GTC or GTD", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket();
      exchange.deposit(1, "100");
      for (const timeInForce of ["FOK", "FAK"] as const) {
        const order = exchange.limit(1, market, market.yes, "BUY", "0.5", "1", {
          postOnly: true,
          timeInForce,
        });
        assert.deepEqual(exchange.run(order), { ok: false, code: "INVALID_INPUT" });
      }
      const marketBuy = { ...exchange.marketBuy(1, market, market.yes, "1"), postOnly: true };
      assert.deepEqual(exchange.run(marketBuy), { ok: false, code: "INVALID_INPUT" });
      // postOnly false is an ordinary order, whatever its time in force.
      exchange.accept(
        exchange.limit(1, market, market.yes, "BUY", "0.5", "1", { postOnly: false, timeInForce: "GTC" }),
      );
    });

    it("keeps its flag through a snapshot", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket();
      exchange.deposit(1, "100");
      const [placed] = eventsOfType(
        exchange.accept(exchange.limit(1, market, market.yes, "BUY", "0.5", "1", { postOnly: true })),
        "OrderPlaced",
      );
      const codec = createStateCodec(kind);
      const decoded = codec.decode(codec.encode(exchange.state));
      assert.equal(decoded.orders.get(placed!.orderId)?.postOnly, true);
    });
  });
}

for (const kind of bookKinds) {
  describe(`cancel-all (${kind} book)`, () => {
    /** Two markets; user 1 rests three orders in the first (both options) and one in the second. */
    function quoted() {
      const exchange = new Exchange(kind);
      const first = exchange.openMarket();
      const second = exchange.openMarket({ title: "Will it snow?" });
      exchange.deposit(1, "100");
      exchange.deposit(2, "100");
      const ids = [
        exchange.limit(1, first, first.yes, "BUY", "0.4", "10"),
        exchange.limit(2, first, first.yes, "BUY", "0.3", "10"),
        exchange.limit(1, first, first.no, "BUY", "0.5", "10"),
        exchange.limit(1, second, second.yes, "BUY", "0.2", "10"),
        exchange.limit(1, first, first.yes, "BUY", "0.45", "5"),
      ].map((command) => eventsOfType(exchange.accept(command), "OrderPlaced")[0]!.orderId);
      return { exchange, first, second, ids };
    }

    it("cancels every resting order of the user, oldest first, releasing exactly what each froze", () => {
      const { exchange, ids } = quoted();
      const before = exchange.state.accounts.get(1)!.available;
      const events = exchange.accept({ type: "CancelAllOrders", userId: 1, marketId: null, outcomeId: null });
      const cancelled = eventsOfType(events, "OrderCancelled");
      assert.equal(cancelled.length, events.length);
      assert.deepEqual(
        cancelled.map((event) => [event.orderId, event.reason]),
        [ids[0], ids[2], ids[3], ids[4]].map((orderId) => [orderId, "USER"]),
      );
      const account = exchange.state.accounts.get(1)!;
      assert.equal(account.frozen, 0n);
      assert.equal(
        account.available - before,
        cancelled.reduce((sum, event) => sum + event.releasedAmount, 0n),
      );
      assert.equal(account.openOrderCount, 0);
      assert.ok(exchange.state.orders.has(ids[1]!), "another user's order stays");
    });

    it("takes only one market's, or one book's, orders when told", () => {
      const { exchange, first, second, ids } = quoted();
      const inSecond = exchange.accept({
        type: "CancelAllOrders",
        userId: 1,
        marketId: second.marketId,
        outcomeId: second.outcomeId,
      });
      assert.deepEqual(
        eventsOfType(inSecond, "OrderCancelled").map((event) => event.orderId),
        [ids[3]],
      );
      const inFirst = exchange.accept({
        type: "CancelAllOrders",
        userId: 1,
        marketId: first.marketId,
        outcomeId: null,
      });
      assert.deepEqual(
        eventsOfType(inFirst, "OrderCancelled").map((event) => event.orderId),
        [ids[0], ids[2], ids[4]],
      );
      // Nothing left: accepted, with nothing to do.
      assert.deepEqual(
        exchange.accept({ type: "CancelAllOrders", userId: 1, marketId: null, outcomeId: null }),
        [],
      );
      assert.deepEqual(
        exchange.accept({ type: "CancelAllOrders", userId: 9, marketId: null, outcomeId: null }),
        [],
      );
    });

    it("refuses, changing nothing, an unknown market, a book of another market, or a book without its market", () => {
      const { exchange, first, second } = quoted();
      exchange.refuse(
        { type: "CancelAllOrders", userId: 1, marketId: 99, outcomeId: null },
        "MARKET_NOT_FOUND",
      );
      exchange.refuse(
        { type: "CancelAllOrders", userId: 1, marketId: first.marketId, outcomeId: second.outcomeId },
        "OUTCOME_NOT_FOUND",
      );
      exchange.refuse(
        { type: "CancelAllOrders", userId: 1, marketId: null, outcomeId: first.outcomeId },
        "INVALID_INPUT",
      );
    });
  });
}
