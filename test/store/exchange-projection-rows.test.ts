// The pure per-event functions both stores' projectors apply (src/store/exchange-projection/): the
// rows they return for a given event and read state, and that they read through ProjectionReads
// only (the state they were given is never changed).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { OrderCancelledEvent, TradeExecutedEvent } from "../../src/core/events.js";
import { newPosition, type Position } from "../../src/core/wallet/positions.js";
import type { BalanceSum, ProjectionReads } from "../../src/store/exchange-projection/event-rows.js";
import { orderReleasedRows } from "../../src/store/exchange-projection/orders.js";
import { tradeRows } from "../../src/store/exchange-projection/trades.js";

const one = 100_000_000n;

function readsOf(balances: Map<number, BalanceSum>, positions: Position[]): ProjectionReads {
  return {
    balanceOf: (userId) => balances.get(userId) ?? { available: 0n, frozen: 0n },
    position: (positionId, userId, optionId, marketId, outcomeId) =>
      positions.find((position) => position.positionId === positionId) ??
      newPosition(positionId, userId, marketId, outcomeId, optionId),
    positionOf: (userId, optionId) =>
      positions.find((position) => position.userId === userId && position.optionId === optionId),
    optionIdsOf: () => [11, 12],
  };
}

/** Maker 1 sells 10 Yes resting at 0.60 to taker 2 buying; taker fee 0.01. */
const trade: TradeExecutedEvent = {
  type: "TradeExecuted",
  tradeId: 7,
  marketId: 1,
  outcomeId: 5,
  cross: "TRANSFER",
  yesPrice: (60n * one) / 100n,
  shares: 10n * one,
  atMs: 1_000,
  makerOrderId: 3,
  makerUserId: 1,
  makerOptionId: 11,
  makerSide: "SELL",
  makerPositionId: 21,
  makerPrice: (60n * one) / 100n,
  makerNotional: 6n * one,
  makerFee: 0n,
  makerAvailableDelta: 6n * one,
  makerFrozenDelta: 0n,
  makerRemainingShares: 0n,
  makerStatus: "FILLED",
  takerOrderId: 4,
  takerUserId: 2,
  takerOptionId: 11,
  takerSide: "BUY",
  takerPositionId: 22,
  takerPrice: (60n * one) / 100n,
  takerNotional: 6n * one,
  takerFee: one / 100n,
  takerAvailableDelta: -6n * one - one / 100n,
  collateralDelta: 0n,
} as TradeExecutedEvent;

describe("exchange projection rows", () => {
  it("a trade: the maker's fill, both sides' rows, ledger entries moved from the reads, positions, price points, totals", () => {
    const makerPosition = {
      ...newPosition(21, 1, 1, 5, 11),
      shares: 0n,
      frozenShares: 10n * one,
      cost: 5n * one,
    };
    const balances = new Map<number, BalanceSum>([[2, { available: 100n * one, frozen: 0n }]]);
    const reads = readsOf(balances, [makerPosition]);
    const rows = tradeRows(trade, reads);
    assert.deepEqual(rows.orderChanges, [
      { orderId: 3, shares: 10n * one, amount: 6n * one, fee: 0n, status: "FILLED", atMs: 1_000 },
    ]);
    assert.deepEqual(
      rows.trades?.map((row) => [row[1], row[2], row[3], row[7], row[11]]),
      [
        ["MAKER", 3, 1, "SELL", 0n],
        ["TAKER", 4, 2, "BUY", one / 100n],
      ],
    );
    assert.deepEqual(rows.ledger, [
      [1, "TRADE", 6n * one, 0n, 6n * one, 0n, "7", 1_000],
      [2, "TRADE", -6n * one, 0n, 94n * one, 0n, "7", 1_000],
      [2, "FEE", -one / 100n, 0n, 94n * one - one / 100n, 0n, "7", 1_000],
    ]);
    const [maker, taker] = rows.positions!;
    assert.equal(maker!.frozenShares, 0n);
    assert.equal(taker!.shares, 10n * one);
    assert.deepEqual(rows.pricePoints, [
      [11, 1_000, 7, 1, 5, (60n * one) / 100n],
      [12, 1_000, 7, 1, 5, (40n * one) / 100n],
    ]);
    assert.deepEqual(rows.marketTotals, [[1, 6n * one, one / 100n]]);
    // The reads' state is the caller's: the function moved copies.
    assert.equal(makerPosition.frozenShares, 10n * one);
    assert.deepEqual(balances.get(2), { available: 100n * one, frozen: 0n });
  });

  it("refuses entries that would leave a balance negative, and ones that differ from the event's delta", () => {
    const poor = readsOf(new Map([[2, { available: one, frozen: 0n }]]), [newPosition(21, 1, 1, 5, 11)]);
    assert.throws(() => tradeRows(trade, poor), /negative balance for user 2/);
    const rich = readsOf(new Map([[2, { available: 100n * one, frozen: 0n }]]), []);
    assert.throws(
      () => tradeRows({ ...trade, takerAvailableDelta: -6n * one }, rich),
      /taker entries differ from its balance delta/,
    );
  });

  it("an order's end releases its funds and moves its frozen shares only when the user has the position", () => {
    const cancelled: OrderCancelledEvent = {
      type: "OrderCancelled",
      orderId: 9,
      userId: 1,
      marketId: 1,
      outcomeId: 5,
      optionId: 11,
      releasedAmount: 2n * one,
      releasedShares: 3n * one,
      atMs: 2_000,
    } as OrderCancelledEvent;
    const balances = new Map([[1, { available: 0n, frozen: 2n * one }]]);
    const withPosition = orderReleasedRows(
      cancelled,
      readsOf(balances, [{ ...newPosition(21, 1, 1, 5, 11), frozenShares: 3n * one }]),
    );
    assert.deepEqual(withPosition.orderChanges?.[0]?.status, "CANCELLED");
    assert.deepEqual(withPosition.ledger, [[1, "UNFREEZE", 2n * one, -2n * one, 2n * one, 0n, "9", 2_000]]);
    assert.equal(withPosition.positions?.[0]?.shares, 3n * one);
    assert.equal(withPosition.positions?.[0]?.frozenShares, 0n);
    const without = orderReleasedRows(cancelled, readsOf(balances, []));
    assert.equal(without.positions, undefined);
  });
});
