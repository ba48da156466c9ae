// The user channels' feeds: per user, the sockets that follow its balance, positions, orders or
// trades; the snapshot each (re)subscription of the three state channels gets first and the
// changes after it, each stamped with the journal sequence it shows; the trades as they happen
// (a stream: no snapshot); and the session check that comes before every send (spec 000 "Events"
// rule 2: a dead session closes with 1011).
//
// Ordering (docs/realtime.md "User channels: snapshot and seq"): on one connection `seq` never goes
// backwards, and a change is sent only if the snapshot did not already hold it. Balances and
// positions are read from the committed state at the batch's sequence. Orders are read from the
// read models, which are projected inside each commit and so hold at least that batch (an API
// node's database may be further on: a message can show a newer state than its `seq`, never an
// older one). A user's order reads run one at a time, so their `seq`s go out in order. A user's
// trades go out in journal order too: one queue per user, waiting only when a clientOrderId has to
// be read from the read models.

import type { Logger } from "pino";
import { balanceOf, type ExchangeState, positionsOfUser } from "../core/exchange.js";
import type { ExchangeEngine } from "../exchange/exchange-engine.js";
import type { IdentityService } from "../identity/service.js";
import type { ExchangeReadModels } from "../store/exchange-read-models.js";
import type { ChangedUser, UserTradeSide } from "./batch-summary.js";
import { closeCodes, type Subscriber, upstreamUnavailableReason } from "./fanout.js";
import {
  encode,
  userBalance,
  userChange,
  userInfo,
  userOpenOrdersSnapshot,
  userOrder,
  userPosition,
  userPositionsSnapshot,
  userTrade,
} from "./messages.js";

/** Messages a user channel may have waiting (for its snapshot or its session check) before it counts as stuck. */
export const userPendingMessagesMax = 10_000;
/** Open orders read for a snapshot, 100 at a time. */
const openOrdersPageSize = 100;

export type UserChannel = "info" | "positions" | "orders" | "trades";

/** A message on its way to one subscription; a snapshot part waits until the socket has taken it. */
interface Outgoing {
  readonly payload: Buffer;
  readonly snapshotPart: boolean;
}

export interface UserSubscription {
  readonly channel: UserChannel;
  readonly subscriber: Subscriber;
  readonly userId: number;
  readonly partnerId: number;
  readonly sessionToken: string;
  /** user-positions only: one market, or all. */
  readonly marketId: number | null;
  pending: Outgoing[];
  checking: boolean;
  /** `seq` of the last message queued; undefined until the snapshot is. */
  sentSeq?: bigint | undefined;
  /** Changes that came before the snapshot was read: sent after it unless it already holds them. */
  held?: { seq: bigint; payloads: Buffer[] }[];
}

export interface UserFeedsOptions {
  readonly engine: ExchangeEngine;
  readonly identity: IdentityService;
  readonly readModels: ExchangeReadModels;
  readonly logger: Logger;
  /** False once the exchange has stopped: every send is then refused with 1011. */
  readonly healthy: () => boolean;
}

/** A user's trade sides still to be sent, oldest first; one drain at a time keeps journal order. */
interface TradeQueue {
  readonly sides: UserTradeSide[];
  running: boolean;
}

/** A user's orders that changed and are still to be read and sent. */
interface OrderReads {
  readonly orderIds: Set<number>;
  /** The sequence of the newest batch that changed one of them. */
  seq: bigint;
  nowMs: number;
  running: boolean;
}

export class UserFeeds {
  readonly #engine: ExchangeEngine;
  readonly #identity: IdentityService;
  readonly #readModels: ExchangeReadModels;
  readonly #logger: Logger;
  readonly #healthy: () => boolean;
  readonly #users = new Map<number, Set<UserSubscription>>();
  readonly #orderReads = new Map<number, OrderReads>();
  readonly #tradeQueues = new Map<number, TradeQueue>();
  /** Bumped when the engine's state is replaced: reads begun on the old state are dropped. */
  #generation = 0;

  constructor(options: UserFeedsOptions) {
    this.#engine = options.engine;
    this.#identity = options.identity;
    this.#readModels = options.readModels;
    this.#logger = options.logger;
    this.#healthy = options.healthy;
  }

