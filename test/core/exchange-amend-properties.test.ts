// Property: amend-order's priority rule, against a model of the queues. Random bids at a few prices,
// amends of random orders (fewer or more shares, another price, both, or the same), cancels, and
// sellers who take from the front; a model keeps each price level's queue by the rule alone
// (fewer shares at the same price: same place; any other change: the back of the new level; a
// fill that ends an order: gone). After every command both books must hold exactly the model's
// queues, and the invariants (frozen funds backing exactly what rests, money conserved) hold.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { atoms, bookKinds, Exchange, eventsOfType } from "./exchange-harness.js";

const runs = Number(process.env.PREDEX_PROPERTY_RUNS ?? 150);
const bidders = [1, 2, 3];
const seller = 9;

type Step =
  | { kind: "bid"; user: number; cents: number; lots: number }
  | { kind: "amend"; pick: number; shares: number | null; cents: number | null }
  | { kind: "cancel"; pick: number }
  | { kind: "sell"; cents: number; lots: number };

const cents = fc.integer({ min: 30, max: 34 });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("bid" as const),
      user: fc.constantFrom(...bidders),
      cents,
      lots: fc.integer({ min: 1, max: 20 }),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("amend" as const),
      pick: fc.nat(),
      shares: fc.option(fc.integer({ min: 1, max: 25 }), { freq: 3 }),
      cents: fc.option(cents, { freq: 2 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("sell" as const),
      cents,
      lots: fc.integer({ min: 1, max: 15 }),
    }),
  },
);

for (const kind of bookKinds) {
  describe(`amend-order's priority rule (${kind} book)`, () => {
    it("keeps every level's queue exactly as the rule says, and the frozen funds exact", () => {
      fc.assert(
        fc.property(fc.array(step, { minLength: 1, maxLength: 80 }), (steps) => {
          const exchange = new Exchange(kind);
          const market = exchange.openMarket({ makerFeeBps: 10, takerFeeBps: 30 });
          for (const user of [...bidders, seller, 4]) exchange.deposit(user, "10000");
          // The seller holds Yes shares to sell into the bids (minted against a No bid of its own).
          exchange.accept(exchange.limit(seller, market, market.yes, "BUY", "0.5", "1000"));
          exchange.accept(exchange.limit(4, market, market.no, "BUY", "0.5", "1000"));
          /** The model: each price (cents) → order ids in queue order; and each order's price and user. */
          const queues = new Map<number, number[]>();
          const orders = new Map<number, { cents: number; user: number; remaining: bigint }>();
          const remove = (orderId: number) => {
            const order = orders.get(orderId)!;
            const queue = queues.get(order.cents)!;
            queue.splice(queue.indexOf(orderId), 1);
            orders.delete(orderId);
          };
          for (const next of steps) {
            const resting = [...orders.keys()].sort((a, b) => a - b);
            if (next.kind === "bid") {
              const events = exchange.accept(
                exchange.limit(next.user, market, market.yes, "BUY", `0.${next.cents}`, String(next.lots)),
              );
              const [placed] = eventsOfType(events, "OrderPlaced");
              queues.set(next.cents, [...(queues.get(next.cents) ?? []), placed!.orderId]);
              orders.set(placed!.orderId, {
                cents: next.cents,
                user: next.user,
                remaining: atoms(String(next.lots)),
              });
            } else if (next.kind === "amend" && resting.length > 0) {
              const orderId = resting[next.pick % resting.length]!;
              const order = orders.get(orderId)!;
              const decided = exchange.run({
                type: "AmendOrder",
                userId: order.user,
                orderId,
                shares: next.shares === null ? null : atoms(String(next.shares)),
                limitPrice: next.cents === null ? null : atoms(`0.${next.cents}`),
              });
              if (!decided.ok) continue; // e.g. no more than what has filled: checked by the harness to change nothing
              const [amended] = eventsOfType(decided.events, "OrderAmended");
              if (amended === undefined) continue; // the same size and price: nothing happens
              const newCents = next.cents ?? order.cents;
              const fewerAtSamePrice = newCents === order.cents && amended.restingShares < order.remaining;
              assert.equal(
                amended.priorityKept,
                fewerAtSamePrice,
                "the rule decides whether the place is kept",
              );
              if (!fewerAtSamePrice) {
                remove(orderId);
                queues.set(newCents, [...(queues.get(newCents) ?? []), orderId]);
                orders.set(orderId, { ...order, cents: newCents });
              }
              orders.get(orderId)!.remaining = amended.restingShares;
            } else if (next.kind === "cancel" && resting.length > 0) {
              const orderId = resting[next.pick % resting.length]!;
              exchange.accept({ type: "CancelOrder", userId: orders.get(orderId)!.user, orderId });
              remove(orderId);
            } else if (next.kind === "sell") {
              const decided = exchange.run(
                exchange.limit(seller, market, market.yes, "SELL", `0.${next.cents}`, String(next.lots), {
                  timeInForce: "FAK",
                }),
              );
              if (!decided.ok) continue;
              for (const trade of eventsOfType(decided.events, "TradeExecuted")) {
                if (trade.makerRemainingShares === 0n) remove(trade.makerOrderId);
                else orders.get(trade.makerOrderId)!.remaining = trade.makerRemainingShares;
              }
            }
            // The book's bids, best price first, each level in time priority, are the model's.
            const book = exchange.state.outcomes.get(market.outcomeId)!.book!;
            const actual: number[] = [];
            for (let order = book.first(0); order !== null; order = book.next(order))
              actual.push(order.orderId);
            const expected = [...queues.entries()].sort((a, b) => b[0] - a[0]).flatMap(([, queue]) => queue);
            assert.deepEqual(actual, expected);
          }
        }),
        { numRuns: runs },
      );
    });
  });
}
