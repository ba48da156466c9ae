// The user channels' ordering rules (src/realtime/user-feeds.ts), with the engine, the read models
// and the sockets replaced by fakes the test steps through: the snapshot comes first and changes it
// already holds are dropped; a list's snapshot comes in parts of one seq; a user's order reads run
// one at a time so seqs never go backwards; reads begun before a reload never reach a socket; and
// the hub closes user channels with 1012 on a reload, after which a new subscription's snapshot
// carries the reloaded state's sequence even when it is lower than what was sent before.

import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, it } from "node:test";
import { pino } from "pino";
import type { ExchangeState } from "../../src/core/exchange.js";
import { createInitialState } from "../../src/core/state.js";
import type { ExchangeEngine } from "../../src/exchange/exchange-engine.js";
import type { IdentityService } from "../../src/identity/service.js";
import { Subscriber } from "../../src/realtime/fanout.js";
import { RealtimeHub } from "../../src/realtime/hub.js";
import { realtimeLimits } from "../../src/realtime/limits.js";
import { userSnapshotPartEntitiesMax } from "../../src/realtime/messages.js";
import { type UserChannel, UserFeeds, type UserSubscription } from "../../src/realtime/user-feeds.js";
import type { ExchangeReadModels, OrderRecord } from "../../src/store/exchange-read-models.js";

const silent = pino({ level: "silent" });
const userId = 7;
const noChange = { balance: false, orderIds: new Set<number>(), marketIds: new Set<number>(), trades: [] };

class FakeSocket extends EventEmitter {
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: Record<string, unknown>[] = [];
  closedWith: [number, string] | undefined;
  send(payload: Buffer, _options: unknown, written?: (error?: Error) => void) {
    this.sent.push(JSON.parse(payload.toString("utf8")));
    written?.();
  }
  close(code: number, reason: string) {
    this.closedWith = [code, reason];
    this.readyState = 3;
    this.emit("close", code, Buffer.from(reason));
  }
  terminate() {
    this.close(1006, "");
  }
  ping() {}
}

/** A promise the test resolves when it chooses. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 5));

function order(orderId: number, status: OrderRecord["status"] = "OPEN"): OrderRecord {
  return {
    orderId,
    userId,
    marketId: 1,
    outcomeId: 1,
    optionId: 1,
    side: "BUY",
    orderType: "LIMIT",
    timeInForce: "GTC",
    limitPrice: 40_000_000n,
    shares: 1_000_000_000n,
    amount: null,
    filledShares: 0n,
    filledAmount: 0n,
    feePaid: 0n,
    status,
    clientOrderId: null,
    expiresAtMs: null,
    createdAtMs: 0,
    updatedAtMs: 0,
  };
}

/** An engine whose reads wait for `gate` (when set) and see `sequence`. */
function fakeEngine() {
  const state = createInitialState("reference");
  const engine = {
    phase: "running",
    sequence: 0n,
    gate: undefined as Promise<void> | undefined,
    reloaded: [] as ((position: { sequence: bigint; nowMs: number }) => void)[],
    onCommitted: () => () => undefined,
    onReloaded(listener: (position: { sequence: bigint; nowMs: number }) => void) {
      engine.reloaded.push(listener);
      return () => undefined;
    },
    async read<T>(reader: (s: ExchangeState, p: { sequence: bigint; nowMs: number }) => T): Promise<T> {
      await engine.gate;
      return reader(state, { sequence: engine.sequence, nowMs: 0 });
    },
  };
  return { engine, state };
}

const identity = {
  resolveSession: async () => ({ userId }),
} as unknown as IdentityService;

function subscription(channel: UserChannel): { subscription: UserSubscription; socket: FakeSocket } {
  const socket = new FakeSocket();
  return {
    socket,
    subscription: {
      channel,
      subscriber: new Subscriber(socket as never, 1 << 20),
      userId,
      partnerId: 1,
      sessionToken: "token",
      marketId: null,
      pending: [],
      checking: false,
    },
  };
}