  /** Registers a user channel and sends its snapshot (then every change). */
  async add(subscription: UserSubscription): Promise<() => void> {
    subscription.sentSeq = undefined;
    subscription.held = [];
    let set = this.#users.get(subscription.userId);
    if (set === undefined) {
      set = new Set();
      this.#users.set(subscription.userId, set);
    }
    set.add(subscription);
    const unsubscribe = () => {
      set.delete(subscription);
      if (set.size === 0) this.#users.delete(subscription.userId);
    };
    if (subscription.channel === "trades") {
      // A stream, not a state: no snapshot, every trade absorbed from now on goes out. What came
      // before is read with GET /trades (docs/realtime.md "/socket/user-trades").
      subscription.held = undefined;
      subscription.sentSeq = 0n;
      return unsubscribe;
    }
    // Registered first and read second: a change that lands in between is held, and sent after the
    // snapshot unless the snapshot's sequence already covers it. Never lost, never out of order.
    let snapshot: { seq: bigint; payloads: Buffer[] };
    try {
      snapshot = await this.#snapshot(subscription);
    } catch (error) {
      unsubscribe();
      throw error;
    }
    const held = subscription.held;
    subscription.held = undefined;
    subscription.sentSeq = snapshot.seq;
    this.#queue(
      subscription,
      snapshot.payloads.map((payload) => ({ payload, snapshotPart: true })),
    );
    for (const change of held) this.#send(subscription, change.seq, change.payloads);
    return unsubscribe;
  }

  /**
   * The engine's state was replaced by a reloaded one (the hub closes every socket with 1012):
   * order reads begun on the old state must not reach the sockets of the new one.
   */
  reset(): void {
    this.#generation += 1;
    this.#orderReads.clear();
    this.#tradeQueues.clear();
  }

  /** Whether the user has a live user-channel subscription (only then is a batch's part for them built). */
  follows(userId: number): boolean {
    return this.#users.has(userId);
  }

  /** Re-checks every user channel's session; a dead one is closed with 1011. */
  checkSessions(): void {
    for (const subscriptions of this.#users.values()) {
      for (const subscription of subscriptions) {
        if (subscription.checking) continue;
        void this.#sessionValid(subscription).then((valid) => {
          if (!valid)
            subscription.subscriber.close(closeCodes.upstreamUnavailable, upstreamUnavailableReason);
        });
      }
    }
  }

  /** A committed batch, whose last sequence is `seq`, changed this user's data. */
  changed(
    state: Readonly<ExchangeState>,
    userId: number,
    change: ChangedUser,
    seq: bigint,
    nowMs: number,
  ): void {
    const subscriptions = this.#users.get(userId);
    if (subscriptions === undefined) return;
    let balancePayload: Buffer | undefined;
    let positionPayloads: { marketId: number; payload: Buffer }[] | undefined;
    let wantOrders = false;
    let wantTrades = false;
    for (const subscription of subscriptions) {
      switch (subscription.channel) {
        case "info":
          if (!change.balance) break;
          balancePayload ??= encode(
            userInfo(userBalance(userId, balanceOf(state, userId), nowMs), seq, false),
          );
          this.#send(subscription, seq, [balancePayload]);
          break;
        case "positions": {
          positionPayloads ??= positionsOfUser(state, userId)
            .filter((position) => change.marketIds.has(position.marketId))
            .map((position) => ({
              marketId: position.marketId,
              payload: encode(userChange(userPosition(position, nowMs), seq)),
            }));
          const wanted = positionPayloads.filter(
            (item) => subscription.marketId === null || item.marketId === subscription.marketId,
          );
          if (wanted.length > 0)
            this.#send(
              subscription,
              seq,
              wanted.map((item) => item.payload),
            );
          break;
        }
        case "orders":
          wantOrders = change.orderIds.size > 0;
          break;
        case "trades":
          wantTrades = change.trades.length > 0;
          break;
        default: {
          const unreachable: never = subscription.channel;
          throw new Error(`unknown user channel ${String(unreachable)}`);
        }
      }
    }
    if (wantOrders) this.#readOrders(userId, change.orderIds, seq, nowMs);
    if (wantTrades) this.#queueTrades(state, userId, change.trades);
  }

  /**
   * Queues a batch's trade sides of one user. Their clientOrderIds are looked up now, on the state
   * of this batch: an order placed in the batch (batch-summary), an order still resting, or one
   * whose clientOrderId is still remembered (24 h) answers at once; only an order that has left
   * the book and the memory (a maker order filled in full, placed over a day ago or without a
   * clientOrderId) is read from the read models, which hold every order.
   */
  #queueTrades(state: Readonly<ExchangeState>, userId: number, sides: readonly UserTradeSide[]): void {
    let queue = this.#tradeQueues.get(userId);
    if (queue === undefined) {
      queue = { sides: [], running: false };
      this.#tradeQueues.set(userId, queue);
    }
    for (const side of sides) {
      if (side.clientOrderId !== undefined) {
        queue.sides.push(side);
        continue;
      }
      const orderId = side.trade.orderId;
      const resting = state.orders.get(orderId);
      const clientOrderId =
        resting !== undefined
          ? resting.clientOrderId
          : state.clientOrderIdRegistry.get(orderId)?.clientOrderId;
      queue.sides.push(clientOrderId === undefined ? side : { ...side, clientOrderId });
    }
    if (!queue.running) void this.#sendTrades(userId, queue);
  }

  /** Sends a user's queued trades in order; runs without waiting unless a clientOrderId must be read. */
  async #sendTrades(userId: number, queue: TradeQueue): Promise<void> {
    const generation = this.#generation;
    queue.running = true;
    try {
      while (queue.sides.length > 0) {
        const sides = queue.sides.splice(0);
        const unknown = [
          ...new Set(
            sides.filter((side) => side.clientOrderId === undefined).map((side) => side.trade.orderId),
          ),
        ];
        const read = new Map<number, string | null>();
        if (unknown.length > 0) {
          const records = await Promise.all(unknown.map((orderId) => this.#readModels.orderById(orderId)));
          if (generation !== this.#generation) return;
          for (const [index, orderId] of unknown.entries())
            read.set(orderId, records[index]?.clientOrderId ?? null);
        }
        const subscriptions = [...(this.#users.get(userId) ?? [])].filter(
          (subscription) => subscription.channel === "trades",
        );
        if (subscriptions.length === 0) continue;
        for (const side of sides) {
          const clientOrderId = side.clientOrderId ?? read.get(side.trade.orderId) ?? null;
          const payload = encode(userTrade(side.trade, clientOrderId, side.seq));
          for (const subscription of subscriptions) this.#send(subscription, side.seq, [payload]);
        }
      }
    } catch (error) {
      this.#logger.error({ err: error, userId }, "reading orders for a user's trades failed");
      // A trade that cannot be sent complete is a trade the client would miss: it reconnects and
      // catches up with GET /trades instead.
      for (const subscription of this.#users.get(userId) ?? []) {
        if (subscription.channel === "trades")
          subscription.subscriber.close(closeCodes.upstreamUnavailable, upstreamUnavailableReason);
      }
    } finally {
      queue.running = false;
      if (this.#tradeQueues.get(userId) === queue && queue.sides.length === 0)
        this.#tradeQueues.delete(userId);
    }
  }

  /**
   * Adds orders to the user's next read. One read per user runs at a time, taking every order
   * changed so far with the newest batch's sequence: the reads, and so their `seq`s, follow the
   * journal, and a burst of batches costs one read, not one each.
   */
  #readOrders(userId: number, orderIds: ReadonlySet<number>, seq: bigint, nowMs: number): void {
    let reads = this.#orderReads.get(userId);
    if (reads === undefined) {
      reads = { orderIds: new Set(), seq, nowMs, running: false };
      this.#orderReads.set(userId, reads);
    }
    for (const orderId of orderIds) reads.orderIds.add(orderId);
    if (seq > reads.seq) reads.seq = seq;
    reads.nowMs = Math.max(reads.nowMs, nowMs);
    if (!reads.running) void this.#runOrderReads(userId, reads);
  }

  async #runOrderReads(userId: number, reads: OrderReads): Promise<void> {
    const generation = this.#generation;
    reads.running = true;
    try {
      while (reads.orderIds.size > 0) {
        const orderIds = [...reads.orderIds];
        const { seq, nowMs } = reads;
        reads.orderIds.clear();
        const records = await Promise.all(orderIds.map((orderId) => this.#readModels.orderById(orderId)));
        if (generation !== this.#generation) return;
        const payloads = records.flatMap((record) =>
          record === undefined ? [] : [encode(userChange(userOrder(record, nowMs), seq))],
        );
        for (const subscription of this.#users.get(userId) ?? []) {
          if (subscription.channel === "orders" && payloads.length > 0)
            this.#send(subscription, seq, payloads);
        }
      }
    } catch (error) {
      this.#logger.error({ err: error, userId }, "reading orders for a user channel failed");
      // A change that cannot be read is a change the client would never see: it reconnects and
      // gets a snapshot instead.
      for (const subscription of this.#users.get(userId) ?? []) {
        if (subscription.channel === "orders")
          subscription.subscriber.close(closeCodes.upstreamUnavailable, upstreamUnavailableReason);
      }
    } finally {
      reads.running = false;
      if (this.#orderReads.get(userId) === reads) this.#orderReads.delete(userId);
    }
  }

  /** The channel's whole state and the journal sequence it was read at. */
  async #snapshot(subscription: UserSubscription): Promise<{ seq: bigint; payloads: Buffer[] }> {
    const { userId } = subscription;
    switch (subscription.channel) {
      case "trades":
        throw new Error("the trades channel has no snapshot");
      case "info":
        return this.#engine.read((state, position) => ({
          seq: position.sequence,
          payloads: [
            encode(
              userInfo(
                userBalance(userId, balanceOf(state, userId), position.nowMs),
                position.sequence,
                true,
              ),
            ),
          ],
        }));
      case "positions":
        return this.#engine.read((state, position) => ({
          seq: position.sequence,
          payloads: userPositionsSnapshot(
            { userId, marketId: subscription.marketId, seq: position.sequence, timeMs: position.nowMs },
            positionsOfUser(state, userId, subscription.marketId).map((view) =>
              userPosition(view, position.nowMs),
            ),
          ).map(encode),
        }));
      case "orders": {
        // The sequence first, the orders second: the read models then hold at least that sequence.
        const { sequence, nowMs } = await this.#engine.read((_state, position) => position);
        const orders = [];
        for (let page = 1; ; page += 1) {
          const result = await this.#readModels.orders(
            { userId, openOnly: true },
            { page, pageSize: openOrdersPageSize },
          );
          for (const record of result.records) orders.push(userOrder(record, nowMs));
          if (page * openOrdersPageSize >= result.total || result.records.length === 0) break;
        }
        return {
          seq: sequence,
          payloads: userOpenOrdersSnapshot({ userId, seq: sequence, timeMs: nowMs }, orders).map(encode),
        };
      }
      default: {
        const unreachable: never = subscription.channel;
        throw new Error(`unknown user channel ${String(unreachable)}`);
      }
    }
  }

  /**
   * Sends a change at `seq`: held while the snapshot is being read; dropped when what was sent
   * already shows a later state (the snapshot covers it); otherwise queued.
   */
  #send(subscription: UserSubscription, seq: bigint, payloads: Buffer[]): void {
    if (subscription.sentSeq === undefined) {
      const held = subscription.held ?? [];
      held.push({ seq, payloads });
      subscription.held = held;
      if (held.length > userPendingMessagesMax) subscription.subscriber.socket.terminate();
      return;
    }
    if (seq < subscription.sentSeq) return;
    subscription.sentSeq = seq;
    this.#queue(
      subscription,
      payloads.map((payload) => ({ payload, snapshotPart: false })),
    );
  }

  /** Queues messages for a user channel; they go out after the session is checked again. */
  #queue(subscription: UserSubscription, outgoing: Outgoing[]): void {
    if (!subscription.subscriber.open) return;
    subscription.pending.push(...outgoing);
    if (subscription.pending.length > userPendingMessagesMax) {
      subscription.subscriber.socket.terminate();
      return;
    }
    if (!subscription.checking) void this.#drain(subscription);
  }

  async #drain(subscription: UserSubscription): Promise<void> {
    subscription.checking = true;
    try {
      while (subscription.pending.length > 0) {
        const valid = await this.#sessionValid(subscription);
        if (!valid) {
          subscription.pending = [];
          subscription.subscriber.close(closeCodes.upstreamUnavailable, upstreamUnavailableReason);
          return;
        }
        const batch = subscription.pending;
        subscription.pending = [];
        for (const { payload, snapshotPart } of batch) {
          if (snapshotPart) await subscription.subscriber.sendWritten(payload);
          else subscription.subscriber.send(payload);
        }
      }
    } finally {
      subscription.checking = false;
    }
  }

  async #sessionValid(subscription: UserSubscription): Promise<boolean> {
    if (!this.#healthy()) return false;
    try {
      const user = await this.#identity.resolveSession(subscription.sessionToken, subscription.partnerId);
      return user !== undefined && user.userId === subscription.userId;
    } catch (error) {
      this.#logger.warn({ err: error }, "session check failed");
      return false;
    }
  }
}
