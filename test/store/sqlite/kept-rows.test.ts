// The balances and positions the exchange projector keeps from one step to the next
// (projection/kept-rows.ts): the read models equal those of a projection that never kept anything,
// also when a step rolled back and the same entries are projected again, and when SQLite's own
// state is all the next projector has (a restart).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { limitOrderCommand } from "../../../src/core/exchange.js";
import { openDatabase, type SqliteDatabase } from "../../../src/store/sqlite/database.js";
import { createSqliteExchangeProjector } from "../../../src/store/sqlite/exchange-read-models.js";
import { KeptRows } from "../../../src/store/sqlite/projection/kept-rows.js";
import { createOpenMarket, type Entry, openJournalRecorder } from "../../support/recorded-journal.js";

const unit = 100_000_000n;
const cent = 1_000_000n;

/** A journal of crossing orders between a few users, as a real engine writes it. */
async function crossingJournal(orders: number): Promise<Entry[]> {
  const recorder = await openJournalRecorder();
  const { engine } = recorder;
  const market = await createOpenMarket(engine, "Kept");
  for (let userId = 1; userId <= 6; userId += 1) {
    await engine.submit({ type: "Deposit", userId, amount: 1_000_000n * unit, txHash: `0x${userId}` });
  }
  for (let index = 0; index < orders; index += 1) {
    const buysYes = index % 2 === 0;
    await engine.submit(
      limitOrderCommand({
        userId: 1 + (index % 6),
        marketId: market.marketId,
        outcomeId: market.outcomeId,
        optionId: market.options[buysYes ? 0 : 1],
        side: "BUY",
        limitPrice: [49n, 50n, 51n][index % 3]! * cent,
        shares: BigInt(1 + (index % 4)) * unit,
      }),
    );
  }
  await recorder.close();
  return recorder.batches.flat();
}

const readModelTables = ["exchange_balances", "exchange_positions", "exchange_ledger", "exchange_orders"];

function tablesOf(db: SqliteDatabase): Record<string, unknown[]> {
  return Object.fromEntries(
    readModelTables.map((table) => [table, db.prepare(`SELECT * FROM ${table} ORDER BY 1`).raw().all()]),
  );
}

/** Projects `entries` in steps of `step`, each one transaction, with `also` after the exchange projector. */
function projectInSteps(
  db: SqliteDatabase,
  projector: ReturnType<typeof createSqliteExchangeProjector>,
  entries: readonly Entry[],
  step: number,
  also: (entries: readonly Entry[]) => void = () => {},
): void {
  for (let from = 0; from < entries.length; from += step) {
    const slice = entries.slice(from, from + step);
    db.transaction(() => {
      projector(db, slice);
      also(slice);
    }).immediate();
  }
}

describe("rows kept across projection steps", () => {
  it("leaves the read models as a projection in one step does, when a step rolled back and ran again", async () => {
    const entries = await crossingJournal(60);
    const reference = openDatabase({ path: ":memory:" });
    createSqliteExchangeProjector(reference)(reference, entries);

    const db = openDatabase({ path: ":memory:" });
    const projector = createSqliteExchangeProjector(db);
    let rolledBack = 0;
    for (let from = 0, stepIndex = 0; from < entries.length; from += 7, stepIndex += 1) {
      const slice = entries.slice(from, from + 7);
      const step = (failing: boolean) =>
        db
          .transaction(() => {
            projector(db, slice);
            // After the exchange projector wrote its rows (and kept them): the transaction rolls back.
            if (failing) throw new Error("the disk is full");
          })
          .immediate();
      if (stepIndex % 2 === 0) {
        assert.throws(() => step(true), /the disk is full/);
        rolledBack += 1;
      }
      step(false);
    }
    assert.ok(rolledBack >= 3);
    assert.deepEqual(tablesOf(db), tablesOf(reference));
  });

  it("reads what the table holds after a restart (a new projector keeps nothing)", async () => {
    const entries = await crossingJournal(40);
    const reference = openDatabase({ path: ":memory:" });
    createSqliteExchangeProjector(reference)(reference, entries);
    const db = openDatabase({ path: ":memory:" });
    projectInSteps(db, createSqliteExchangeProjector(db), entries.slice(0, 25), 5);
    projectInSteps(db, createSqliteExchangeProjector(db), entries.slice(25), 5);
    assert.deepEqual(tablesOf(db), tablesOf(reference));
  });

  it("forgets the oldest rows past its bound", () => {
    const kept = new KeptRows<number, string>(2);
    kept.set(1, "a");
    kept.set(2, "b");
    kept.set(1, "a2");
    kept.set(3, "c");
    assert.equal(kept.get(2), undefined);
    assert.equal(kept.get(1), "a2");
    assert.equal(kept.get(3), "c");
  });
});