describe("user channel feeds", () => {
  it("send the snapshot first, then only the changes it does not already hold", async () => {
    const { engine, state } = fakeEngine();
    const gate = deferred<void>();
    engine.gate = gate.promise;
    const feeds = new UserFeeds({
      engine: engine as unknown as ExchangeEngine,
      identity,
      readModels: {} as ExchangeReadModels,
      logger: silent,
      healthy: () => true,
    });
    const { subscription: info, socket } = subscription("info");
    const added = feeds.add(info);
    // Two batches commit while the snapshot is being read; the snapshot is read at 10.
    feeds.changed(state, userId, { ...noChange, balance: true }, 9n, 0);
    feeds.changed(state, userId, { ...noChange, balance: true }, 11n, 0);
    assert.equal(socket.sent.length, 0, "nothing goes out before the snapshot");
    engine.sequence = 10n;
    engine.gate = undefined;
    gate.resolve();
    await added;
    await flush();
    assert.deepEqual(
      socket.sent.map((message) => [message.seq, message.snapshot]),
      [
        [10, true],
        [11, false],
      ],
    );
    // A later change at an older seq (a read that was overtaken) is not sent either.
    feeds.changed(state, userId, { ...noChange, balance: true }, 10n, 0);
    feeds.changed(state, userId, { ...noChange, balance: true }, 9n, 0);
    await flush();
    assert.deepEqual(
      socket.sent.map((message) => message.seq),
      [10, 11],
    );
  });

  it("send a snapshot of many open orders in parts of at most 500, all with one seq", async () => {
    const { engine } = fakeEngine();
    engine.sequence = 42n;
    const open = Array.from({ length: 2 * userSnapshotPartEntitiesMax + 201 }, (_, index) =>
      order(index + 1),
    );
    const readModels = {
      orders: async (_filter: unknown, page: { page: number; pageSize: number }) => ({
        records: open.slice((page.page - 1) * page.pageSize, page.page * page.pageSize),
        total: open.length,
      }),
    } as unknown as ExchangeReadModels;
    const feeds = new UserFeeds({
      engine: engine as unknown as ExchangeEngine,
      identity,
      readModels,
      logger: silent,
      healthy: () => true,
    });
    const { subscription: orders, socket } = subscription("orders");
    await feeds.add(orders);
    await flush();
    assert.deepEqual(
      socket.sent.map((message) => [
        message.snapshot,
        message.seq,
        message.part,
        message.parts,
        (message.orders as unknown[]).length,
      ]),
      [
        [true, 42, 1, 3, 500],
        [true, 42, 2, 3, 500],
        [true, 42, 3, 3, 201],
      ],
    );
    const ids = socket.sent.flatMap((message) =>
      (message.orders as { orderId: string }[]).map((entry) => Number(entry.orderId)),
    );
    assert.deepEqual(
      ids,
      open.map((record) => record.orderId),
    );
  });

  it("read a user's changed orders one read at a time, so their seqs go out in journal order", async () => {
    const { engine, state } = fakeEngine();
    engine.sequence = 4n;
    const reads: { orderId: number; answer: ReturnType<typeof deferred<OrderRecord | undefined>> }[] = [];
    const readModels = {
      orders: async () => ({ records: [], total: 0 }),
      orderById: (orderId: number) => {
        const answer = deferred<OrderRecord | undefined>();
        reads.push({ orderId, answer });
        return answer.promise;
      },
    } as unknown as ExchangeReadModels;
    const feeds = new UserFeeds({
      engine: engine as unknown as ExchangeEngine,
      identity,
      readModels,
      logger: silent,
      healthy: () => true,
    });
    const { subscription: orders, socket } = subscription("orders");
    await feeds.add(orders);
    const changedOrders = (seq: bigint, ...orderIds: number[]) =>
      feeds.changed(state, userId, { ...noChange, orderIds: new Set(orderIds) }, seq, 0);
    changedOrders(5n, 1);
    changedOrders(6n, 2);
    changedOrders(7n, 1);
    assert.deepEqual(
      reads.map((read) => read.orderId),
      [1],
      "one read at a time",
    );
    reads[0]!.answer.resolve(order(1, "PARTIALLY_FILLED"));
    await flush();
    // The second read takes both orders changed since, at the newest batch's seq.
    assert.deepEqual(
      reads
        .slice(1)
        .map((read) => read.orderId)
        .sort(),
      [1, 2],
    );
    for (const read of reads.slice(1)) read.answer.resolve(order(read.orderId, "FILLED"));
    await flush();
    assert.deepEqual(
      socket.sent.map((message) => [message.seq, message.snapshot, message.orderId, message.status]),
      [
        [4, true, undefined, undefined],
        [5, false, "1", "PARTIALLY_FILLED"],
        [7, false, "2", "FILLED"],
        [7, false, "1", "FILLED"],
      ],
    );
  });

  it("never send a read begun on a state that was reloaded since", async () => {
    const { engine, state } = fakeEngine();
    engine.sequence = 50n;
    const answer = deferred<OrderRecord | undefined>();
    const readModels = {
      orders: async () => ({ records: [], total: 0 }),
      orderById: () => answer.promise,
    } as unknown as ExchangeReadModels;
    const feeds = new UserFeeds({
      engine: engine as unknown as ExchangeEngine,
      identity,
      readModels,
      logger: silent,
      healthy: () => true,
    });
    const { subscription: orders, socket } = subscription("orders");
    await feeds.add(orders);
    feeds.changed(state, userId, { ...noChange, orderIds: new Set([1]) }, 51n, 0);
    feeds.reset();
    answer.resolve(order(1, "FILLED"));
    await flush();
    assert.deepEqual(
      socket.sent.map((message) => message.seq),
      [50],
    );
  });
});

