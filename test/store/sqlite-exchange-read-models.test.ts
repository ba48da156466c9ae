// The SQLite read models agree with the core's state after a long random run through the engine:
// balances, the ledger (every movement adds up to the balance), positions, open orders, trades
// (two sides each) and the catalogue. Random but seeded, so a failure is reproducible.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
  limitOrderCommand,
  marketOrderCommand,
  openOrdersOfUser,
  positionsOfUser,
} from "../../src/core/exchange.js";
import { Engine } from "../../src/engine/engine.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/sqlite/database.js";
import { SqliteEngineStore } from "../../src/store/sqlite/engine-store.js";
import {
  createSqliteExchangeProjector,
  createSqliteExchangeReadModels,
} from "../../src/store/sqlite/exchange-read-models.js";

const commandsCount = 1_500;
const usersCount = 6;
const unit = 100_000_000n;

/** Mulberry32: a small seeded generator, so the run is the same every time. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe("SQLite exchange read models", () => {
  it("agree with the engine's state after a random run", async () => {
    const db: SqliteDatabase = openDatabase({ path: ":memory:" });
    const engine = await Engine.open<ExchangeState, ExchangeCommand, ExchangeEvent, SqliteDatabase>({
      decider: exchangeDecider,
      codec: exchangeStateCodec,
      store: new SqliteEngineStore<ExchangeCommand, ExchangeEvent>(db),
      projectors: [createSqliteExchangeProjector(db)],
      clock: () => 1_800_000_000_000,
      onFatal: (error) => {
        throw error;
      },
    });
    const readModels = createSqliteExchangeReadModels(db);
    const created = await engine.submit(
      createMarketCommand({
        title: "Random",
        makerFeeBps: 15,
        takerFeeBps: 40,
        details: { categoryId: "9", tags: "a,b" },
      }),
    );
    assert.ok(created.ok && created.events[0]?.type === "MarketCreated");
    const market = created.events[0];
    const outcome = market.outcomes[0]!;
    const options = [outcome.options[0]!.optionId, outcome.options[1]!.optionId];
    assert.ok((await engine.submit({ type: "OpenMarket", marketId: market.marketId })).ok);
    for (let userId = 1; userId <= usersCount; userId += 1) {
      assert.ok(
        (await engine.submit({ type: "Deposit", userId, amount: 1_000n * unit, txHash: `0x${userId}` })).ok,
      );
    }

    const next = random(42);
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
          outcomeId: outcome.outcomeId,
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
          outcomeId: outcome.outcomeId,
          optionId,
          side: next() < 0.6 ? "BUY" : "SELL",
          ...(next() < 0.6 ? { amount: BigInt(1 + Math.floor(next() * 50)) * unit } : { shares: 2n * unit }),
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
      const account = state.accounts.get(userId)!;
      const balance = db
        .prepare("SELECT available, frozen FROM exchange_balances WHERE user_id = ?")
        .safeIntegers(true)
        .get(userId) as { available: bigint; frozen: bigint };
      assert.deepEqual(
        [balance.available, balance.frozen],
        [account.available, account.frozen],
        `user ${userId}`,
      );
      const ledger = await readModels.ledger(userId, { page: 1, pageSize: 1 });
      assert.deepEqual(
        [ledger.records[0]?.availableAfter, ledger.records[0]?.frozenAfter],
        [account.available, account.frozen],
      );

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
    await engine.close();
    db.close();
  });
});
