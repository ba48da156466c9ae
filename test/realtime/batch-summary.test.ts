// What a committed batch gives /socket/user-trades (src/realtime/batch-summary.ts): every side of
// every trade to its own user, in journal order, stamped with its own command's sequence (not the
// batch's last), with the clientOrderId of an order placed in the batch; a user on both sides of
// one trade gets both, one per role; a pool fill is the trader's TAKER side at its average price.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { ExchangeEvent, OrderPlacedEvent, TradeExecutedEvent } from "../../src/core/events.js";
import {
  createExchangeDecider,
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeState,
  limitOrderCommand,
} from "../../src/core/exchange.js";
import type { PoolTradeExecutedEvent } from "../../src/core/pools/events.js";
import { createInitialState } from "../../src/core/state.js";
import { type CommittedEntries, summarizeBatch } from "../../src/realtime/batch-summary.js";
import { bookTradeSide } from "../../src/realtime/trade-sides.js";

const state = createInitialState("reference");

function trade(fields: Partial<TradeExecutedEvent> = {}): TradeExecutedEvent {
  return {
    type: "TradeExecuted",
    tradeId: 1,
    marketId: 1,
    outcomeId: 1,
    cross: "MINT",
    yesPrice: 60_000_000n,
    shares: 500_000_000n,
    atMs: 1_795_000_000_000,
    makerOrderId: 10,
    makerUserId: 7,
    makerOptionId: 1,
    makerSide: "BUY",
    makerPositionId: 1,
    makerPrice: 60_000_000n,
    makerNotional: 300_000_000n,
    makerFee: 3_000_000n,
    makerAvailableDelta: 0n,
    makerFrozenDelta: -303_000_000n,
    makerRemainingShares: 0n,
    makerStatus: "FILLED",
    takerOrderId: 11,
    takerUserId: 8,
    takerOptionId: 2,
    takerSide: "BUY",
    takerPositionId: 2,
    takerPrice: 40_000_000n,
    takerNotional: 200_000_000n,
    takerFee: 4_000_000n,
    takerAvailableDelta: -204_000_000n,
    collateralDelta: 500_000_000n,
    ...fields,
  };
}

function placed(orderId: number, userId: number, clientOrderId: string | null): OrderPlacedEvent {
  return {
    type: "OrderPlaced",
    orderId,
    userId,
    marketId: 1,
    outcomeId: 1,
    optionId: 2,
    side: "BUY",
    orderType: "LIMIT",
    timeInForce: "GTC",
    limitPrice: 40_000_000n,
    shares: 500_000_000n,
    amount: null,
    expiresAtMs: null,
    clientOrderId,
    createdAtMs: 0,
    status: "FILLED",
    filledShares: 500_000_000n,
    filledAmount: 200_000_000n,
    feePaid: 4_000_000n,
    restingShares: 0n,
    frozenAmount: 0n,
    frozenShares: 0n,
  };
}

function entries(...commands: ExchangeEvent[][]): CommittedEntries {
  return commands.map((events, index) => ({
    sequence: BigInt(20 + index),
    nowMs: 0,
    command: {} as never,
    events,
  }));
}

const summarize = (batch: CommittedEntries) => summarizeBatch(state, batch, () => undefined);

describe("the trades of a batch, per user", () => {
  it("give the maker and the taker their own side, each with its command's seq", () => {
    const summary = summarize(
      entries([placed(11, 8, "taker-1"), trade()], [trade({ tradeId: 2, takerOrderId: 12 })]),
    );
    const maker = summary.users.get(7)!.trades;
    const taker = summary.users.get(8)!.trades;
    assert.deepEqual(
      maker.map((side) => [side.trade.tradeId, side.trade.role, side.trade.side, side.seq]),
      [
        [1, "MAKER", "BUY", 20n],
        [2, "MAKER", "BUY", 21n],
      ],
    );
    assert.deepEqual(
      taker.map((side) => [side.trade.tradeId, side.trade.role, side.trade.optionId, side.seq]),
      [
        [1, "TAKER", 2, 20n],
        [2, "TAKER", 2, 21n],
      ],
    );
    // The same fields the read models write for GET /trades: each side's own price and fee.
    assert.deepEqual(
      [maker[0]!.trade.price, maker[0]!.trade.fee, taker[0]!.trade.price, taker[0]!.trade.fee],
      [60_000_000n, 3_000_000n, 40_000_000n, 4_000_000n],
    );
    // The taker order was placed in this batch: its clientOrderId is known; the maker's must be looked up.
    assert.deepEqual(
      [taker[0]!.clientOrderId, taker[1]!.clientOrderId, maker[0]!.clientOrderId],
      ["taker-1", undefined, undefined],
    );
  });

  it("give a user on both sides of one trade two sides, one per role", () => {
    const summary = summarize(entries([trade({ takerUserId: 7, cross: "MERGE" })]));
    assert.deepEqual(
      summary.users.get(7)!.trades.map((side) => [side.trade.tradeId, side.trade.role, side.trade.fee]),
      [
        [1, "MAKER", 3_000_000n],
        [1, "TAKER", 4_000_000n],
      ],
    );
  });

  it("give a pool fill to its trader as TAKER at the average price", () => {
    const pool: PoolTradeExecutedEvent = {
      type: "PoolTradeExecuted",
      tradeId: 5,
      orderId: 30,
      userId: 9,
      marketId: 2,
      outcomeId: 3,
      optionId: 5,
      positionId: 4,
      modelType: "AMM",
      side: "BUY",
      shares: 300_000_000n,
      amount: 100_000_000n,
      fee: 1_000_000n,
      availableDelta: -101_000_000n,
      collateralDelta: 100_000_000n,
      poolAfter: [0n, 0n],
      priceAfter: 0n,
      atMs: 0,
    };
    const [side] = summarize(entries([placed(30, 9, null), pool])).users.get(9)!.trades;
    assert.deepEqual(
      [side!.trade.role, side!.trade.price, side!.trade.fee, side!.clientOrderId, side!.seq],
      ["TAKER", 33_333_333n, 1_000_000n, null, 20n],
    );
  });
});

