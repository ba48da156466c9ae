// Unit tests of the realtime building blocks: the local book's seq rules, the book tracker's diff,
// the slow-consumer cut-off, the public subscription parser, and /prices-history's parameters.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { OrderBook } from "../../src/core/book/order-book.js";
import { createInitialState } from "../../src/core/state.js";
import { summarizeBatch } from "../../src/realtime/batch-summary.js";
import { BookTracker, trackedLevels } from "../../src/realtime/book-tracker.js";
import { Subscriber, textFrame } from "../../src/realtime/fanout.js";
import { bucketHistory, historyPointsMax, parseHistoryQuery } from "../../src/realtime/price-history.js";
import { parseSubscription } from "../../src/realtime/public-market-socket.js";
import { LocalBook } from "../../src/sdk/ws/local-book.js";

describe("LocalBook", () => {
  const seeded = () => {
    const book = new LocalBook();
    book.seed({ seq: 10, bids: [{ price: "0.4", size: "5" }], asks: [{ price: "0.6", size: "3" }] });
    return book;
  };

  it("skips deltas older than its seed and applies the rest as totals", () => {
    const book = seeded();
    assert.equal(book.apply({ seq: 9, prevSeq: 5, side: "BUY", price: "0.4", size: "1" }), "stale");
    assert.equal(book.apply({ seq: 12, prevSeq: 8, side: "BUY", price: "0.4", size: "7" }), "applied");
    assert.equal(book.apply({ seq: 12, prevSeq: 8, side: "SELL", price: "0.6", size: "0" }), "applied");
    assert.deepEqual(book.levels(), { bids: [{ price: "0.4", size: "7" }], asks: [] });
    assert.equal(book.seq, 12);
  });

  it("applies a delta at exactly its seed's seq again, harmlessly (sizes are totals)", () => {
    const book = seeded();
    assert.equal(book.apply({ seq: 10, prevSeq: 4, side: "BUY", price: "0.4", size: "5" }), "applied");
    assert.deepEqual(book.levels().bids, [{ price: "0.4", size: "5" }]);
  });

  it("reports a gap when the book changed after its seq without it hearing", () => {
    const book = seeded();
    assert.equal(book.apply({ seq: 15, prevSeq: 11, side: "BUY", price: "0.41", size: "1" }), "gap");
    assert.deepEqual(book.levels().bids, [{ price: "0.4", size: "5" }]);
  });

  it("lists bids high to low and asks low to high", () => {
    const book = new LocalBook();
    book.seed({
      seq: 1,
      bids: [
        { price: "0.1", size: "1" },
        { price: "0.3", size: "1" },
      ],
      asks: [
        { price: "0.9", size: "1" },
        { price: "0.7", size: "1" },
      ],
    });
    assert.deepEqual(
      book.levels().bids.map((level) => level.price),
      ["0.3", "0.1"],
    );
    assert.deepEqual(
      book.levels().asks.map((level) => level.price),
      ["0.7", "0.9"],
    );
  });
});

describe("BookTracker", () => {
  /** A book stub: only `levels` is read by the tracker. */
  const stub = (bids: [number, number][], asks: [number, number][]) =>
    ({
      levels: (side: 0 | 1) => (side === 0 ? bids : asks).map(([priceUnits, lots]) => ({ priceUnits, lots })),
    }) as unknown as OrderBook;

  it("reports the levels that changed since the last read, with 0 for a level that is gone", () => {
    const tracker = new BookTracker();
    assert.equal(tracker.refresh(1, stub([[4000, 500]], [])).length, 1);
    assert.deepEqual(tracker.refresh(1, stub([[4000, 500]], [])), []);
    assert.deepEqual(tracker.refresh(1, stub([[4000, 300]], [[6000, 100]])), [
      { side: 0, priceUnits: 4000, lots: 300 },
      { side: 1, priceUnits: 6000, lots: 100 },
    ]);
    assert.deepEqual(tracker.refresh(1, stub([], [[6000, 100]])), [{ side: 0, priceUnits: 4000, lots: 0 }]);
  });

  it("shows a tracked book in No terms as the mirror image", () => {
    const tracker = new BookTracker();
    tracker.refresh(1, stub([[4000, 1]], [[6500, 2]]));
    assert.deepEqual(trackedLevels(tracker, 1, 1), { bids: [[3500, 2]], asks: [[6000, 1]] });
  });
});

describe("Subscriber", () => {
  function fakeSocket(bufferedAmount: number) {
    const sent: Buffer[] = [];
    let terminated = false;
    return {
      socket: {
        readyState: 1,
        bufferedAmount,
        send: (payload: Buffer) => sent.push(payload),
        terminate: () => {
          terminated = true;
        },
      },
      sent,
      terminated: () => terminated,
    };
  }

  it("sends while the socket's backlog stays under wsBufferedBytesMax", () => {
    const fake = fakeSocket(0);
    const subscriber = new Subscriber(fake.socket as never, 1_000);
    assert.equal(subscriber.send(Buffer.from("x".repeat(100))), true);
    assert.equal(fake.sent.length, 1);
    assert.equal(subscriber.stats.messagesSent, 1);
  });

  it("cuts off a slow consumer instead of queueing beyond wsBufferedBytesMax", () => {
    const fake = fakeSocket(950);
    const subscriber = new Subscriber(fake.socket as never, 1_000);
    assert.equal(subscriber.send(Buffer.from("x".repeat(100))), false);
    assert.equal(fake.terminated(), true);
    assert.equal(fake.sent.length, 0);
    assert.equal(subscriber.send(Buffer.from("y")), false);
    // The metrics' counters (src/metrics): one slow-consumer close, both messages dropped.
    assert.deepEqual(subscriber.stats, {
      opened: 1,
      closed: 0,
      messagesSent: 0,
      messagesDropped: 2,
      slowConsumerCloses: 1,
    });
  });
});

