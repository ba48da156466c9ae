// The fan-out builds a batch's per-user part only for users someone follows (issue #31): a batch
// that nobody follows builds none (counted by the hub, not timed), a followed user gets exactly its
// messages, and a user who subscribes after trading gets a snapshot of the state as it is and every
// change after it. Every touched book is kept current, watched or not, and a subscription costs the
// hub no engine read of its own (one public /ws/market message of 500 assets once made 500, each a
// waiting reader, and the engine refuses reads past readersWaitingMax, the hub's own absorb of a
// commit included). The exchange core decides real batches; the engine around it, the identity
// service, the read models and the sockets are fakes the test steps through.

import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, it } from "node:test";
import { pino } from "pino";
import {
  balanceOf,
  createExchangeDecider,
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  limitOrderCommand,
} from "../../src/core/exchange.js";
import { formatAtoms } from "../../src/core/money.js";
import type { ExchangeEngine } from "../../src/exchange/exchange-engine.js";
import { Subscriber } from "../../src/realtime/fanout.js";
import { RealtimeHub, type UserChannel } from "../../src/realtime/hub.js";
import { realtimeLimits } from "../../src/realtime/limits.js";
import type { OrderRecord } from "../../src/store/exchange-read-models.js";

const atomsPerCent = 1_000_000n;
const atomsPerUnit = 100_000_000n;

class FakeSocket extends EventEmitter {
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: Record<string, unknown>[] = [];
  send(payload: Buffer, _options: unknown, written?: (error?: Error) => void) {
    this.sent.push(JSON.parse(payload.toString("utf8")));
    written?.();
  }
  close() {
    this.readyState = 3;
  }
  terminate() {
    this.readyState = 3;
  }
  ping() {}
}

type Entry = { sequence: bigint; nowMs: number; command: ExchangeCommand; events: readonly ExchangeEvent[] };

/** One market, four funded users, an engine that gives the hub each batch the test commits. */
async function startHub() {
  const decider = createExchangeDecider("reference");
  let state: ExchangeState = decider.initialState();
  let sequence = 0n;
  let listener: (entries: readonly Entry[]) => void = () => undefined;
  let reads = 0;
  const apply = (command: ExchangeCommand): Entry => {
    sequence += 1n;
    const decision = decider.decide(state, command, { nowMs: 1_000 + Number(sequence), sequence });
    if (!decision.ok) throw new Error(`refused: ${decision.rejection.code}`);
    for (const event of decision.events) state = decider.evolve(state, event);
    return { sequence, nowMs: 1_000 + Number(sequence), command, events: decision.events };
  };
  apply(createMarketCommand({ title: "Guard", makerFeeBps: 0, takerFeeBps: 0 }));
  apply({ type: "OpenMarket", marketId: 1 });
  for (const userId of [1, 2, 3, 4])
    apply({ type: "Deposit", userId, amount: 1_000n * atomsPerUnit, txHash: `0x${userId}` });
  const engine = {
    phase: "running",
    onCommitted(added: typeof listener) {
      listener = added;
      return () => undefined;
    },
    read: async <T>(reader: (s: ExchangeState, p: { sequence: bigint; nowMs: number }) => T) => {
      reads += 1;
      return reader(state, { sequence, nowMs: 1_000 + Number(sequence) });
    },
  };
  const orders = (userId: number): OrderRecord[] =>
    [...state.orders.values()]
      .filter((order) => order.userId === userId)
      .map((order) => ({
        orderId: order.orderId,
        userId,
        marketId: 1,
        outcomeId: 1,
        optionId: order.optionId,
        side: order.side,
        orderType: "LIMIT",
        timeInForce: "GTC",
        limitPrice: 50n * atomsPerCent,
        shares: atomsPerUnit,
        amount: null,
        filledShares: 0n,
        filledAmount: 0n,
        feePaid: 0n,
        status: "OPEN",
        clientOrderId: order.clientOrderId,
        expiresAtMs: null,
        createdAtMs: 0,
        updatedAtMs: 0,
      }));
  const hub = await RealtimeHub.start({
    engine: engine as unknown as ExchangeEngine,
    identity: { resolveSession: async (token: string) => ({ userId: Number(token) }) } as never,
    readModels: {
      orderById: async (orderId: number) =>
        [1, 2, 3, 4].flatMap(orders).find((order) => order.orderId === orderId),
      orders: async (query: { userId: number }) => {
        const records = orders(query.userId);
        return { records, total: records.length };
      },
    } as never,
    limits: realtimeLimits({ publishIntervalMs: 1 }),
    logger: pino({ level: "silent" }),
  });
  /** Commits the commands as one batch and hands it to the hub. */
  const commit = (...commands: ExchangeCommand[]): void => listener(commands.map(apply));
  const subscribe = async (userId: number, channel: UserChannel): Promise<FakeSocket> => {
    const socket = new FakeSocket();
    await hub.addUserSubscription({
      channel,
      subscriber: new Subscriber(socket as never, 1 << 20),
      userId,
      partnerId: 1,
      sessionToken: String(userId),
      marketId: null,
      pending: [],
      checking: false,
    });
    return socket;
  };
  /** A /socket/clob-price-update subscriber of the outcome's Yes option; call the result to leave. */
  const watchBook = (): { socket: FakeSocket; leave: () => void } => {
    const socket = new FakeSocket();
    const leave = hub.addClobSubscriber(new Subscriber(socket as never, 1 << 20), 1, 0);
    return { socket, leave };
  };
  return {
    hub,
    commit,
    subscribe,
    watchBook,
    reads: () => reads,
    state: () => state,
    sequence: () => sequence,
  };
}

