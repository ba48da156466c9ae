// Regression (found by the crash simulation, test/sim): a settlement's legacy notifications read
// the holders' positions; when a claim was committed in the same batch as the settlement, they
// read positions the claim had already emptied, so the winner's notification was missing.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMarketCommand, limitOrderCommand } from "../../src/core/exchange.js";
import { exchangeStoreHarnesses } from "./exchange-store-harness.js";

const usdt = 100_000_000n;

// Both stores compose the projectors as the platform does (createExchangeProjectors on SQLite,
// createPostgresExchangeProjectors on PostgreSQL), settlement cut included.
for (const harness of exchangeStoreHarnesses())
  describe(`legacy settlement notifications: ${harness.name}`, { skip: harness.skip }, () => {
    it("are written from the positions at the settlement, even when a claim commits in the same batch", async () => {
      const run = await harness.open(() => 1_800_000_000_000);
      const { engine } = run;
      const created = await engine.submit(createMarketCommand({ title: "Rain?" }));
      assert.ok(created.ok && created.events[0]?.type === "MarketCreated");
      const { marketId, outcomes } = created.events[0];
      const outcome = outcomes[0]!;
      const [yes, no] = [outcome.options[0]!.optionId, outcome.options[1]!.optionId];
      assert.ok((await engine.submit({ type: "OpenMarket", marketId })).ok);
      for (const userId of [1, 2]) {
        assert.ok(
          (await engine.submit({ type: "Deposit", userId, amount: 100n * usdt, txHash: `0x${userId}` })).ok,
        );
      }
      const where = { marketId, outcomeId: outcome.outcomeId, side: "BUY" as const, shares: 10n * usdt };
      assert.ok(
        (
          await engine.submit(
            limitOrderCommand({ ...where, userId: 1, optionId: yes, limitPrice: 60_000_000n }),
          )
        ).ok,
      );
      assert.ok(
        (
          await engine.submit(
            limitOrderCommand({ ...where, userId: 2, optionId: no, limitPrice: 40_000_000n }),
          )
        ).ok,
      );
      assert.ok((await engine.submit({ type: "CloseMarket", marketId })).ok);
      const winners = [{ outcomeId: outcome.outcomeId, winningOptionId: yes }];
      const resolve = {
        type: "ResolveMarket" as const,
        marketId,
        proposerId: null,
        challengeWindowMs: null,
        challengeBond: null,
      };
      assert.ok((await engine.submit({ ...resolve, winners })).ok);

      // Settlement and the winner's claim in one batch.
      const [settled, claimed] = await Promise.all([
        engine.submit({ type: "FinalizeMarket", marketId, winners: null }),
        engine.submit({ type: "ClaimMarket", userId: 1, marketId }),
      ]);
      assert.ok(settled?.ok && claimed?.ok);
      assert.equal(settled.sequence + 1n, claimed.sequence);

      const rows = await run.settlementNotifications(marketId);
      assert.deepEqual(
        rows.map((row) => row.userId),
        [1, 2],
        "both holders at the settlement are notified",
      );
      assert.equal(
        JSON.parse(rows[0]!.content).claimable,
        10,
        "the winner could claim 10 USDT at the settlement",
      );
      await run.close();
    });
  });
