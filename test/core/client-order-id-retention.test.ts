// clientOrderIds are remembered for clientOrderIdRetentionMs of commit time (client-order-ids.ts):
// inside the window the same id answers with the first order, after it a new order is placed, and
// expired ids leave the state (and so the snapshots).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clientOrderIdRetentionMs } from "../../src/core/client-order-ids.js";
import { exchangeStateCodec, limitOrderCommand, stateHash } from "../../src/core/exchange.js";
import { atoms, bookKinds, Exchange } from "./exchange-harness.js";

describe("clientOrderId retention", () => {
  for (const kind of bookKinds) {
    it(`a reused clientOrderId returns the first order inside the window and places a new one after it (${kind} book)`, () => {
      const exchange = new Exchange(kind);
      exchange.nowMs = 1_800_000_000_000;
      const market = exchange.openMarket({});
      exchange.deposit(1, "100");
      const order = (clientOrderId: string) =>
        limitOrderCommand({
          userId: 1,
          marketId: market.marketId,
          outcomeId: market.outcomeId,
          optionId: market.yes,
          side: "BUY",
          limitPrice: atoms("0.4"),
          shares: atoms("1"),
          clientOrderId,
        });
      const [first] = exchange.accept(order("retry-me"));
      assert.equal(first?.type, "OrderPlaced");
      const firstOrderId = first?.type === "OrderPlaced" ? first.orderId : 0;

      // One millisecond before the window ends: the first order stands, nothing new happens.
      exchange.nowMs += clientOrderIdRetentionMs - 1;
      const [repeated] = exchange.accept(order("retry-me"));
      assert.deepEqual(
        repeated && { type: repeated.type, orderId: "orderId" in repeated ? repeated.orderId : 0 },
        {
          type: "OrderRepeated",
          orderId: firstOrderId,
        },
      );

      // Another id placed now stays remembered after retry-me expires.
      exchange.accept(order("later"));
      exchange.nowMs += 1;
      const [second] = exchange.accept(order("retry-me"));
      assert.equal(second?.type, "OrderPlaced");
      assert.ok(second?.type === "OrderPlaced" && second.orderId > firstOrderId, "a new order");
      const remembered = exchange.state.accounts.get(1)!.clientOrderIds;
      assert.deepEqual([...remembered.keys()].sort(), ["later", "retry-me"]);
      assert.equal(remembered.get("retry-me")?.orderId, second?.type === "OrderPlaced" ? second.orderId : 0);

      // A day later any order forgets both; the snapshot keeps no expired id, and round-trips.
      exchange.nowMs += clientOrderIdRetentionMs;
      exchange.accept(order("fresh"));
      assert.deepEqual([...exchange.state.accounts.get(1)!.clientOrderIds.keys()], ["fresh"]);
      assert.equal(exchange.state.clientOrderIdRegistry.size, 1);
      const encoded = exchangeStateCodec.encode(exchange.state);
      // Resting orders keep their clientOrderId; the accounts' idempotency maps hold only "fresh".
      const accounts = JSON.stringify(JSON.parse(encoded).accounts);
      assert.ok(accounts.includes("fresh") && !accounts.includes("retry-me") && !accounts.includes("later"));
      assert.equal(stateHash(exchangeStateCodec.decode(encoded)), stateHash(exchange.state));
    });
  }

  for (const kind of bookKinds) {
    it(`a reused clientOrderId is refused for what the market refuses, and answered after the market closed (${kind} book)`, () => {
      const exchange = new Exchange(kind);
      exchange.nowMs = 1_800_000_000_000;
      const market = exchange.openMarket({});
      const other = exchange.openMarket({ title: "Will it snow?" });
      exchange.deposit(1, "100");
      const order = (fields: Partial<Parameters<typeof limitOrderCommand>[0]> = {}) =>
        limitOrderCommand({
          userId: 1,
          marketId: market.marketId,
          outcomeId: market.outcomeId,
          optionId: market.yes,
          side: "BUY",
          limitPrice: atoms("0.4"),
          shares: atoms("1"),
          clientOrderId: "retry-me",
          ...fields,
        });
      exchange.accept(order());
      exchange.refuse(order({ marketId: 999 }), "MARKET_NOT_FOUND");
      exchange.refuse(order({ outcomeId: other.outcomeId }), "OUTCOME_NOT_FOUND");
      exchange.refuse(order({ optionId: other.yes }), "OPTION_NOT_FOUND");
      exchange.refuse(order({ limitPrice: atoms("0.405") }), "PRICE_NOT_ON_TICK");
      exchange.refuse(order({ shares: atoms("1.00005") }), "SHARES_NOT_ON_STEP");
      // The first order was placed: after the market closed, a valid retry is still told so.
      exchange.accept({ type: "CloseMarket", marketId: market.marketId });
      const [repeated] = exchange.accept(order());
      assert.equal(repeated?.type, "OrderRepeated");
      exchange.refuse(order({ clientOrderId: "new" }), "MARKET_NOT_OPEN");
    });
  }
});
