// An all-in-one node's replica folds its own engine's batches (hand-over-copies.ts): an entry of
// flat events is shared as it is, and an entry with any nested object is a deep copy, so nothing
// the engine's state could reach is reachable from the replica's.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { handOverCopies, isFlatEvent } from "../../src/cluster/hand-over-copies.js";

type Event = Record<string, unknown>;

describe("an all-in-one replica's hand-over copies", () => {
  it("tells flat events from those holding objects", () => {
    assert.equal(isFlatEvent({ type: "TradeExecuted", price: 5n, shares: 1, maker: null, done: true }), true);
    assert.equal(isFlatEvent({ type: "MarketCreated", details: { tags: [] } }), false);
    assert.equal(isFlatEvent({ type: "ResolutionProposed", proposedWinners: [] }), false);
  });

  it("shares a batch of flat events and deep-copies every entry with a nested object", () => {
    const flat = {
      sequence: 1n,
      nowMs: 1,
      command: { type: "PlaceOrder" },
      events: [{ type: "OrderPlaced", orderId: 7 }],
    };
    const nested = {
      sequence: 2n,
      nowMs: 2,
      command: { type: "CreateMarket" },
      events: [{ type: "MarketCreated", outcomes: [{ outcomeId: 1, name: "Yes" }] } as Event],
    };
    const allFlat = [flat];
    assert.equal(handOverCopies(allFlat), allFlat, "nothing copied");

    const copies = handOverCopies([flat, nested]);
    assert.equal(copies[0], flat, "the flat entry shared");
    assert.notEqual(copies[1], nested, "the nested one copied");
    assert.deepEqual(copies[1], nested);
    (nested.events[0]!.outcomes as { name: string }[])[0]!.name = "changed";
    assert.equal((copies[1]!.events[0]!.outcomes as { name: string }[])[0]!.name, "Yes");
  });
});
