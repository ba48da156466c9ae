// Subscriptions and the hub's engine reads (found by a review of i31-realtime's "book behind"
// catch-up, since removed): a subscription must not cost an engine read of its own (one public
// /ws/market message of 500 assets once made 500, each a waiting reader, and the engine refuses
// reads past readersWaitingMax, the hub's own absorb of a commit included), and a /ws/market
// subscriber, which has no seq/prevSeq to notice a gap, must get every change after its `book`,
// the book it was seeded with plus every change after it.
// Harness as test/realtime/fanout-guard.test.ts: the exchange core decides real batches, the engine
// around it and the sockets are fakes.

import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, it } from "node:test";
import { pino } from "pino";
import {
  createExchangeDecider,
  createMarketCommand,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  limitOrderCommand,
} from "../../src/core/exchange.js";
import type { ExchangeEngine } from "../../src/exchange/exchange-engine.js";
import { Subscriber } from "../../src/realtime/fanout.js";
import { RealtimeHub } from "../../src/realtime/hub.js";
import { realtimeLimits } from "../../src/realtime/limits.js";

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

async function startHub() {
  const decider = createExchangeDecider("reference");
  let state: ExchangeState = decider.initialState();
  let sequence = 0n;
  let listener: (entries: readonly Entry[]) => void = () => undefined;
  let readsToFail = 0;
  let reads = 0;
  const apply = (command: ExchangeCommand): Entry => {
    sequence += 1n;
    const decision = decider.decide(state, command, { nowMs: 1_000 + Number(sequence), sequence });
    if (!decision.ok) throw new Error(`refused: ${decision.rejection.code}`);
    for (const event of decision.events) state = decider.evolve(state, event);
    return { sequence, nowMs: 1_000 + Number(sequence), command, events: decision.events };
  };
  apply(createMarketCommand({ title: "Review", makerFeeBps: 0, takerFeeBps: 0 }));
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
      if (readsToFail > 0) {
        readsToFail -= 1;
        throw new Error("too many readers waiting");
      }
      return reader(state, { sequence, nowMs: 1_000 + Number(sequence) });
    },
  };
  const hub = await RealtimeHub.start({
    engine: engine as unknown as ExchangeEngine,
    identity: {} as never,
    readModels: {} as never,
    limits: realtimeLimits({ publishIntervalMs: 1 }),
    logger: pino({ level: "silent" }),
  });
  const commit = (...commands: ExchangeCommand[]): void => listener(commands.map(apply));
  return {
    hub,
    commit,
    reads: () => reads,
    failNextRead: () => {
      readsToFail = 1;
    },
    state: () => state,
  };
}

const buy = (userId: number, optionId: number, cents: bigint, shares: bigint) =>
  limitOrderCommand({
    userId,
    marketId: 1,
    outcomeId: 1,
    optionId,
    side: "BUY",
    limitPrice: cents * atomsPerCent,
    shares: shares * atomsPerUnit,
  });

const settle = () => new Promise((resolve) => setTimeout(resolve, 15));

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
