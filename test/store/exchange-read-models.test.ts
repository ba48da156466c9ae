// The exchange read models (SQLite and PostgreSQL, the same suite) agree with the core's state after a long random run through the engine:
// balances, the ledger (every movement adds up to the balance), positions, open orders, trades
// (two sides each) and the catalogue. Random but seeded, so a failure is reproducible.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type ExchangeCommand,
  limitOrderCommand,
  marketOrderCommand,
  openOrdersOfUser,
  positionsOfUser,
} from "../../src/core/exchange.js";
import { assertBalanceAndLedgerMatch, createOpenMarket, fundUsers, seededRandom } from "./exchange-run.js";
import { exchangeStoreHarnesses } from "./exchange-store-harness.js";

const commandsCount = 1_500;
const usersCount = 6;
const unit = 100_000_000n;

for (const harness of exchangeStoreHarnesses())
  describe(`exchange read models: ${harness.name}`, { skip: harness.skip }, () => {
    it("agree with the engine's state after a random run", async () => {
      const run = await harness.open(() => 1_800_000_000_000);
      const { engine, readModels } = run;
      const market = await createOpenMarket(engine, {
        title: "Random",
        makerFeeBps: 15,
        takerFeeBps: 40,
        details: { categoryId: "9", tags: "a,b" },
      });
      const { options } = market;
      await fundUsers(engine, usersCount, 1_000n * unit);

      const next = seededRandom(42);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
      const submissions: Promise<unknown>[] = [];
      for (let index = 0; index < commandsCount; index += 1) {
        const userId = 1 + Math.floor(next() * usersCount);
        const optionId = pick(options);
        const roll = next();
        let command: ExchangeCommand;
        if (roll < 0.6) {
          command = limitOrderCommand({
            userId,
            marketId: market.marketId,
            outcomeId: market.outcomeId,
            optionId,
            side: next() < 0.7 ? "BUY" : "SELL",
            limitPrice: BigInt(30 + Math.floor(next() * 40)) * 1_000_000n,
            shares: BigInt(1 + Math.floor(next() * 500)) * 1_000_000n,
            timeInForce: pick(["GTC", "GTC", "FAK", "FOK"] as const),
          });
        } else if (roll < 0.8) {
          command = marketOrderCommand({
            userId,
            marketId: market.marketId,
            outcomeId: market.outcomeId,
            optionId,
            side: next() < 0.6 ? "BUY" : "SELL",
            ...(next() < 0.6
              ? { amount: BigInt(1 + Math.floor(next() * 50)) * unit }
              : { shares: 2n * unit }),
          });
        } else {
          const open = await engine.read((state) => openOrdersOfUser(state, userId));
          if (open.length === 0) continue;
          command = { type: "CancelOrder", userId, orderId: pick(open).orderId };
        }
        // Several commands in flight at once, so batches hold more than one command.
        submissions.push(engine.submit(command));
        if (submissions.length === 16) await Promise.all(submissions.splice(0));
      }
      await Promise.all(submissions);

      const state = await engine.read((live) => live);
      let tradeRows = 0;
      for (let userId = 1; userId <= usersCount; userId += 1) {
        await assertBalanceAndLedgerMatch(run, state, userId);
        const positions = await readModels.positions({ userId }, { page: 1, pageSize: 100 });
        assert.deepEqual(
          positions.records.map((position) => [
            position.positionId,
            position.shares,
            position.frozenShares,
            position.cost,
            position.realizedPnl,
          ]),
          positionsOfUser(state, userId).map((position) => [
            position.positionId,
            position.availableShares,
            position.frozenShares,
            position.cost,
            position.realizedPnl,
          ]),
        );
        const open = await readModels.orders({ userId, openOnly: true }, { page: 1, pageSize: 100 });
        const live = openOrdersOfUser(state, userId);
        assert.deepEqual(
          open.records.map((order) => [order.orderId, order.status, order.filledShares]).reverse(),
          live.map((order) => [order.orderId, order.status, order.filledShares]),
        );
        tradeRows += (await readModels.trades({ userId }, { page: 1, pageSize: 1 })).total;
      }
      assert.equal(tradeRows, 2 * (state.counters.nextTradeId - 1), "two sides per trade");
      assert.ok(state.counters.nextTradeId > 100, "the run traded");

      const catalog = await readModels.market(market.marketId);
      assert.deepEqual([catalog?.status, catalog?.categoryId, catalog?.tags], ["open", "9", "a,b"]);
      assert.equal(catalog?.feeIncome, state.markets.get(market.marketId)!.feeIncome);
      const points = await readModels.pricePoints(options[0]!, 0, Number.MAX_SAFE_INTEGER, 10);
      assert.equal(points.length, 10);
      await run.close();
    });
  });
