// The state codec and the state hash: canonical, book-independent, and stable.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exchangeStateCodec, referenceExchangeStateCodec, stateHash } from "../../src/core/exchange.js";
import { fnv1a64 } from "../../src/core/hash.js";
import { makersPerTakerMax } from "../../src/core/limits.js";
import { atoms, bookKinds, Exchange, eventsOfType, mintPairs } from "./exchange-harness.js";

describe("state hash", () => {
  it("is 64-bit FNV-1a over the UTF-8 bytes (known answers)", () => {
    assert.equal(fnv1a64(""), "cbf29ce484222325");
    assert.equal(fnv1a64("a"), "af63dc4c8601ec8c");
    assert.equal(fnv1a64("foobar"), "85944171f73967e8");
    assert.equal(fnv1a64("é"), fnv1a64("\u00e9"));
  });
});

for (const kind of bookKinds) {
  describe(`state codec (${kind} book)`, () => {
    function given(): Exchange {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket({ makerFeeBps: 10, takerFeeBps: 30 });
      for (const user of [1, 2, 3]) exchange.deposit(user, "100");
      mintPairs(exchange, market, 1, 2, "20");
      exchange.accept(exchange.limit(3, market, market.yes, "BUY", "0.4", "3", { clientOrderId: "a" }));
      exchange.accept(exchange.limit(3, market, market.yes, "BUY", "0.4", "2"));
      exchange.accept(
        exchange.limit(1, market, market.yes, "SELL", "0.7", "5", {
          timeInForce: "GTD",
          expiresAtMs: exchange.nowMs + 5,
        }),
      );
      exchange.accept(exchange.limit(2, market, market.no, "SELL", "0.65", "4"));
      return exchange;
    }

    it("decodes to a state that encodes identically, whichever book holds it", () => {
      const exchange = given();
      const text = exchangeStateCodec.encode(exchange.state);
      assert.equal(exchangeStateCodec.encode(exchangeStateCodec.decode(text)), text);
      assert.equal(referenceExchangeStateCodec.encode(referenceExchangeStateCodec.decode(text)), text);
      assert.equal(stateHash(exchangeStateCodec.decode(text)), stateHash(exchange.state));
    });

    it("keeps time priority across a snapshot: the earlier order at a price still fills first", () => {
      const exchange = given();
      exchange.state = (kind === "fast" ? exchangeStateCodec : referenceExchangeStateCodec).decode(
        exchangeStateCodec.encode(exchange.state),
      );
      const events = exchange.accept(
        exchange.limit(1, { marketId: 1, outcomeId: 1, yes: 1, no: 2 }, 1, "SELL", "0.4", "4"),
      );
      const trades = eventsOfType(events, "TradeExecuted");
      assert.deepEqual(
        trades.map((trade) => [trade.makerOrderId, trade.shares]),
        [
          [3, atoms("3")],
          [4, atoms("1")],
        ],
      );
    });
  });

  describe(`limits on one incoming order (${kind} book)`, () => {
    it(`trades against at most ${makersPerTakerMax} resting orders and cancels the rest rather than rest crossed`, () => {
      const exchange = new Exchange(kind);
      const market = exchange.openMarket({ minOrderSize: atoms("0.0001") });
      // Many small resting orders from several users (one user may not have that many open).
      const makers = [10, 11, 12];
      for (const maker of makers) exchange.deposit(maker, "10");
      exchange.deposit(2, "10");
      const { decider } = exchange;
      for (let index = 0; index < makersPerTakerMax + 5; index++) {
        const decision = decider.decide(
          exchange.state,
          exchange.limit(makers[index % makers.length]!, market, market.yes, "BUY", "0.5", "0.0001"),
          exchange.context(),
        );
        assert.ok(decision.ok);
        for (const event of decision.events) decider.evolve(exchange.state, event);
      }
      const events = exchange.accept(exchange.limit(2, market, market.no, "BUY", "0.5", "1"));
      const [placed] = eventsOfType(events, "OrderPlaced");
      assert.equal(eventsOfType(events, "TradeExecuted").length, makersPerTakerMax);
      assert.equal(placed?.status, "CANCELLED");
      assert.equal(placed.restingShares, 0n);
    });
  });
}
