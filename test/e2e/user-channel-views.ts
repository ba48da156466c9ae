// A partner's live view of one user through the SDK's three user-channel subscriptions, every
// message each one received (by connection), and the same user's state read over REST
// (`/account/assets`, `/account/positions`, `POST /ordering/open-orders`), in one comparable shape.
// Shared by the reconnect tests on one node (test/e2e) and across API nodes (test/topology).

import assert from "node:assert/strict";
import type { PredexClient } from "../../src/sdk/client.js";
import type { GatewayCredentials } from "../../src/sdk/signer.js";
import {
  UserBalanceSubscription,
  UserOpenOrdersSubscription,
  UserPositionsSubscription,
  type UserSubscriptionState,
} from "../../src/sdk/ws/user-subscription.js";
import { waitForValue } from "../support/wait-until.js";

export interface UserState {
  readonly balance: { available: string; frozen: string; total: string } | undefined;
  readonly positions: { positionId: string; optionId: string; shares: string; cost: string }[];
  readonly orders: {
    orderId: string;
    status: string;
    side: string;
    optionId: string;
    limitPrice: string | null;
    shares: string | null;
    filledShares: string;
    avgPrice: string | null;
  }[];
}

/** Each channel's messages, one list per connection, in the order they came. */
export type Received = Record<"info" | "positions" | "orders", unknown[][]>;

export interface FollowedUser {
  readonly balance: UserBalanceSubscription;
  readonly positions: UserPositionsSubscription;
  readonly orders: UserOpenOrdersSubscription;
  readonly received: Received;
  /** The three views, in the shape restState gives. */
  view(): UserState;
  whenLive(timeoutMs?: number): Promise<void>;
  /** Snapshots applied by each subscription. */
  snapshotCounts(): number[];
  states(): UserSubscriptionState[];
  stop(): void;
}

/** Follows `client`'s user on the three user channels of `baseUrl` (a gateway, or a proxy in front of one). */
export function followUser(
  baseUrl: string,
  credentials: GatewayCredentials,
  client: PredexClient,
): FollowedUser {
  const received: Received = { info: [], positions: [], orders: [] };
  const common = (channel: keyof Received) => ({
    baseUrl,
    credentials,
    cookie: () => client.sessionCookie,
    backoff: { delayMsBase: 20, delayMsMax: 200 },
    onStateChange: (state: UserSubscriptionState) => {
      if (state === "syncing") received[channel].push([]);
    },
    onMessage: (message: unknown) => received[channel].at(-1)?.push(message),
  });
  const balance = new UserBalanceSubscription(common("info"));
  const positions = new UserPositionsSubscription(common("positions"));
  const orders = new UserOpenOrdersSubscription(common("orders"));
  const all = [balance, positions, orders] as const;
  for (const subscription of all) subscription.start();
  return {
    balance,
    positions,
    orders,
    received,
    view: () => ({
      balance:
        balance.balance === undefined
          ? undefined
          : {
              available: balance.balance.available,
              frozen: balance.balance.frozen,
              total: balance.balance.total,
            },
      positions: [...positions.positions.values()].map(positionFields).sort(byId("positionId")),
      orders: [...orders.orders.values()].map(orderFields).sort(byId("orderId")),
    }),
    whenLive: async (timeoutMs = 10_000) => {
      await Promise.all(all.map((subscription) => subscription.whenLive(timeoutMs)));
    },
    snapshotCounts: () => all.map((subscription) => subscription.snapshotCount),
    states: () => all.map((subscription) => subscription.state),
    stop: () => {
      for (const subscription of all) subscription.stop();
    },
  };
}

/** The user's state over REST, in the shape of FollowedUser.view(). */
export async function restState(client: PredexClient): Promise<UserState> {
  const [assets, positions, orders] = await Promise.all([
    client.getAssets(),
    client.getPositions({ pageSize: 100 }),
    client.getOpenOrders({ pageSize: 100 }),
  ]);
  const usdt = assets.find((asset) => asset.symbol === "USDT");
  return {
    balance:
      usdt === undefined ? undefined : { available: usdt.available, frozen: usdt.frozen, total: usdt.total },
    positions: positions.records.map(positionFields).sort(byId("positionId")),
    orders: orders.records.map(orderFields).sort(byId("orderId")),
  };
}

/** Waits until the followed view equals the REST state (both read the same journal, perhaps moments apart). */
export async function assertViewMatchesRest(
  followed: FollowedUser,
  client: PredexClient,
  timeoutMs = 10_000,
): Promise<UserState> {
  // The comparison's assertion is retried: once the time is up, the failure carries its diff.
  return waitForValue(
    async () => {
      const rest = await restState(client);
      assert.deepEqual(followed.view(), rest);
      return rest;
    },
    { what: "the followed view to equal the REST state", timeoutMs, intervalMs: 25, retryErrors: true },
  );
}

/**
 * Every message has a numeric `seq` and a boolean `snapshot`; each connection starts with a snapshot
 * (all its parts, one seq) and its seqs never go backwards.
 */
export function assertStampedInOrder(received: Received): void {
  for (const [channel, connections] of Object.entries(received)) {
    for (const [index, messages] of connections.entries()) {
      const where = `${channel}, connection ${index + 1}`;
      let previous = -1;
      let snapshotDone = false;
      for (const message of messages as Record<string, unknown>[]) {
        assert.equal(
          typeof message.seq,
          "number",
          `${where}: a message without seq: ${JSON.stringify(message)}`,
        );
        assert.equal(typeof message.snapshot, "boolean", `${where}: a message without snapshot`);
        const seq = message.seq as number;
        assert.ok(seq >= previous, `${where}: seq went back from ${previous} to ${seq}`);
        previous = seq;
        if (message.snapshot === true) {
          assert.ok(!snapshotDone, `${where}: a second snapshot on one connection`);
          snapshotDone = (message.part ?? 1) === (message.parts ?? 1);
        } else assert.ok(snapshotDone, `${where}: a change before the snapshot`);
      }
    }
  }
}

const byId =
  <Key extends string>(key: Key) =>
  (a: Record<Key, string>, b: Record<Key, string>) =>
    Number(a[key]) - Number(b[key]);

function positionFields(position: { positionId: string; optionId: string; shares: string; cost: string }) {
  return {
    positionId: position.positionId,
    optionId: position.optionId,
    shares: position.shares,
    cost: position.cost,
  };
}

function orderFields(order: UserState["orders"][number]) {
  return {
    orderId: order.orderId,
    status: order.status,
    side: order.side,
    optionId: order.optionId,
    limitPrice: order.limitPrice,
    shares: order.shares,
    filledShares: order.filledShares,
    avgPrice: order.avgPrice,
  };
}
