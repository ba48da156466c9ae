// The market makers' kit in the core (DESIGN §9), over both book implementations. Every step runs
// through the harness, which checks that decide never touches the state, that a refusal changes
// nothing, and that the invariants hold after every accepted command.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createStateCodec } from "../../src/core/codec.js";
import { dueScheduledCommands } from "../../src/core/exchange.js";
import { atoms, bookKinds, Exchange, eventsOfType } from "./exchange-harness.js";

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

/** Order ids on one side of a book, in priority (price, then time). */
function queueOf(exchange: Exchange, outcomeId: number, side: 0 | 1): number[] {
  const book = exchange.state.outcomes.get(outcomeId)!.book!;
  const ids: number[] = [];
  for (let order = book.first(side); order !== null; order = book.next(order)) ids.push(order.orderId);
  return ids;
}

for (const kind of bookKinds) {
  describe(`amend-order (${kind} book)`, () => {
    /** Bids on Yes: user 1 at 0.4 (first), user 2 at 0.4, user 3 at 0.3. */
    function bids() {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket({ makerFeeBps: 20, takerFeeBps: 50 });
      for (const user of [1, 2, 3, 4]) exchange.deposit(user, "100");
      const [first, second, third] = [
        exchange.limit(1, market, market.yes, "BUY", "0.4", "10"),
        exchange.limit(2, market, market.yes, "BUY", "0.4", "10"),
        exchange.limit(3, market, market.yes, "BUY", "0.3", "10"),
      ].map((command) => eventsOfType(exchange.accept(command), "OrderPlaced")[0]!.orderId);
      return { exchange, market, first: first!, second: second!, third: third! };
    }
    const amend = (userId: number, orderId: number, fields: { shares?: string; limitPrice?: string }) => ({
      type: "AmendOrder" as const,
      userId,
      orderId,
      shares: fields.shares === undefined ? null : atoms(fields.shares),
      limitPrice: fields.limitPrice === undefined ? null : atoms(fields.limitPrice),
    });

    it("fewer shares at the same price keep the order's place and release exactly the difference", () => {
      const { exchange, market, first, second, third } = bids();
      const before = exchange.state.accounts.get(1)!;
      const [frozen, available] = [before.frozen, before.available];
      const [amended] = eventsOfType(exchange.accept(amend(1, first, { shares: "4" })), "OrderAmended");
      assert.deepEqual(
        [amended?.priorityKept, amended?.status, amended?.shares, amended?.restingShares],
        [true, "OPEN", atoms("4"), atoms("4")],
      );
      assert.deepEqual(queueOf(exchange, market.outcomeId, 0), [first, second, third]);
      const account = exchange.state.accounts.get(1)!;
      // 10 × 0.4 + 0.2% maker fee reserve before; 4 × 0.4 + fee after.
      assert.equal(frozen - account.frozen, amended!.releasedAmount - amended!.frozenAmount);
      assert.equal(account.available - available, frozen - account.frozen);
      assert.equal(account.frozen, atoms("1.6032"));
      // A seller now meets the amended order first.
      const [trade] = eventsOfType(
        exchange.accept(exchange.limit(4, market, market.no, "BUY", "0.6", "1")),
        "TradeExecuted",
      );
      assert.equal(trade?.makerOrderId, first);
    });

    it("more shares, or a new price, send the order to the back of its (new) level", () => {
      const { exchange, market, first, second, third } = bids();
      exchange.accept(amend(1, first, { shares: "12" }));
      assert.deepEqual(queueOf(exchange, market.outcomeId, 0), [second, first, third]);
      exchange.accept(amend(2, second, { limitPrice: "0.3" }));
      assert.deepEqual(queueOf(exchange, market.outcomeId, 0), [first, third, second]);
      // Back to the first price: behind nobody there now, but behind user 3 if it moves there too.
      exchange.accept(amend(3, third, { limitPrice: "0.4" }));
      assert.deepEqual(queueOf(exchange, market.outcomeId, 0), [first, third, second]);
      // The same size and price again: nothing happens, not even a journal event.
      assert.deepEqual(exchange.accept(amend(1, first, { shares: "12", limitPrice: "0.4" })), []);
      assert.deepEqual(queueOf(exchange, market.outcomeId, 0), [first, third, second]);
    });

    it("a new price that crosses trades at once as a taker, at the makers' prices, and rests the rest", () => {
      const { exchange, market, first } = bids();
      // Asks on Yes: 3 at 0.5 and 2 at 0.55 (BUY No at 0.5 and 0.45).
      const [ask50] = eventsOfType(
        exchange.accept(exchange.limit(4, market, market.no, "BUY", "0.5", "3")),
        "OrderPlaced",
      );
      exchange.accept(exchange.limit(4, market, market.no, "BUY", "0.45", "2"));
      const events = exchange.accept(amend(1, first, { limitPrice: "0.55" }));
      const [amended] = eventsOfType(events, "OrderAmended");
      const trades = eventsOfType(events, "TradeExecuted");
      assert.equal(events[0]?.type, "OrderAmended", "the amend comes first, its fills after");
      assert.deepEqual(
        trades.map((trade) => [
          trade.makerOrderId === ask50!.orderId,
          trade.takerOrderId,
          trade.takerPrice,
          trade.shares,
        ]),
        [
          [true, first, atoms("0.5"), atoms("3")],
          [false, first, atoms("0.55"), atoms("2")],
        ],
      );
      assert.deepEqual(
        [amended?.priorityKept, amended?.status, amended?.filledShares, amended?.restingShares],
        [false, "PARTIALLY_FILLED", atoms("5"), atoms("5")],
      );
      const order = exchange.state.orders.get(first)!;
      assert.deepEqual([order.remainingLots, order.filledLots], [50_000, 50_000]);
      // Taker fee 0.5% on 1.5 + 1.1 = 2.6 USDT of fills.
      assert.equal(amended?.feePaid, atoms("0.013"));
    });

    it("a post-only order stays post-only: an amend that would trade at once is refused, changing nothing", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket();
      exchange.deposit(1, "100");
      exchange.deposit(2, "100");
      exchange.accept(exchange.limit(2, market, market.no, "BUY", "0.4", "5")); // Yes ask 0.6
      const [placed] = eventsOfType(
        exchange.accept(exchange.limit(1, market, market.yes, "BUY", "0.5", "5", { postOnly: true })),
        "OrderPlaced",
      );
      exchange.refuse(amend(1, placed!.orderId, { limitPrice: "0.6" }), "POST_ONLY_WOULD_TRADE");
      exchange.accept(amend(1, placed!.orderId, { limitPrice: "0.59", shares: "8" }));
      assert.equal(exchange.state.orders.get(placed!.orderId)?.postOnly, true);
    });

    it("refuses, changing nothing, what cannot be amended", () => {
      const { exchange, market, first, second } = bids();
      exchange.refuse(amend(2, first, { shares: "5" }), "ORDER_NOT_FOUND");
      exchange.refuse(amend(1, 999, { shares: "5" }), "ORDER_NOT_FOUND");
      exchange.refuse({ ...amend(1, first, {}) }, "INVALID_INPUT");
      exchange.refuse(amend(1, first, { limitPrice: "0.405" }), "PRICE_NOT_ON_TICK");
      exchange.refuse(amend(1, first, { limitPrice: "1" }), "PRICE_OUT_OF_RANGE");
      exchange.refuse(amend(1, first, { shares: "0.00001" }), "SHARES_NOT_ON_STEP");
      exchange.refuse(amend(1, first, { shares: "1000" }), "INSUFFICIENT_BALANCE");
      // Part of the second order fills; its size cannot go down to what has filled.
      exchange.accept(amend(1, first, { limitPrice: "0.2" }));
      exchange.accept(exchange.limit(4, market, market.no, "BUY", "0.6", "3"));
      assert.equal(exchange.state.orders.get(second)?.filledLots, 30_000);
      exchange.refuse(amend(2, second, { shares: "3" }), "INVALID_INPUT");
      exchange.accept(amend(2, second, { shares: "3.5" }));
      // An order that has ended is no longer open.
      exchange.accept({ type: "CancelOrder", userId: 1, orderId: first });
      exchange.refuse(amend(1, first, { shares: "5" }), "ORDER_NOT_AMENDABLE");
    });

    it("a SELL's frozen shares follow, and it needs the shares for more", () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket();
      exchange.deposit(1, "100");
      exchange.deposit(2, "100");
      exchange.accept(exchange.limit(1, market, market.yes, "BUY", "0.5", "10"));
      exchange.accept(exchange.limit(2, market, market.no, "BUY", "0.5", "10")); // user 1 holds 10 Yes
      const [sell] = eventsOfType(
        exchange.accept(exchange.limit(1, market, market.yes, "SELL", "0.7", "6")),
        "OrderPlaced",
      );
      const position = () => exchange.state.accounts.get(1)!.positions.get(market.yes)!;
      assert.deepEqual([position().shares, position().frozenShares], [atoms("4"), atoms("6")]);
      exchange.accept(amend(1, sell!.orderId, { shares: "10" }));
      assert.deepEqual([position().shares, position().frozenShares], [0n, atoms("10")]);
      exchange.refuse(amend(1, sell!.orderId, { shares: "11" }), "INSUFFICIENT_SHARES");
      exchange.accept(amend(1, sell!.orderId, { shares: "2" }));
      assert.deepEqual([position().shares, position().frozenShares], [atoms("8"), atoms("2")]);
    });

    it("keeps queue places through a snapshot", () => {
      const { exchange, market, first, second, third } = bids();
      exchange.accept(amend(1, first, { shares: "11" }));
      exchange.accept(amend(3, third, { limitPrice: "0.4" }));
      const order = [second, first, third];
      assert.deepEqual(queueOf(exchange, market.outcomeId, 0), order);
      const codec = createStateCodec(kind);
      const encoded = codec.encode(exchange.state);
      exchange.state = codec.decode(encoded);
      assert.equal(codec.encode(exchange.state), encoded);
      assert.deepEqual(queueOf(exchange, market.outcomeId, 0), order);
    });
  });
}

