// Property: whatever the interleaving of commits, subscriptions and the completion of the reads
// behind them, every client of /socket/user-open-orders gets its snapshot first, never sees `seq`
// go backwards, and — applying the SDK's rule (a snapshot replaces the view, a change older than
// the view is ignored) — ends with exactly the user's open orders. The read models are a map the
// test changes at each commit; every read (the engine's sequence, the open orders, one order) is
// answered only when the test releases it, with what the map holds at that moment, as a database
// read answers with what is committed when it runs.

import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, it } from "node:test";
import fc from "fast-check";
import { pino } from "pino";
import { createInitialState } from "../../src/core/state.js";
import type { ExchangeEngine } from "../../src/exchange/exchange-engine.js";
import type { IdentityService } from "../../src/identity/service.js";
import { Subscriber } from "../../src/realtime/fanout.js";
import { UserFeeds, type UserSubscription } from "../../src/realtime/user-feeds.js";
import type { ExchangeReadModels, OrderRecord } from "../../src/store/exchange-read-models.js";

const userId = 7;
const orderIds = [1, 2, 3, 4];
type Status = OrderRecord["status"];
const statuses: Status[] = ["OPEN", "PARTIALLY_FILLED", "FILLED", "CANCELLED", "EXPIRED"];
const openStatuses = new Set<Status>(["OPEN", "PARTIALLY_FILLED"]);

type Action =
  | { readonly kind: "commit"; readonly orderIds: number[]; readonly status: Status }
  | { readonly kind: "subscribe" }
  | { readonly kind: "release"; readonly pick: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("commit" as const),
      orderIds: fc.uniqueArray(fc.constantFrom(...orderIds), { minLength: 1, maxLength: 2 }),
      status: fc.constantFrom(...statuses),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "subscribe" as const }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("release" as const), pick: fc.nat() }) },
);

class RecordingSocket extends EventEmitter {
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

function record(orderId: number, status: Status, seq: number): OrderRecord {
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
    // Which commit the record is from, so the final view can be compared exactly.
    updatedAtMs: seq * 1_000,
  };
}

/** Lets every promise that can settle, settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** The SDK's rule (src/sdk/ws/user-subscription.ts) over what one client received. */
function viewOf(messages: readonly Record<string, unknown>[]): Map<string, string> {
  const view = new Map<string, string>();
  let seq = -1;
  for (const message of messages) {
    if (message.snapshot === true) {
      view.clear();
      for (const order of message.orders as { orderId: string; status: string; updatedAt: string }[])
        view.set(order.orderId, `${order.status}@${order.updatedAt}`);
      seq = message.seq as number;
    } else if ((message.seq as number) >= seq) {
      const status = message.status as Status;
      if (openStatuses.has(status)) view.set(message.orderId as string, `${status}@${message.updatedAt}`);
      else view.delete(message.orderId as string);
      seq = message.seq as number;
    }
  }
  return view;
}

describe("user-open-orders under any interleaving", () => {
  it("each client starts with a snapshot, seqs never go back, and its view ends equal to the open orders", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 40 }), async (actions) => {
        const orders = new Map<number, OrderRecord>();
        let sequence = 0;
        const waiting: (() => void)[] = [];
        /** A read answered when the test releases it, with what holds then. */
        const later = <T>(answer: () => T): Promise<T> =>
          new Promise((resolve) => waiting.push(() => resolve(answer())));
        const engine = {
          phase: "running",
          onCommitted: () => () => undefined,
          read: <T>(reader: (state: unknown, position: { sequence: bigint; nowMs: number }) => T) =>
            later(() => reader(undefined, { sequence: BigInt(sequence), nowMs: 0 })),
        };
        const readModels = {
          orderById: (orderId: number) => later(() => orders.get(orderId)),
          orders: () =>
            later(() => {
              const open = [...orders.values()].filter((order) => openStatuses.has(order.status));
              return { records: open, total: open.length };
            }),
        };
        const feeds = new UserFeeds({
          engine: engine as unknown as ExchangeEngine,
          identity: { resolveSession: async () => ({ userId }) } as unknown as IdentityService,
          readModels: readModels as unknown as ExchangeReadModels,
          logger: pino({ level: "silent" }),
          healthy: () => true,
        });
        const state = createInitialState("reference");
        const clients: RecordingSocket[] = [];
        const subscribe = () => {
          const socket = new RecordingSocket();
          clients.push(socket);
          const subscription: UserSubscription = {
            channel: "orders",
            subscriber: new Subscriber(socket as never, 1 << 20),
            userId,
            partnerId: 1,
            sessionToken: "token",
            marketId: null,
            pending: [],
            checking: false,
          };
          void feeds.add(subscription);
        };

        for (const step of [...actions, { kind: "subscribe" } as const]) {
          switch (step.kind) {
            case "commit": {
              sequence += 1;
              for (const orderId of step.orderIds)
                orders.set(orderId, record(orderId, step.status, sequence));
              const change = {
                balance: true,
                orderIds: new Set(step.orderIds),
                marketIds: new Set<number>(),
                trades: [],
              };
              feeds.changed(state, userId, change, BigInt(sequence), 0);
              break;
            }
            case "subscribe":
              subscribe();
              break;
            case "release":
              if (waiting.length > 0) waiting.splice(step.pick % waiting.length, 1)[0]!();
              break;
            default: {
              const unreachable: never = step;
              throw new Error(`unknown step ${String(unreachable)}`);
            }
          }
          await settle();
        }
        // Everything still in flight completes, in order.
        while (waiting.length > 0) {
          waiting.shift()!();
          await settle();
        }

        const expected = new Map(
          [...orders.values()]
            .filter((order) => openStatuses.has(order.status))
            .map((order) => [
              String(order.orderId),
              `${order.status}@${new Date(order.updatedAtMs).toISOString().replace(/\.\d{3}Z$/, "Z")}`,
            ]),
        );
        for (const [index, client] of clients.entries()) {
          assert.ok(client.sent.length > 0, `client ${index} got its snapshot`);
          assert.equal(client.sent[0]!.snapshot, true, `client ${index}: the snapshot comes first`);
          const seqs = client.sent.map((message) => message.seq as number);
          assert.deepEqual(
            seqs,
            [...seqs].sort((a, b) => a - b),
            `client ${index}: seqs never go back`,
          );
          assert.deepEqual(viewOf(client.sent), expected, `client ${index}'s view`);
        }
      }),
      { numRuns: 300 },
    );
  });
});
