// Read-your-writes with the read models projected behind the journal (issue #31): on SQLite
// src/engine/deferred-projection.ts, on PostgreSQL src/store/postgres/read-model-projection.ts (the
// engine leader's steps; every read of a projected table waits for the recorded position to reach
// what the node's replica holds). The platform here holds its read models back, so every read below
// finds the journal ahead of them (checked in the database before each read: SQLite's
// read_model_position, PostgreSQL's engine_read_model_position, against the journal's last entry)
// and must wait for them. A partner's read after an acknowledged command sees that command, exactly
// as before the split.
//
// On SQLite a read projects itself (synchronously), so nothing else ever does here. On PostgreSQL a
// read cannot (the leader projects, possibly in another process): it waits for the leader's next
// step, which the held-back limits put heldBackOnPostgres.delayMs after a command.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { CreateOrderRequest } from "../../src/contract/partner/trading.js";
import { testingOnPostgres } from "./harness.js";
import { journalAndReadModelPositions } from "./store-contents.js";
import {
  type BinaryMarket,
  limitBid,
  startTradingPlatform,
  type TradingPlatform,
  usdtOf,
} from "./trading-fixtures.js";

/** SQLite: never reached by the runs below; only a read (or the platform's close) projects. */
const heldBackOnSqlite = { stepEntriesMin: 1_000_000, delayMs: 2_000_000_000 };
/**
 * PostgreSQL: no step size is reached either, but a step comes a second after the first entry that
 * waits (reads wait for it): long beside the few milliseconds between an answer and the check that
 * the read models lag, 500 times the default delay (2 ms).
 */
const heldBackOnPostgres = { stepEntriesMin: 1_000_000, delayMs: 1_000 };

describe("read-your-writes over read models projected behind the journal", () => {
  let platform: TradingPlatform;
  let market: BinaryMarket;
  before(async () => {
    platform = await startTradingPlatform({
      platform: { readModelProjection: testingOnPostgres ? heldBackOnPostgres : heldBackOnSqlite },
    });
    market = await platform.openMarket();
  });
  after(() => platform.close());

  /** Asserts that the journal holds entries the read models do not (yet): the next read meets them lagging. */
  const assertReadModelsBehind = async (what: string) => {
    const { journal, readModels } = await journalAndReadModelPositions(platform.dataDir);
    assert.ok(
      readModels < journal,
      `${what}: the read models should lag the journal (they hold ${readModels}, the journal ends at ${journal})`,
    );
  };

  const order = (fields: Partial<CreateOrderRequest>) => limitBid(market, fields);

  it("the platform's projection limits reach the store's projection: nothing projects on its own", async () => {
    const { client } = await platform.fundedUser("100");
    // A read first: the read models hold the deposit, so the order is the first entry that waits.
    assert.equal(Number((await usdtOf(client)).available), 100);
    await client.createOrder(order({ limitPrice: 0.05 }));
    // Many times either store's default delay (SQLite 10 ms, PostgreSQL 2 ms): with the defaults
    // the read models would hold the order by now.
    await sleep(200);
    await assertReadModelsBehind("200 ms after create-order");
    // The read waits for them all the same.
    assert.equal((await client.getOpenOrders({ marketId: market.marketId })).records.length, 1);
  });

  it("an order just acknowledged is in the open orders, the history and the book's cancel, at once", async () => {
    const { client } = await platform.fundedUser("100");
    const placed = await client.createOrder(order({ clientOrderId: "ryw-1" }));
    await assertReadModelsBehind("after create-order");
    const open = await client.getOpenOrders({ marketId: market.marketId });
    assert.deepEqual(
      open.records.map((record) => record.orderId),
      [placed.orderId],
    );
    const history = await client.getAccountHistory();
    assert.equal(history.records[0]?.type, "FREEZE", "the freeze of the order is the newest entry");

    // The same clientOrderId again answers the first order, read from the read models.
    await client.createOrder(order({ limitPrice: 0.3 }));
    await assertReadModelsBehind("before the repeated clientOrderId");
    const repeated = await client.createOrder(order({ clientOrderId: "ryw-1" }));
    assert.equal(repeated.orderId, placed.orderId);

    // cancel-order looks the order up in the read models before it submits the cancel.
    await client.createOrder(order({ limitPrice: 0.2 }));
    const fresh = await client.createOrder(order({ limitPrice: 0.1 }));
    await assertReadModelsBehind("before cancel-order");
    const cancelled = await client.cancelOrder(fresh.orderId);
    assert.equal(cancelled.status, "CANCELLED");
  });

  it("a trade just acknowledged is in both sides' trades and positions, and in the market's volume", async () => {
    const maker = await platform.fundedUser("100");
    const taker = await platform.fundedUser("100");
    const volumeBefore = Number((await maker.client.getLiveVolume(market.marketId)).volume);
    await maker.client.createOrder(order({ side: "BUY", optionId: market.yes, limitPrice: 0.6, shares: 5 }));
    await taker.client.createOrder(order({ side: "BUY", optionId: market.no, limitPrice: 0.4, shares: 5 }));
    await assertReadModelsBehind("after the trade");
    const volume = await taker.client.getLiveVolume(market.marketId);
    assert.equal(Number(volume.volume), volumeBefore + 5, "the cached market view saw the trade");
    for (const [user, optionId] of [
      [maker, market.yes],
      [taker, market.no],
    ] as const) {
      const trades = await user.client.getTrades({ marketId: market.marketId });
      assert.equal(trades.records.length, 1);
      const positions = await user.client.getPositions({ marketId: market.marketId });
      assert.deepEqual(
        positions.records.map((position) => [position.optionId, position.shares]),
        [[optionId, "5"]],
      );
    }
  });
});
