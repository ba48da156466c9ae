// The same book tests against the reference book and the fast book.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { createBook } from "../../src/core/book/create-book.js";
import type { OrderBook } from "../../src/core/book/order-book.js";
import { askSide, type BookSide, bidSide, type Order } from "../../src/core/book/orders.js";
import { bookKinds } from "./exchange-harness.js";

let nextId = 1;
function order(bookSide: BookSide, yesPriceUnits: number, lots: number): Order {
  const orderId = nextId++;
  return {
    orderId,
    userId: 1,
    marketId: 1,
    outcomeId: 1,
    optionId: 1,
    optionIndex: 0,
    side: bookSide === bidSide ? "BUY" : "SELL",
    timeInForce: "GTC",
    bookSide,
    priceUnits: yesPriceUnits,
    yesPriceUnits,
    originalLots: lots,
    remainingLots: lots,
    timePriority: orderId,
    filledLots: 0,
    filledNotional: 0,
    feesPaid: 0,
    frozenAmount: 0,
    expiresAtMs: null,
    clientOrderId: null,
    createdAtMs: 0,
    postOnly: false,
    previous: null,
    next: null,
    userPrevious: null,
    userNext: null,
  };
}

function walk(book: OrderBook, side: BookSide): number[] {
  const ids: number[] = [];
  for (let current = book.first(side); current !== null; current = book.next(current))
    ids.push(current.orderId);
  return ids;
}

for (const kind of bookKinds) {
  describe(`order book (${kind})`, () => {
    it("keeps bids best-first (highest price, then earliest) and asks lowest-first", () => {
      const book = createBook(kind, 100);
      const bidLow = order(bidSide, 4_000, 10);
      const bidHigh = order(bidSide, 5_000, 10);
      const bidHighLater = order(bidSide, 5_000, 5);
      const askHigh = order(askSide, 7_000, 10);
      const askLow = order(askSide, 6_000, 3);
      for (const resting of [bidLow, bidHigh, bidHighLater, askHigh, askLow]) book.add(resting);
      book.validate();
      assert.deepEqual(walk(book, bidSide), [bidHigh.orderId, bidHighLater.orderId, bidLow.orderId]);
      assert.deepEqual(walk(book, askSide), [askLow.orderId, askHigh.orderId]);
      assert.equal(book.bestPrice(bidSide), 5_000);
      assert.equal(book.bestPrice(askSide), 6_000);
      assert.deepEqual(book.levels(bidSide, 10), [
        { priceUnits: 5_000, lots: 15 },
        { priceUnits: 4_000, lots: 10 },
      ]);
      assert.deepEqual(book.levels(askSide, 1), [{ priceUnits: 6_000, lots: 3 }]);
      assert.equal(book.orderCount, 5);
    });

    it("reduces and removes orders, and finds the next best level when one empties", () => {
      const book = createBook(kind, 1);
      const first = order(bidSide, 5_000, 10);
      const second = order(bidSide, 5_000, 10);
      const deep = order(bidSide, 1, 7);
      for (const resting of [first, second, deep]) book.add(resting);
      book.reduce(first, 4);
      assert.equal(first.remainingLots, 6);
      assert.deepEqual(book.levels(bidSide, 10)[0], { priceUnits: 5_000, lots: 16 });
      book.remove(first);
      book.remove(second);
      book.validate();
      assert.equal(book.bestPrice(bidSide), 1);
      book.remove(deep);
      assert.equal(book.bestPrice(bidSide), -1);
      assert.equal(book.first(bidSide), null);
      assert.equal(book.orderCount, 0);
      book.validate();
    });

    it("removes an order from the middle of a level without losing the others' places", () => {
      const book = createBook(kind, 10);
      const orders = [1, 2, 3].map(() => order(askSide, 9_990, 1));
      for (const resting of orders) book.add(resting);
      book.remove(orders[1]!);
      book.validate();
      assert.deepEqual(walk(book, askSide), [orders[0]!.orderId, orders[2]!.orderId]);
    });

    it("walks across distant levels at the finest tick", () => {
      const book = createBook(kind, 1);
      const prices = [9_999, 1, 5_000, 31, 32, 33, 64, 65];
      const orders = prices.map((price) => order(askSide, price, 1));
      for (const resting of orders) book.add(resting);
      book.validate();
      const walked = walk(book, askSide).map((id) => orders.find((o) => o.orderId === id)!.yesPriceUnits);
      assert.deepEqual(
        walked,
        [...prices].sort((a, b) => a - b),
      );
    });

    it("refuses to reduce an order by all it has (that is a remove)", () => {
      const book = createBook(kind, 100);
      const resting = order(bidSide, 100, 5);
      book.add(resting);
      assert.throws(() => book.reduce(resting, 5));
    });
  });
}

describe("fast book against the reference book", () => {
  it("keeps the same priority, levels and best prices under random adds, reduces and removes", () => {
    const operation = fc.record({
      kind: fc.constantFrom("add", "add", "add", "reduce", "remove"),
      side: fc.constantFrom<BookSide>(bidSide, askSide),
      tick: fc.integer({ min: 1, max: 99 }),
      lots: fc.integer({ min: 1, max: 50 }),
      pick: fc.nat(),
    });
    fc.assert(
      fc.property(
        fc.constantFrom(1, 10, 100, 1_000),
        fc.array(operation, { minLength: 100, maxLength: 400, size: "max" }),
        (tickUnits, operations) => {
          const fast = createBook("fast", tickUnits);
          const reference = createBook("reference", tickUnits);
          // Each book gets its own copy of every order: books write to the orders they hold.
          const resting: [Order, Order][] = [];
          for (const step of operations) {
            if (step.kind === "add" || resting.length === 0) {
              const price = (step.tick % Math.floor(10_000 / tickUnits - 1)) * tickUnits + tickUnits;
              const original = order(step.side, price, step.lots);
              const pair: [Order, Order] = [original, { ...original }];
              fast.add(pair[0]);
              reference.add(pair[1]);
              resting.push(pair);
            } else {
              const index = step.pick % resting.length;
              const [inFast, inReference] = resting[index]!;
              if (step.kind === "reduce" && inFast.remainingLots > 1) {
                const lots = 1 + (step.lots % (inFast.remainingLots - 1));
                fast.reduce(inFast, lots);
                reference.reduce(inReference, lots);
              } else {
                fast.remove(inFast);
                reference.remove(inReference);
                resting.splice(index, 1);
              }
            }
            fast.validate();
            reference.validate();
            for (const side of [bidSide, askSide] as const) {
              assert.equal(fast.bestPrice(side), reference.bestPrice(side));
              assert.deepEqual(fast.levels(side, 10_000), reference.levels(side, 10_000));
              assert.deepEqual(walk(fast, side), walk(reference, side));
            }
            assert.equal(fast.orderCount, reference.orderCount);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