describe("the user-trades feed", () => {
  /** One side of a trade of `userId` at `seq`; clientOrderId undefined means "look it up". */
  function tradeSide(tradeId: number, orderId: number, seq: bigint, clientOrderId?: string | null) {
    return {
      trade: {
        tradeId,
        orderId,
        userId,
        marketId: 1,
        outcomeId: 1,
        optionId: 1,
        side: "BUY" as const,
        role: "MAKER" as const,
        cross: "TRANSFER" as const,
        price: 40_000_000n,
        shares: 100_000_000n,
        fee: 400_000n,
        timeMs: 0,
      },
      seq,
      clientOrderId,
    };
  }

  it("sends no snapshot, then each trade in journal order, its clientOrderId from the batch, the book, the remembered ids or the read models", async () => {
    const { engine, state } = fakeEngine();
    engine.sequence = 30n;
    const reads: { orderId: number; answer: ReturnType<typeof deferred<OrderRecord | undefined>> }[] = [];
    const readModels = {
      orderById: (orderId: number) => {
        const answer = deferred<OrderRecord | undefined>();
        reads.push({ orderId, answer });
        return answer.promise;
      },
    } as unknown as ExchangeReadModels;
    const feeds = new UserFeeds({
      engine: engine as unknown as ExchangeEngine,
      identity,
      readModels,
      logger: silent,
      healthy: () => true,
    });
    const { subscription: trades, socket } = subscription("trades");
    const { subscription: info, socket: infoSocket } = subscription("info");
    await feeds.add(trades);
    await feeds.add(info);
    await flush();
    assert.equal(socket.sent.length, 0, "a stream has no snapshot");
    // Order 2 rests in the book; order 3 left it but its clientOrderId is still remembered.
    state.orders.set(2, { orderId: 2, clientOrderId: "resting" } as never);
    state.clientOrderIdRegistry.set(3, { userId, clientOrderId: "remembered" });
    const withTrades = (...sides: ReturnType<typeof tradeSide>[]) => ({ ...noChange, trades: sides });
    // Order 1 left the book and the memory: its clientOrderId must be read, and what comes after waits.
    feeds.changed(state, userId, withTrades(tradeSide(1, 1, 31n), tradeSide(2, 2, 32n)), 32n, 0);
    feeds.changed(
      state,
      userId,
      withTrades(tradeSide(3, 3, 33n), tradeSide(4, 4, 33n, "placed-in-batch")),
      33n,
      0,
    );
    await flush();
    assert.equal(socket.sent.length, 0, "nothing overtakes the trade whose order is being read");
    assert.deepEqual(
      reads.map((read) => read.orderId),
      [1],
    );
    reads[0]!.answer.resolve({ ...order(1, "FILLED"), clientOrderId: "from-read-models" });
    await flush();
    assert.deepEqual(
      socket.sent.map((message) => [message.tradeId, message.clientOrderId, message.seq, message.role]),
      [
        ["1", "from-read-models", 31, "MAKER"],
        ["2", "resting", 32, "MAKER"],
        ["3", "remembered", 33, "MAKER"],
        ["4", "placed-in-batch", 33, "MAKER"],
      ],
    );
    assert.equal(socket.sent[0]!.fee, "0.004");
    assert.equal(socket.sent[0]!.snapshot, undefined);
    // The balance channel of the same user saw the snapshot and no trade.
    assert.deepEqual(
      infoSocket.sent.map((message) => message.snapshot),
      [true],
    );
  });

  it("closes the channel with 1011 when a clientOrderId cannot be read, so the client catches up", async () => {
    const { engine, state } = fakeEngine();
    const readModels = {
      orderById: async () => {
        throw new Error("database gone");
      },
    } as unknown as ExchangeReadModels;
    const feeds = new UserFeeds({
      engine: engine as unknown as ExchangeEngine,
      identity,
      readModels,
      logger: silent,
      healthy: () => true,
    });
    const { subscription: trades, socket } = subscription("trades");
    await feeds.add(trades);
    feeds.changed(state, userId, { ...noChange, trades: [tradeSide(1, 1, 5n)] }, 5n, 0);
    await flush();
    assert.deepEqual(socket.closedWith, [1011, "upstream unavailable"]);
  });
});

describe("the hub on a reload", () => {
  it("closes user channels with 1012; a new subscription's snapshot has the reloaded sequence", async () => {
    const { engine } = fakeEngine();
    engine.sequence = 120n;
    const hub = await RealtimeHub.start({
      engine: engine as unknown as ExchangeEngine,
      identity,
      readModels: {} as ExchangeReadModels,
      limits: realtimeLimits(),
      logger: silent,
    });
    try {
      const first = subscription("info");
      hub.track(first.subscription.subscriber, () => undefined);
      await hub.addUserSubscription(first.subscription);
      await flush();
      assert.deepEqual(
        first.socket.sent.map((message) => message.seq),
        [120],
      );
      // The node's copy was forked past 110 and is reloaded from the database's state at 110.
      engine.sequence = 110n;
      for (const listener of engine.reloaded) listener({ sequence: 110n, nowMs: 0 });
      assert.deepEqual(first.socket.closedWith, [1012, "service restart: reconnect and re-seed"]);
      const second = subscription("info");
      hub.track(second.subscription.subscriber, () => undefined);
      await hub.addUserSubscription(second.subscription);
      await flush();
      assert.deepEqual(
        second.socket.sent.map((message) => [message.seq, message.snapshot]),
        [[110, true]],
      );
    } finally {
      hub.close();
    }
  });
});