const buy = (userId: number, optionId: number, cents: bigint, shares: bigint, clientOrderId?: string) =>
  limitOrderCommand({
    userId,
    marketId: 1,
    outcomeId: 1,
    optionId,
    side: "BUY",
    limitPrice: cents * atomsPerCent,
    shares: shares * atomsPerUnit,
    ...(clientOrderId === undefined ? {} : { clientOrderId }),
  });

const settle = () => new Promise((resolve) => setTimeout(resolve, 15));

describe("the fan-out's user guard", () => {
  it("builds no user's part of a batch that nobody follows", async () => {
    const { hub, commit } = await startHub();
    try {
      // A resting Yes bid, then a No buy that mints against it: two users' balances, orders, a trade.
      commit(buy(1, 1, 50n, 10n, "bid"), buy(2, 2, 50n, 4n));
      commit(buy(3, 1, 40n, 1n), { type: "Deposit", userId: 4, amount: atomsPerUnit, txHash: "0xmore" });
      await settle();
      assert.deepEqual([hub.work.batches, hub.work.userParts], [2, 0]);
    } finally {
      hub.close();
    }
  });

  it("builds the part of each followed user only, and sends it as before", async () => {
    const { hub, commit, subscribe, state } = await startHub();
    try {
      const info = await subscribe(1, "info");
      const trades = await subscribe(1, "trades");
      commit(buy(1, 1, 50n, 10n, "bid"), buy(2, 2, 50n, 4n));
      await settle();
      // Users 1 and 2 both changed; only user 1 is followed.
      assert.deepEqual([hub.work.batches, hub.work.userParts], [1, 1]);
      const balance = balanceOf(state(), 1);
      assert.deepEqual(
        info.sent.map((message) => [message.snapshot, message.available, message.frozen]),
        [
          [true, "1000", "0"],
          [false, formatAtoms(balance.available), formatAtoms(balance.frozen)],
        ],
      );
      assert.deepEqual(
        trades.sent.map((message) => [message.role, message.side, message.shares, message.clientOrderId]),
        [["MAKER", "BUY", "4", "bid"]],
      );
    } finally {
      hub.close();
    }
  });

  it("gives a user who subscribes after trading a snapshot of now and every change after it", async () => {
    const { hub, commit, subscribe, state } = await startHub();
    try {
      // Nobody follows anyone while user 1's bid rests and is partly filled.
      commit(buy(1, 1, 50n, 10n, "early-bid"));
      commit(buy(2, 2, 50n, 3n));
      await settle();
      assert.equal(hub.work.userParts, 0);
      const info = await subscribe(1, "info");
      const orders = await subscribe(1, "orders");
      const positions = await subscribe(1, "positions");
      const trades = await subscribe(1, "trades");
      const before = balanceOf(state(), 1);
      assert.deepEqual(
        [info.sent[0]!.snapshot, info.sent[0]!.available, info.sent[0]!.frozen],
        [true, formatAtoms(before.available), formatAtoms(before.frozen)],
      );
      assert.deepEqual(
        (orders.sent[0]!.orders as { clientOrderId: string }[]).map((order) => order.clientOrderId),
        ["early-bid"],
      );
      assert.deepEqual(
        (positions.sent[0]!.positions as { shares: string }[]).map((position) => position.shares),
        ["3"],
      );
      // Another fill of the bid placed before the subscription: its clientOrderId is found.
      commit(buy(3, 2, 50n, 2n));
      await settle();
      assert.equal(hub.work.userParts, 1);
      assert.deepEqual(
        trades.sent.map((message) => [message.role, message.shares, message.clientOrderId]),
        [["MAKER", "2", "early-bid"]],
      );
      assert.deepEqual(
        positions.sent.slice(1).map((message) => message.shares),
        ["5"],
      );
      assert.equal(info.sent.length, 2);
      assert.equal(orders.sent.at(-1)!.snapshot, false);
    } finally {
      hub.close();
    }
  });
});

