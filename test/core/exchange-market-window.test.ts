// The core's part of market timing and catalogue metadata: the details pass-through, the trading
// window of startTime/endTime, and what the scheduler finds due.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMarketCommand, dueScheduledCommands } from "../../src/core/exchange.js";
import { bookKinds, Exchange } from "./exchange-harness.js";

const hourMs = 3_600_000;

for (const kind of bookKinds) {
  describe(`market window and details (${kind} book)`, () => {
    it("copies details into MarketCreated without interpreting them", () => {
      const exchange = new Exchange(kind);
      const details = { description: "Rain in Paris", tags: "weather,paris", outcomes: [{ title: "Paris" }] };
      const [created] = exchange.accept(createMarketCommand({ title: "Rain?", details }));
      assert.ok(created?.type === "MarketCreated");
      assert.deepEqual(created.details, details);
      const [bare] = exchange.accept(createMarketCommand({ title: "Bare" }));
      assert.ok(bare?.type === "MarketCreated");
      assert.equal(bare.details, null);
    });

    it("refuses details that are not an object", () => {
      const exchange = new Exchange(kind);
      const command = { ...createMarketCommand({ title: "x" }), details: ["a"] as never };
      exchange.refuse(command, "INVALID_INPUT");
    });

    it("an opened market refuses orders before its startTime and from its endTime on", () => {
      const exchange = new Exchange(kind);
      const start = exchange.nowMs + hourMs;
      const market = exchange.openMarket({ startTimeMs: start, endTimeMs: start + hourMs });
      exchange.deposit(1, "100");
      exchange.refuse(exchange.limit(1, market, market.yes, "BUY", "0.5", "1"), "MARKET_NOT_OPEN");
      exchange.nowMs = start;
      exchange.accept(exchange.limit(1, market, market.yes, "BUY", "0.5", "1"));
      exchange.nowMs = start + hourMs;
      exchange.refuse(exchange.limit(1, market, market.yes, "BUY", "0.5", "1"), "MARKET_NOT_OPEN");
    });

    it("finds CloseMarket due at endTime and ExpireOrders when a GTD order is past expiresAt", () => {
      const exchange = new Exchange(kind);
      const end = exchange.nowMs + hourMs;
      const market = exchange.openMarket({ endTimeMs: end });
      exchange.accept(createMarketCommand({ title: "draft", endTimeMs: end }));
      exchange.deposit(1, "100");
      assert.deepEqual(dueScheduledCommands(exchange.state, exchange.nowMs, 10), []);
      exchange.accept(
        exchange.limit(1, market, market.yes, "BUY", "0.5", "1", {
          timeInForce: "GTD",
          expiresAtMs: exchange.nowMs + 1_000,
        }),
      );
      assert.deepEqual(dueScheduledCommands(exchange.state, exchange.nowMs + 1_000, 10), [
        { type: "ExpireOrders" },
      ]);
      // The draft market is never closed by time: only an open one is.
      assert.deepEqual(dueScheduledCommands(exchange.state, end, 10), [
        { type: "CloseMarket", marketId: market.marketId },
        { type: "ExpireOrders" },
      ]);
      assert.deepEqual(dueScheduledCommands(exchange.state, end, 1), [
        { type: "CloseMarket", marketId: market.marketId },
      ]);
      exchange.nowMs = end;
      exchange.accept({ type: "CloseMarket", marketId: market.marketId });
      assert.deepEqual(dueScheduledCommands(exchange.state, end, 10), []);
    });
  });
}
