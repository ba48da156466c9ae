// The exchange read models (SQLite and PostgreSQL, the same suite) agree with the core's state when the random stream also carries the
// market lifecycle: three markets trade at random, then end differently (settled after a wrong
// challenge, settled by the window, voided while open) while the others still trade, and users
// claim at random, repeats included. Balances, the ledger, positions (status, claimable, claimed),
// market status, fee income and winners must match the engine. Seeded, so reproducible.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ExchangeCommand, limitOrderCommand, positionsOfUser } from "../../src/core/exchange.js";
import {
  assertBalanceAndLedgerMatch,
  createOpenMarket,
  fundUsers,
  type OpenBinaryMarket,
  seededRandom,
} from "./exchange-run.js";
import { exchangeStoreHarnesses } from "./exchange-store-harness.js";

const unit = 100_000_000n;
const usersCount = 5;

for (const harness of exchangeStoreHarnesses())
  describe(`read models through the market lifecycle: ${harness.name}`, { skip: harness.skip }, () => {
    it("agree with the engine's state after trading, resolution, challenge, settlement, void and claims", async () => {
      let nowMs = 1_800_000_000_000;
      const run = await harness.open(() => nowMs);
      const { engine, readModels } = run;
      const submit = async (command: ExchangeCommand) => engine.submit(command);
      const markets: OpenBinaryMarket[] = [];
      for (let index = 0; index < 3; index += 1) {
        markets.push(
          await createOpenMarket(engine, { title: `M${index}`, makerFeeBps: 10, takerFeeBps: 25 }),
        );
      }
      await fundUsers(engine, usersCount, 1_000n * unit);

      const next = seededRandom(7);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
      const trade = () => {
        const market = pick(markets);
        return limitOrderCommand({
          userId: 1 + Math.floor(next() * usersCount),
          marketId: market.marketId,
          outcomeId: market.outcomeId,
          optionId: pick(market.options),
          side: next() < 0.75 ? "BUY" : "SELL",
          limitPrice: BigInt(35 + Math.floor(next() * 30)) * 1_000_000n,
          shares: BigInt(1 + Math.floor(next() * 300)) * 1_000_000n,
          timeInForce: pick(["GTC", "GTC", "FAK"] as const),
        });
      };
      const claims = (): ExchangeCommand[] =>
        Array.from({ length: 6 }, () => {
          const userId = 1 + Math.floor(next() * usersCount);
          const market = pick(markets);
          return next() < 0.5
            ? { type: "ClaimMarket", userId, marketId: market.marketId }
            : { type: "ClaimPosition", userId, positionId: 1 + Math.floor(next() * 20) };
        });
      const [first, second, third] = markets as [
        (typeof markets)[0],
        (typeof markets)[0],
        (typeof markets)[0],
      ];
      const winner = (market: (typeof markets)[0], index: 0 | 1) => [
        { outcomeId: market.outcomeId, winningOptionId: market.options[index] },
      ];
      // Lifecycle steps interleaved with trading and claims, in this order.
      const lifecycle: ExchangeCommand[][] = [
        [{ type: "CloseMarket", marketId: first.marketId }],
        [
          {
            type: "ResolveMarket",
            marketId: first.marketId,
            proposerId: null,
            winners: winner(first, 0),
            challengeWindowMs: 60_000,
            challengeBond: 7n * unit,
          },
        ],
        [{ type: "ChallengeResolution", marketId: first.marketId, userId: 2, reason: "wrong" }],
        [{ type: "FinalizeMarket", marketId: first.marketId, winners: null }],
        [{ type: "VoidMarket", marketId: third.marketId }],
        [{ type: "CloseMarket", marketId: second.marketId }],
        [
          {
            type: "ResolveMarket",
            marketId: second.marketId,
            proposerId: null,
            winners: winner(second, 1),
            challengeWindowMs: 60_000,
            challengeBond: null,
          },
        ],
        [{ type: "SettleMarket", marketId: second.marketId }],
      ];
      for (const step of lifecycle) {
        const batch: Promise<unknown>[] = [];
        for (let index = 0; index < 150; index += 1) batch.push(submit(trade()));
        for (const command of claims()) batch.push(submit(command));
        await Promise.all(batch);
        if (step[0]?.type === "SettleMarket") nowMs += 60_000;
        for (const command of step) {
          const result = await submit(command);
          assert.ok(result.ok, `${command.type} is accepted`);
        }
      }
      // Everyone claims what is left, twice (the second time is refused), plus random claims.
      for (let userId = 1; userId <= usersCount; userId += 1) {
        for (const market of markets) {
          await submit({ type: "ClaimMarket", userId, marketId: market.marketId });
          await submit({ type: "ClaimMarket", userId, marketId: market.marketId });
        }
      }

      const state = await engine.read((live) => live);
      let claimed = 0;
      for (let userId = 1; userId <= usersCount; userId += 1) {
        await assertBalanceAndLedgerMatch(run, state, userId);
        const positions = await readModels.positions({ userId }, { page: 1, pageSize: 100 });
        assert.deepEqual(
          positions.records.map((position) => [
            position.positionId,
            position.shares,
            position.frozenShares,
            position.cost,
            position.status,
            position.claimable,
            position.claimedAmount,
          ]),
          positionsOfUser(state, userId).map((position) => [
            position.positionId,
            position.availableShares,
            position.frozenShares,
            position.cost,
            position.status,
            position.claimable,
            state.claims.get(position.positionId) ?? 0n,
          ]),
        );
        claimed += (await readModels.positions({ userId, status: "claimed" }, { page: 1, pageSize: 100 }))
          .total;
      }
      assert.equal(claimed, state.claims.size);
      assert.ok(claimed > 0, "the run claimed");

      for (const market of markets) {
        const catalog = await readModels.market(market.marketId);
        const live = state.markets.get(market.marketId)!;
        assert.deepEqual([catalog?.status, catalog?.feeIncome], [live.status, live.feeIncome]);
      }
      const wins = (
        await run.query(
          "SELECT option_id, is_win FROM market_options WHERE is_win IS NOT NULL ORDER BY option_id",
        )
      ).map((row) => ({ option_id: Number(row.option_id), is_win: Number(row.is_win) }));
      assert.deepEqual(wins, [
        { option_id: first.options[0], is_win: 1 },
        { option_id: first.options[1], is_win: 0 },
        { option_id: second.options[0], is_win: 0 },
        { option_id: second.options[1], is_win: 1 },
      ]);
      const ledgerTypes = await run.ledgerTypes();
      for (const type of ["BOND_FORFEIT", "CHALLENGE_BOND", "CLAIM"])
        assert.ok(ledgerTypes.includes(type), type);
      await run.close();
    });
  });
