// Read-your-writes with the read models projected behind the journal (issue #31,
// src/engine/deferred-projection.ts). The platform here holds its read models back: nothing projects
// them on its own (no step size is ever reached, the delay is weeks), so every read below finds the
// journal ahead of them (checked in the SQLite file before each read) and must catch them up itself.
// A partner's read after an acknowledged command sees that command, exactly as before the split.
// On PostgreSQL (test/support/postgres-pass.ts) the read models are written in each commit and the
// same answers are expected.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CreateOrderRequest } from "../../src/contract/partner/trading.js";
import { testingOnPostgres } from "./harness.js";
import {
  type BinaryMarket,
  limitBid,
  startTradingPlatform,
  type TradingPlatform,
} from "./trading-fixtures.js";

/** Never reached by the runs below: only a read (or the platform's close) projects. */
const heldBack = { stepEntriesMin: 1_000_000, delayMs: 2_000_000_000 };

describe("read-your-writes over read models projected behind the journal", () => {
  let platform: TradingPlatform;
  let market: BinaryMarket;
  before(async () => {
    platform = await startTradingPlatform({ platform: { readModelProjection: heldBack } });
    market = await platform.openMarket();
  });
  after(() => platform.close());

  /** On SQLite, asserts that the journal holds entries the read models do not (yet). */
  const assertReadModelsBehind = (what: string) => {
    if (testingOnPostgres) return;
    const db = platform.platform.db!;
    const journalEnd = db.prepare("SELECT max(sequence) FROM journal").pluck().get() as number;
    const projected = db.prepare("SELECT projected_through FROM read_model_position").pluck().get() as number;
    assert.ok(
      projected < journalEnd,
      `${what}: the read models (at ${projected}) lag the journal (at ${journalEnd})`,
    );
  };

  const order = (fields: Partial<CreateOrderRequest>) => limitBid(market, fields);

  it("an order just acknowledged is in the open orders, the history and the book's cancel, at once", async () => {
    const { client } = await platform.fundedUser("100");
    const placed = await client.createOrder(order({ clientOrderId: "ryw-1" }));
    assertReadModelsBehind("after create-order");
    const open = await client.getOpenOrders({ marketId: market.marketId });
    assert.deepEqual(
      open.records.map((record) => record.orderId),
      [placed.orderId],
    );
    const history = await client.getAccountHistory();
    assert.equal(history.records[0]?.type, "FREEZE", "the freeze of the order is the newest entry");

    // The same clientOrderId again answers the first order, read from the read models.
    await client.createOrder(order({ limitPrice: 0.3 }));
    assertReadModelsBehind("before the repeated clientOrderId");
    const repeated = await client.createOrder(order({ clientOrderId: "ryw-1" }));
    assert.equal(repeated.orderId, placed.orderId);

    // cancel-order looks the order up in the read models before it submits the cancel.
    await client.createOrder(order({ limitPrice: 0.2 }));
    const fresh = await client.createOrder(order({ limitPrice: 0.1 }));
    assertReadModelsBehind("before cancel-order");
    const cancelled = await client.cancelOrder(fresh.orderId);
    assert.equal(cancelled.status, "CANCELLED");
  });

  it("a trade just acknowledged is in both sides' trades and positions, and in the market's volume", async () => {
    const maker = await platform.fundedUser("100");
    const taker = await platform.fundedUser("100");
    const volumeBefore = Number((await maker.client.getLiveVolume(market.marketId)).volume);
    await maker.client.createOrder(order({ side: "BUY", optionId: market.yes, limitPrice: 0.6, shares: 5 }));
    await taker.client.createOrder(order({ side: "BUY", optionId: market.no, limitPrice: 0.4, shares: 5 }));
    assertReadModelsBehind("after the trade");
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
