// The fills and ends of orders placed in an earlier projection step, summed per order through a
// step and written once at its end (src/store/sqlite/projection/orders.ts): exchange_orders ends
// exactly as a projection of one entry a step leaves it (where every fill is an UPDATE of its own),
// with resting orders filled many times in a step, amended between fills, and cancelled.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { limitOrderCommand } from "../../../src/core/exchange.js";
import { openDatabase, type SqliteDatabase } from "../../../src/store/sqlite/database.js";
import { createSqliteExchangeProjector } from "../../../src/store/sqlite/exchange-read-models.js";
import { createOpenMarket, type Entry, openJournalRecorder } from "../../support/recorded-journal.js";

const unit = 100_000_000n;
const cent = 1_000_000n;

type Action =
  | { readonly kind: "rest"; readonly userId: number; readonly price: bigint; readonly shares: bigint }
  | { readonly kind: "take"; readonly userId: number; readonly shares: bigint }
  | {
      readonly kind: "amend";
      readonly pick: number;
      readonly shares: bigint | null;
      readonly price: bigint | null;
    }
  | { readonly kind: "cancel"; readonly pick: number };

const actionArbitrary: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant("rest" as const),
    userId: fc.integer({ min: 1, max: 3 }),
    price: fc.constantFrom(48n, 49n, 50n),
    shares: fc.bigInt({ min: 5n, max: 20n }),
  }),
  fc.record({
    kind: fc.constant("take" as const),
    userId: fc.integer({ min: 4, max: 6 }),
    shares: fc.bigInt({ min: 1n, max: 6n }),
  }),
  fc.record({
    kind: fc.constant("amend" as const),
    pick: fc.nat(),
    shares: fc.option(fc.bigInt({ min: 10n, max: 30n })),
    price: fc.option(fc.constantFrom(47n, 49n, 50n)),
  }),
  fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat() }),
);

/** The actions as a real engine journals them: resting Yes bids, No bids that cross them, amends, cancels. */
async function journalOf(actions: readonly Action[]): Promise<Entry[]> {
  const recorder = await openJournalRecorder();
  const { engine } = recorder;
  const market = await createOpenMarket(engine, "Changes");
  for (let userId = 1; userId <= 6; userId += 1) {
    await engine.submit({ type: "Deposit", userId, amount: 1_000_000n * unit, txHash: `0x${userId}` });
  }
  const resting: { orderId: number; userId: number }[] = [];
  for (const action of actions) {
    if (action.kind === "rest" || action.kind === "take") {
      const result = await engine.submit(
        limitOrderCommand({
          userId: action.userId,
          marketId: market.marketId,
          outcomeId: market.outcomeId,
          optionId: market.options[action.kind === "rest" ? 0 : 1],
          side: "BUY",
          // A No bid at 0.55 crosses every Yes bid at 0.45 or more (they mint).
          limitPrice: (action.kind === "rest" ? action.price : 55n) * cent,
          shares: action.shares * unit,
        }),
      );
      const placed = result.ok ? result.events.find((event) => event.type === "OrderPlaced") : undefined;
      if (action.kind === "rest" && placed?.type === "OrderPlaced")
        resting.push({ orderId: placed.orderId, userId: action.userId });
    } else if (resting.length > 0) {
      const order = resting[action.pick % resting.length]!;
      await engine.submit(
        action.kind === "amend"
          ? {
              type: "AmendOrder",
              userId: order.userId,
              orderId: order.orderId,
              shares: action.shares === null ? null : action.shares * unit,
              limitPrice: action.price === null ? null : action.price * cent,
            }
          : { type: "CancelOrder", userId: order.userId, orderId: order.orderId },
      );
    }
  }
  await recorder.close();
  return recorder.batches.flat();
}

/** Projects `entries` in steps of `step` entries, each one transaction. */
function projected(entries: readonly Entry[], step: number): SqliteDatabase {
  const db = openDatabase({ path: ":memory:" });
  const projector = createSqliteExchangeProjector(db);
  for (let from = 0; from < entries.length; from += step) {
    const slice = entries.slice(from, from + step);
    db.transaction(() => projector(db, slice)).immediate();
  }
  return db;
}

const ordersOf = (db: SqliteDatabase) =>
  db.prepare("SELECT * FROM exchange_orders ORDER BY order_id").raw().all();

describe("order fills summed per step", () => {
  it("leave exchange_orders as one entry a step does (an UPDATE a fill)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(actionArbitrary, { minLength: 10, maxLength: 60 }),
        fc.integer({ min: 2, max: 40 }),
        async (actions, step) => {
          const entries = await journalOf(actions);
          const reference = ordersOf(projected(entries, 1));
          assert.deepEqual(ordersOf(projected(entries, step)), reference);
          assert.deepEqual(ordersOf(projected(entries, entries.length)), reference);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("sums a resting order's fills in a step into one row, amended and cancelled in between", async () => {
    const entries = await journalOf([
      { kind: "rest", userId: 1, price: 50n, shares: 20n },
      { kind: "rest", userId: 2, price: 49n, shares: 20n },
      { kind: "take", userId: 4, shares: 3n },
      { kind: "take", userId: 5, shares: 2n },
      { kind: "amend", pick: 0, shares: 30n, price: null },
      { kind: "take", userId: 6, shares: 4n },
      { kind: "take", userId: 4, shares: 20n },
      { kind: "take", userId: 5, shares: 1n },
      { kind: "cancel", pick: 1 },
    ]);
    // The market, the deposits and the two resting orders in the first step; every fill after.
    const firstStep = entries.findIndex(
      (entry) => entry.command.type === "PlaceOrder" && entry.command.userId === 4,
    );
    assert.ok(firstStep > 0);
    const db = openDatabase({ path: ":memory:" });
    const projector = createSqliteExchangeProjector(db);
    db.transaction(() => projector(db, entries.slice(0, firstStep))).immediate();
    const runs = new Map<string, number>();
    const statementPrototype = Object.getPrototypeOf(db.prepare("SELECT 1")) as {
      run: (...args: unknown[]) => unknown;
    };
    const run = statementPrototype.run;
    statementPrototype.run = function (this: { source: string }, ...args: unknown[]) {
      if (this.source.startsWith("UPDATE exchange_orders"))
        runs.set(this.source, (runs.get(this.source) ?? 0) + 1);
      return run.apply(this, args);
    };
    try {
      db.transaction(() => projector(db, entries.slice(firstStep))).immediate();
    } finally {
      statementPrototype.run = run;
    }
    // The amendment is one UPDATE; the fills around it and the cancel: one row per order at the end.
    const counts = [...runs].map(([source, count]) => [
      source.includes("FROM (VALUES") ? "summed" : "amend",
      count,
    ]);
    assert.deepEqual(counts.sort(), [
      ["amend", 1],
      ["summed", 2],
    ]);
    assert.deepEqual(ordersOf(db), ordersOf(projected(entries, 1)));
  });
});