describe("state encoding written before amends and post-only orders", () => {
  it("is read back to exactly its own text (no new column until one is needed)", () => {
    const exchange = new Exchange("fast");
    const market = exchange.openMarket();
    exchange.deposit(1, "100");
    exchange.accept(exchange.limit(1, market, market.yes, "BUY", "0.4", "10"));
    const encoded = createStateCodec("fast").encode(exchange.state);
    const data = JSON.parse(encoded) as { counters: unknown[]; orders: unknown[][] };
    assert.equal(data.counters.length, 7);
    assert.equal(data.orders[0]?.length, 15);
  });
});

for (const kind of bookKinds) {
  describe(`the dead-man's switch (${kind} book)`, () => {
    function quoting() {
      const exchange = new Exchange(kind);
      const first = exchange.openMarket();
      const second = exchange.openMarket({ title: "Will it snow?" });
      exchange.deposit(1, "100");
      exchange.deposit(2, "100");
      exchange.accept(exchange.limit(1, first, first.yes, "BUY", "0.4", "10"));
      exchange.accept(exchange.limit(1, second, second.no, "BUY", "0.3", "10"));
      exchange.accept(exchange.limit(2, first, first.yes, "BUY", "0.35", "10"));
      return { exchange, first, second };
    }
    const heartbeat = (userId: number, timeoutMs: number) => ({
      type: "Heartbeat" as const,
      userId,
      timeoutMs,
    });
    const trip = (userId: number) => ({ type: "TripDeadMansSwitch" as const, userId });

    it("arms to the commit time plus the timeout, re-arms on each heartbeat, and disarms with 0", () => {
      const { exchange } = quoting();
      const armedAt = exchange.nowMs;
      assert.deepEqual(exchange.accept(heartbeat(1, 10_000)), [
        {
          type: "DeadMansSwitchArmed",
          userId: 1,
          timeoutMs: 10_000,
          expiresAtMs: armedAt + 10_000,
          atMs: armedAt,
        },
      ]);
      exchange.nowMs += 4_000;
      exchange.accept(heartbeat(1, 5_000));
      assert.equal(exchange.state.deadMansSwitches.get(1), armedAt + 9_000);
      assert.deepEqual(
        exchange.accept(heartbeat(1, 0)).map((event) => event.type),
        ["DeadMansSwitchDisarmed"],
      );
      assert.equal(exchange.state.deadMansSwitches.size, 0);
      assert.deepEqual(exchange.accept(heartbeat(1, 0)), [], "disarming a disarmed switch does nothing");
    });

    it("refuses a timeout outside 5 s to 5 min (0 aside), changing nothing", () => {
      const { exchange } = quoting();
      for (const timeoutMs of [1, 4_999, 300_001, -5_000, 5_000.5])
        exchange.refuse(heartbeat(1, timeoutMs), "INVALID_INPUT");
      exchange.accept(heartbeat(1, 5_000));
      exchange.accept(heartbeat(1, 300_000));
    });

    it("goes off when due: the scheduler's command cancels every resting order of the user, in one command", () => {
      const { exchange } = quoting();
      const armedAt = exchange.nowMs;
      exchange.accept(heartbeat(1, 5_000));
      exchange.nowMs += 4_999;
      assert.deepEqual(dueScheduledCommands(exchange.state, exchange.nowMs, 10), []);
      exchange.refuse(trip(1), "DEAD_MANS_SWITCH_NOT_DUE");
      exchange.nowMs += 1;
      assert.deepEqual(dueScheduledCommands(exchange.state, exchange.nowMs, 10), [trip(1)]);
      const events = exchange.accept(trip(1));
      const cancelled = eventsOfType(events, "OrderCancelled");
      assert.deepEqual(
        cancelled.map((event) => [event.userId, event.reason]),
        [
          [1, "DEAD_MANS_SWITCH"],
          [1, "DEAD_MANS_SWITCH"],
        ],
      );
      assert.deepEqual(events.at(-1), {
        type: "DeadMansSwitchTripped",
        userId: 1,
        expiresAtMs: armedAt + 5_000,
        cancelledOrders: 2,
        atMs: exchange.nowMs,
      });
      const account = exchange.state.accounts.get(1)!;
      assert.deepEqual([account.openOrderCount, account.frozen, account.available], [0, 0n, atoms("100")]);
      assert.equal(exchange.state.accounts.get(2)!.openOrderCount, 1, "other users' orders stay");
      // Gone off: disarmed, so nothing more is due, and a late trip is refused.
      assert.deepEqual(dueScheduledCommands(exchange.state, exchange.nowMs + 60_000, 10), []);
      exchange.refuse(trip(1), "DEAD_MANS_SWITCH_NOT_DUE");
    });

    it("a heartbeat after the deadline is too late: the switch goes off first, then arms again", () => {
      const { exchange, first } = quoting();
      exchange.accept(heartbeat(1, 5_000));
      exchange.nowMs += 6_000;
      const events = exchange.accept(heartbeat(1, 5_000));
      assert.deepEqual(
        events.map((event) => event.type),
        ["OrderCancelled", "OrderCancelled", "DeadMansSwitchTripped", "DeadMansSwitchArmed"],
      );
      assert.equal(exchange.state.accounts.get(1)!.openOrderCount, 0);
      assert.equal(exchange.state.deadMansSwitches.get(1), exchange.nowMs + 5_000);
      // Orders placed after that are covered by the new deadline.
      exchange.accept(exchange.limit(1, first, first.yes, "BUY", "0.2", "1"));
      exchange.nowMs += 5_000;
      assert.equal(eventsOfType(exchange.accept(trip(1)), "OrderCancelled").length, 1);
    });

    it("keeps its deadline through a snapshot, and encodes nothing while no switch is armed", () => {
      const { exchange } = quoting();
      const codec = createStateCodec(kind);
      assert.equal("deadMansSwitches" in JSON.parse(codec.encode(exchange.state)), false);
      exchange.accept(heartbeat(1, 30_000));
      const encoded = codec.encode(exchange.state);
      const decoded = codec.decode(encoded);
      assert.equal(codec.encode(decoded), encoded);
      assert.equal(decoded.deadMansSwitches.get(1), exchange.nowMs + 30_000);
    });
  });
}