describe("the users a batch's summary is built for", () => {
  const decider = createExchangeDecider("reference");
  const users = [1, 2, 3, 4, 5];
  const atomsPerUnit = 100_000_000n;

  /** A market and five funded users, then `orders` decided by the core in batches of `batchSize`. */
  function decided(
    orders: readonly { userId: number; yes: boolean; buy: boolean; cents: number; shares: number }[],
    batchSize: number,
  ): { state: ExchangeState; batches: CommittedEntries[] } {
    let state = decider.initialState();
    let sequence = 0n;
    const apply = (command: ExchangeCommand) => {
      sequence += 1n;
      const decision = decider.decide(state, command, { nowMs: 1_000, sequence });
      if (!decision.ok) return undefined;
      for (const event of decision.events) state = decider.evolve(state, event);
      return { sequence, nowMs: 1_000, command, events: decision.events };
    };
    apply(createMarketCommand({ title: "Summary", makerFeeBps: 10, takerFeeBps: 20 }));
    apply({ type: "OpenMarket", marketId: 1 });
    for (const userId of users)
      apply({ type: "Deposit", userId, amount: 1_000_000n * atomsPerUnit, txHash: `0x${userId}` });
    const batches: CommittedEntries[] = [];
    for (let start = 0; start < orders.length; start += batchSize) {
      const batch = orders.slice(start, start + batchSize).flatMap((order, index) => {
        const entry = apply(
          limitOrderCommand({
            userId: order.userId,
            marketId: 1,
            outcomeId: 1,
            optionId: order.yes ? 1 : 2,
            side: order.buy ? "BUY" : "SELL",
            limitPrice: BigInt(order.cents) * 1_000_000n,
            shares: BigInt(order.shares) * atomsPerUnit,
            clientOrderId: index % 2 === 0 ? `c-${start + index}` : null,
          }),
        );
        return entry === undefined ? [] : [entry];
      });
      batches.push(batch);
    }
    return { state, batches };
  }

  const order = fc.record({
    userId: fc.constantFrom(...users),
    yes: fc.boolean(),
    buy: fc.boolean(),
    cents: fc.integer({ min: 40, max: 60 }),
    shares: fc.integer({ min: 1, max: 5 }),
  });

  it("builds each followed user's part exactly as for everyone, and nobody else's", () => {
    fc.assert(
      fc.property(
        fc.array(order, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 8 }),
        fc.subarray(users),
        (orders, batchSize, followed) => {
          const { state, batches } = decided(orders, batchSize);
          const asked: number[] = [];
          for (const batch of batches) {
            const everyone = summarizeBatch(state, batch, () => undefined);
            const some = summarizeBatch(
              state,
              batch,
              () => undefined,
              (userId) => {
                asked.push(userId);
                return followed.includes(userId);
              },
            );
            const expected = new Map([...everyone.users].filter(([userId]) => followed.includes(userId)));
            assert.deepEqual(some.users, expected);
            // The rest of the summary does not depend on who follows.
            assert.deepEqual(
              [[...some.touched], some.trades, some.opened, some.settled],
              [[...everyone.touched], everyone.trades, everyone.opened, everyone.settled],
            );
          }
          assert.ok(asked.every((userId) => users.includes(userId)));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("builds no part and no trade side when nobody is followed", () => {
    const { state, batches } = decided(
      [
        { userId: 1, yes: true, buy: true, cents: 50, shares: 3 },
        { userId: 2, yes: false, buy: true, cents: 50, shares: 3 },
      ],
      2,
    );
    const summary = summarizeBatch(
      state,
      batches[0]!,
      () => undefined,
      () => false,
    );
    assert.equal(summary.users.size, 0);
    assert.equal(summary.trades.length, 1, "the books' feeds still get the trade");
  });

  it("writes a book trade's side field by field as the spread of its shared fields did", () => {
    const event = trade();
    const common = {
      tradeId: event.tradeId,
      marketId: event.marketId,
      outcomeId: event.outcomeId,
      cross: event.cross,
      shares: event.shares,
      timeMs: event.atMs,
    };
    assert.deepEqual(bookTradeSide(event, "MAKER"), {
      ...common,
      orderId: 10,
      userId: 7,
      optionId: 1,
      side: "BUY",
      role: "MAKER",
      price: 60_000_000n,
      fee: 3_000_000n,
    });
    assert.deepEqual(bookTradeSide(event, "TAKER"), {
      ...common,
      orderId: 11,
      userId: 8,
      optionId: 2,
      side: "BUY",
      role: "TAKER",
      price: 40_000_000n,
      fee: 4_000_000n,
    });
  });
});