describe("the fan-out's books", () => {
  it("keeps every touched book current, watched or not", async () => {
    const { hub, commit } = await startHub();
    try {
      commit(buy(1, 1, 50n, 10n), buy(2, 2, 50n, 4n));
      commit(buy(3, 1, 45n, 2n));
      await settle();
      assert.deepEqual([hub.work.batches, hub.work.bookReads], [2, 2]);
    } finally {
      hub.close();
    }
  });

  it("diffs a book watched again against the book as it is, not as it was last watched", async () => {
    const { hub, commit, watchBook, state, sequence } = await startHub();
    try {
      const first = watchBook();
      commit(buy(1, 1, 50n, 10n));
      await settle();
      assert.deepEqual(
        first.socket.sent.map((message) => [message.side, message.price, message.size]),
        [["BUY", "0.5", "10"]],
      );
      first.leave();
      // Nobody watches: the 0.50 bid level grows to 20, and the book is still read.
      commit(buy(2, 1, 50n, 10n, "second"));
      await settle();
      assert.equal(hub.work.bookReads, 2);
      // Watched again: the cancel below shows as 20 → 10, although the level is back where it was
      // when the first socket last saw it.
      const second = watchBook();
      const secondBid = [...state().orders.values()].find((order) => order.userId === 2)!;
      commit({ type: "CancelOrder", userId: 2, orderId: secondBid.orderId });
      await settle();
      assert.deepEqual(
        second.socket.sent.map((message) => [message.side, message.price, message.size]),
        [["BUY", "0.5", "10"]],
      );
      assert.equal(second.socket.sent[0]!.seq, Number(sequence()));
      assert.equal(first.socket.sent.length, 1, "the socket that left got nothing more");
    } finally {
      hub.close();
    }
  });

  it("publishes to a book watched all along exactly each batch's changes", async () => {
    const { hub, commit, watchBook } = await startHub();
    try {
      const { socket } = watchBook();
      commit(buy(1, 1, 50n, 10n));
      await settle();
      commit(buy(2, 2, 45n, 4n), buy(3, 1, 48n, 1n));
      await settle();
      assert.deepEqual(
        socket.sent.map((message) => [message.side, message.price, message.size]),
        [
          ["BUY", "0.5", "10"],
          // One round: the bid side first, then the ask side.
          ["BUY", "0.48", "1"],
          ["SELL", "0.55", "4"],
        ],
      );
      assert.equal(hub.work.bookReads, 2);
    } finally {
      hub.close();
    }
  });
});

describe("subscriptions and the hub's engine reads", () => {
  it("costs no engine read for a subscription that makes no behind book watched", async () => {
    const { hub, commit, reads } = await startHub();
    try {
      // Outcome 1 is touched while nobody watches it (it was "behind" under the removed catch-up).
      commit(buy(1, 1, 50n, 10n));
      await settle();
      const before = reads();
      // One public /ws/market message may subscribe 500 assets (subscriptionsPerSocketMax); these
      // do not even exist.
      const subscriber = new Subscriber(new FakeSocket() as never, 1 << 20);
      for (let index = 0; index < 500; index += 1) hub.subscribeAsset(subscriber, `no-such-asset-${index}`);
      await settle();
      assert.equal(reads() - before, 0, "engine reads made by 500 subscriptions to unknown assets");
    } finally {
      hub.close();
    }
  });

  it("keeps a /ws/market subscriber's book whole: every change after its `book`", async () => {
    const { hub, commit, state } = await startHub();
    try {
      commit(buy(1, 1, 50n, 10n)); // while nobody watches
      await settle();
      const socket = new FakeSocket();
      const subscriber = new Subscriber(socket as never, 1 << 20);
      const yesAsset = state().options.get(1)!.assetId;
      hub.subscribeAsset(subscriber, yesAsset);
      assert.equal(await hub.sendBook(subscriber, yesAsset), true); // `book`: 0.50 x 10
      commit(buy(2, 1, 48n, 1n)); // a new bid level, 0.48 x 1
      await settle();
      commit(buy(3, 1, 47n, 1n)); // and 0.47 x 1
      await settle();
      // The client's book as Polymarket's protocol builds it: `book` replaces, price_change sets.
      const bids = new Map<number, number>();
      for (const message of socket.sent) {
        if (message.event_type === "book") {
          bids.clear();
          for (const level of message.bids as { price: string; size: string }[])
            bids.set(Number(level.price), Number(level.size));
        }
        if (message.event_type === "price_change") {
          for (const change of message.price_changes as {
            asset_id: string;
            side: string;
            price: string;
            size: string;
          }[]) {
            if (change.asset_id !== yesAsset || change.side !== "BUY") continue;
            if (Number(change.size) === 0) bids.delete(Number(change.price));
            else bids.set(Number(change.price), Number(change.size));
          }
        }
      }
      assert.deepEqual(
        [...bids].sort((a, b) => b[0] - a[0]),
        [
          [0.5, 10],
          [0.48, 1],
          [0.47, 1],
        ],
        `messages sent: ${JSON.stringify(socket.sent.map((message) => message.event_type))}`,
      );
    } finally {
      hub.close();
    }
  });
});