describe("textFrame", () => {
  it("frames a text payload the way RFC 6455 says a server must (FIN, opcode 1, no mask)", () => {
    for (const length of [5, 125, 126, 65_535, 70_000]) {
      const frame = textFrame(Buffer.alloc(length, 120));
      assert.equal(frame[0], 0x81);
      const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
      assert.equal(frame.length, header + length);
      if (length < 126) assert.equal(frame[1], length);
      else if (length < 65_536) assert.equal(frame.readUInt16BE(2), length);
      else assert.equal(frame.readBigUInt64BE(2), BigInt(length));
    }
  });
});

describe("parseSubscription", () => {
  it("reads Polymarket's subscribe-at-connect and later operations", () => {
    assert.deepEqual(parseSubscription('{"type":"market","assets_ids":["1","2","1"]}'), {
      operation: "subscribe",
      assetIds: ["1", "2"],
      initialDump: true,
    });
    assert.deepEqual(parseSubscription('{"operation":"unsubscribe","assets_ids":["1"]}'), {
      operation: "unsubscribe",
      assetIds: ["1"],
      initialDump: true,
    });
    assert.equal(
      (
        parseSubscription('{"type":"market","assets_ids":["1"],"initial_dump":false}') as {
          initialDump: boolean;
        }
      ).initialDump,
      false,
    );
  });

  it("refuses what is not a subscription", () => {
    assert.equal(parseSubscription("nope"), "message must be JSON or PING");
    assert.equal(parseSubscription("[]"), "message must be a JSON object");
    assert.equal(parseSubscription('{"assets_ids":[1]}'), "assets_ids must be an array of strings");
    assert.equal(parseSubscription('{"type":"user","assets_ids":[]}'), 'type must be "market"');
  });
});

describe("/prices-history parameters", () => {
  const nowMs = 1_800_000_000_000;

  it("turns an interval into a window ending now; 1m is a month", () => {
    const parsed = parseHistoryQuery({ market: "7", interval: "1m" }, nowMs);
    assert.ok(parsed.ok);
    assert.equal(parsed.value.toMs - parsed.value.fromMs, 30 * 86_400_000);
  });

  it("reads startTs and endTs as unix seconds, endTs inclusive", () => {
    const parsed = parseHistoryQuery({ market: "7", startTs: "100", endTs: "200" }, nowMs);
    assert.ok(parsed.ok);
    assert.deepEqual([parsed.value.fromMs, parsed.value.toMs], [100_000, 200_999]);
  });

  it("keeps the last point of each bucket, t in whole seconds", () => {
    const points = [
      { timeMs: 60_000, price: 0.1 },
      { timeMs: 61_500, price: 0.2 },
      { timeMs: 125_000, price: 0.3 },
    ];
    assert.deepEqual(bucketHistory(points, 1), [
      { t: 61, p: 0.2 },
      { t: 125, p: 0.3 },
    ]);
    assert.deepEqual(bucketHistory(points, 60), [{ t: 125, p: 0.3 }]);
  });

  it("widens buckets so an answer never exceeds historyPointsMax points", () => {
    const points = Array.from({ length: 20_000 }, (_unused, index) => ({
      timeMs: index * 60_000,
      price: 0.5,
    }));
    assert.ok(bucketHistory(points, 1).length <= historyPointsMax + 1);
  });
});

describe("summarizeBatch", () => {
  it("names the touched books, the trades and, per user, what to send again", () => {
    const state = createInitialState("reference");
    const placed = { type: "OrderPlaced", orderId: 5, userId: 1, marketId: 2, outcomeId: 3 };
    const trade = {
      type: "TradeExecuted",
      marketId: 2,
      outcomeId: 3,
      makerUserId: 1,
      makerOrderId: 4,
      takerUserId: 9,
      takerOrderId: 5,
    };
    const deposit = { type: "DepositCredited", userId: 7 };
    const summary = summarizeBatch(
      state,
      [{ sequence: 1n, nowMs: 0, command: {} as never, events: [placed, trade, deposit] as never }],
      () => assert.fail("no unknown events here"),
    );
    assert.deepEqual([...summary.touched], [3]);
    assert.equal(summary.trades.length, 1);
    assert.deepEqual([...summary.users.keys()].sort(), [1, 7, 9]);
    assert.deepEqual([...summary.users.get(1)!.orderIds].sort(), [4, 5]);
    assert.equal(summary.users.get(7)!.balance, true);
    assert.equal(summary.users.get(7)!.orderIds.size, 0);
  });

  it("reports an event kind it does not know instead of failing the batch", () => {
    const unknown: string[] = [];
    summarizeBatch(
      createInitialState("reference"),
      [{ sequence: 1n, nowMs: 0, command: {} as never, events: [{ type: "SomethingNew" }] as never }],
      (type) => unknown.push(type),
    );
    assert.deepEqual(unknown, ["SomethingNew"]);
  });
});
