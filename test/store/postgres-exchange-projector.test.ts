// The PostgreSQL exchange projector keeps balances and positions in memory between batches (it is
// their only writer); what a rolled-back batch left in memory must never reach a later batch.
// Driven directly, batch by batch, as the engine store does (each batch one transaction).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ExchangeCommand, ExchangeEvent } from "../../src/core/exchange.js";
import type { JournalEntry } from "../../src/engine/store.js";
import { inTransaction, openPostgresPool } from "../../src/store/postgres/database.js";
import { createPostgresExchangeProjector } from "../../src/store/postgres/exchange-projector.js";
import { applyPostgresExchangeMigrations } from "../../src/store/postgres/exchange-projectors.js";
import { createTestDatabase, postgresExchangeHarness } from "./exchange-store-harness.js";

const { skip } = postgresExchangeHarness();

function deposit(
  sequence: bigint,
  userId: number,
  amount: bigint,
): JournalEntry<ExchangeCommand, ExchangeEvent> {
  const txHash = `0xtest${sequence}`;
  return {
    sequence,
    nowMs: 1_800_000_000_000,
    command: { type: "Deposit", userId, amount, txHash },
    events: [{ type: "DepositCredited", userId, amount, txHash, atMs: 1_800_000_000_000 }],
  };
}

describe("PostgreSQL exchange projector across batches", { skip }, () => {
  it("reads balances again after a batch that did not commit, and after a gap in the journal", async () => {
    const url = await createTestDatabase("projector");
    const pool = openPostgresPool({ url, applicationName: "projector-test" });
    try {
      await applyPostgresExchangeMigrations(pool);
      const projector = createPostgresExchangeProjector();
      const project = (entries: JournalEntry<ExchangeCommand, ExchangeEvent>[]) =>
        inTransaction(pool, async (client) => {
          await projector(client, entries);
        });
      const balance = async (userId: number) =>
        (await pool.query("SELECT available FROM exchange_balances WHERE user_id = $1", [userId])).rows[0]
          ?.available;

      await project([deposit(1n, 7, 100n)]);
      // Projected to its end, then rolled back (as when COMMIT fails or a later projector throws).
      await assert.rejects(
        inTransaction(pool, async (client) => {
          await projector(client, [deposit(2n, 7, 50n)]);
          throw new Error("commit failed");
        }),
      );
      assert.equal(await balance(7), 100n);
      // The same sequence again: the 50 that never committed must not be counted.
      await project([deposit(2n, 7, 5n)]);
      assert.equal(await balance(7), 105n);
      const ledger = await pool.query(
        "SELECT available_after FROM exchange_ledger WHERE user_id = 7 ORDER BY entry_id",
      );
      assert.deepEqual(
        ledger.rows.map((row) => row.available_after),
        [100n, 105n],
      );

      // Someone else wrote in between (another leader's batches): the next batch does not follow.
      await pool.query("UPDATE exchange_balances SET available = available + 1000 WHERE user_id = 7");
      await project([deposit(9n, 7, 1n)]);
      assert.equal(await balance(7), 1_106n);
      // A batch that follows keeps what it knows: the direct write above is not seen again, nor needed.
      await project([deposit(10n, 7, 1n)]);
      assert.equal(await balance(7), 1_107n);
    } finally {
      await pool.end();
    }
  });
});
