// The exchange read models (SQLite and PostgreSQL, the same suite) agree with the core's state for AMM and parimutuel markets after a
// seeded random run through the engine, and again after both markets settle (or are voided) and
// some positions are claimed: balances, the ledger's last entry, positions (shares, cost, PnL,
// status, claimable), one trade row per pool trade, price points, and each market's fee income.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  createMarketCommand,
  type ExchangeCommand,
  marketOrderCommand,
  positionsOfUser,
} from "../../src/core/exchange.js";
import { exchangeStoreHarnesses } from "./exchange-store-harness.js";

const commandsCount = 600;
const usersCount = 5;
const unit = 100_000_000n;

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface PoolMarket {
  marketId: number;
  outcomeId: number;
  options: [number, number];
}

for (const harness of exchangeStoreHarnesses())
  for (const ending of ["settle", "void"] as const) {
    describe(`read models of AMM and parimutuel markets (${ending}): ${harness.name}`, {
      skip: harness.skip,
    }, () => {
      it("agree with the engine's state after random trading, the market's end and claims", async () => {
        const run = await harness.open(() => 1_800_000_000_000);
        const { engine, readModels } = run;
        const create = async (command: ExchangeCommand): Promise<PoolMarket> => {
          const created = await engine.submit(command);
          assert.ok(created.ok && created.events[0]?.type === "MarketCreated");
          const market = created.events[0];
          assert.ok((await engine.submit({ type: "OpenMarket", marketId: market.marketId })).ok);
          const outcome = market.outcomes[0]!;
          return {
            marketId: market.marketId,
            outcomeId: outcome.outcomeId,
            options: [outcome.options[0]!.optionId, outcome.options[1]!.optionId],
          };
        };
        const amm = await create(
          createMarketCommand({
            title: "AMM",
            modelType: "AMM",
            pool: {
              liquidity: 500n * unit,
              weights: [30_000_000n, 70_000_000n],
              buyFeeBps: 50,
              sellFeeBps: 80,
            },
            marketOrderPriceProtection: unit,
          }),
        );
        const parimutuel = await create(
          createMarketCommand({ title: "Pool", modelType: "parimutuel", pool: { settlementFeeBps: 300 } }),
        );
        for (let userId = 1; userId <= usersCount; userId += 1) {
          assert.ok(
            (await engine.submit({ type: "Deposit", userId, amount: 10_000n * unit, txHash: `0x${userId}` }))
              .ok,
          );
        }

        const next = random(7);
        const submissions: Promise<unknown>[] = [];
        for (let index = 0; index < commandsCount; index += 1) {
          const userId = 1 + Math.floor(next() * usersCount);
          const market = next() < 0.6 ? amm : parimutuel;
          const optionId = market.options[next() < 0.5 ? 0 : 1];
          const common = { userId, marketId: market.marketId, outcomeId: market.outcomeId, optionId };
          const amount = BigInt(1 + Math.floor(next() * 40)) * unit + BigInt(Math.floor(next() * 1e8));
          let command: ExchangeCommand = marketOrderCommand({ ...common, side: "BUY", amount });
          if (market === amm && next() < 0.4) {
            const held = await engine.read(
              (state) => state.accounts.get(userId)?.positions.get(optionId)?.shares ?? 0n,
            );
            if (held > unit) command = marketOrderCommand({ ...common, side: "SELL", shares: held / 3n });
          }
          submissions.push(engine.submit(command));
          if (submissions.length === 16) await Promise.all(submissions.splice(0));
        }
        await Promise.all(submissions);

        for (const market of [amm, parimutuel]) {
          if (ending === "void") {
            assert.ok((await engine.submit({ type: "VoidMarket", marketId: market.marketId })).ok);
            continue;
          }
          assert.ok((await engine.submit({ type: "CloseMarket", marketId: market.marketId })).ok);
          const resolved = await engine.submit({
            type: "ResolveMarket",
            marketId: market.marketId,
            proposerId: null,
            winners: [{ outcomeId: market.outcomeId, winningOptionId: market.options[1] }],
            challengeWindowMs: null,
            challengeBond: null,
          });
          assert.ok(resolved.ok);
          assert.ok(
            (await engine.submit({ type: "FinalizeMarket", marketId: market.marketId, winners: null })).ok,
          );
        }
        // Some users claim; the others' positions stay settled and claimable.
        for (const userId of [1, 2, 3]) {
          for (const market of [amm, parimutuel])
            await engine.submit({ type: "ClaimMarket", userId, marketId: market.marketId });
        }

        const state = await engine.read((live) => live);
        let tradeRows = 0;
        for (let userId = 1; userId <= usersCount; userId += 1) {
          const account = state.accounts.get(userId)!;
          const balance = await run.balanceRow(userId);
          assert.deepEqual([balance?.available, balance?.frozen], [account.available, account.frozen]);
          const ledger = await readModels.ledger(userId, { page: 1, pageSize: 1 });
          assert.equal(ledger.records[0]?.availableAfter, account.available);
          const positions = await readModels.positions({ userId }, { page: 1, pageSize: 100 });
          assert.deepEqual(
            positions.records.map((position) => [
              position.positionId,
              position.shares,
              position.cost,
              position.realizedPnl,
              position.status,
              position.claimable,
            ]),
            positionsOfUser(state, userId).map((position) => [
              position.positionId,
              position.availableShares,
              position.cost,
              position.realizedPnl,
              position.status,
              position.claimable,
            ]),
            `user ${userId}`,
          );
          tradeRows += (await readModels.trades({ userId }, { page: 1, pageSize: 1 })).total;
        }
        assert.equal(tradeRows, state.counters.nextTradeId - 1, "one row per pool trade");
        assert.ok(state.counters.nextTradeId > 300, "the run traded");
        for (const market of [amm, parimutuel]) {
          const catalog = await readModels.market(market.marketId);
          assert.equal(catalog?.feeIncome, state.markets.get(market.marketId)!.feeIncome);
          const points = await readModels.pricePoints(market.options[0], 0, Number.MAX_SAFE_INTEGER, 5);
          assert.equal(points.length, 5);
        }
        await run.close();
      });
    });
  }
