// The three user channels' feeds: per user, the sockets that follow its balance, positions or
// orders; what to send them at connect and after each change; and the session check that comes
// before every send (spec 000 "Events" rule 2: a dead session closes with 1011).

import type { Logger } from "pino";
import { balanceOf, type ExchangeState, positionsOfUser } from "../core/exchange.js";
import type { ExchangeEngine } from "../exchange/exchange-engine.js";
import type { IdentityService } from "../identity/service.js";
import type { ExchangeReadModels } from "../store/exchange-read-models.js";
import type { ChangedUser } from "./batch-summary.js";
import { closeCodes, type Subscriber, upstreamUnavailableReason } from "./fanout.js";
import { encode, userInfo, userOrder, userPosition } from "./messages.js";

/** Messages a user channel may have waiting for its session check before it counts as stuck. */
export const userPendingMessagesMax = 10_000;
/** Open orders sent when a user channel connects, read 100 at a time. */
const openOrdersPageSize = 100;

export type UserChannel = "info" | "positions" | "orders";

export interface UserSubscription {
  readonly channel: UserChannel;
  readonly subscriber: Subscriber;
  readonly userId: number;
  readonly partnerId: number;
  readonly sessionToken: string;
  /** user-positions only: one market, or all. */
  readonly marketId: number | null;
  pending: Buffer[];
  checking: boolean;
}

export interface UserFeedsOptions {
  readonly engine: ExchangeEngine;
  readonly identity: IdentityService;
  readonly readModels: ExchangeReadModels;
  readonly logger: Logger;
  /** False once the exchange has stopped: every send is then refused with 1011. */
  readonly healthy: () => boolean;
}

export class UserFeeds {
  readonly #engine: ExchangeEngine;
  readonly #identity: IdentityService;
  readonly #readModels: ExchangeReadModels;
  readonly #logger: Logger;
  readonly #healthy: () => boolean;
  readonly #users = new Map<number, Set<UserSubscription>>();

  constructor(options: UserFeedsOptions) {
    this.#engine = options.engine;
    this.#identity = options.identity;
    this.#readModels = options.readModels;
    this.#logger = options.logger;
    this.#healthy = options.healthy;
  }

  /** Registers a user channel and sends its current data (then every change). */
  async add(subscription: UserSubscription): Promise<() => void> {
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
    // Registered first and read second: a change that lands in between is sent twice, never lost;
    // every message carries the whole current state of its entity, so a repeat is harmless.
    const initial = await this.#initialUserMessages(subscription);
    this.#deliver(subscription, initial);
    return unsubscribe;
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

  changed(state: Readonly<ExchangeState>, userId: number, change: ChangedUser, nowMs: number): void {
    const subscriptions = this.#users.get(userId);
    if (subscriptions === undefined) return;
    let balancePayload: Buffer | undefined;
    let positionPayloads: { marketId: number; payload: Buffer }[] | undefined;
    let wantOrders = false;
    for (const subscription of subscriptions) {
      switch (subscription.channel) {
        case "info":
          if (!change.balance) break;
          balancePayload ??= encode(userInfo(userId, balanceOf(state, userId), nowMs));
          this.#deliver(subscription, [balancePayload]);
          break;
        case "positions": {
          positionPayloads ??= positionsOfUser(state, userId)
            .filter((position) => change.marketIds.has(position.marketId))
            .map((position) => ({
              marketId: position.marketId,
              payload: encode(userPosition(position, nowMs)),
            }));
          const wanted = positionPayloads.filter(
            (item) => subscription.marketId === null || item.marketId === subscription.marketId,
          );
          if (wanted.length > 0)
            this.#deliver(
              subscription,
              wanted.map((item) => item.payload),
            );
          break;
        }
        case "orders":
          wantOrders = change.orderIds.size > 0;
          break;
        default: {
          const unreachable: never = subscription.channel;
          throw new Error(`unknown user channel ${String(unreachable)}`);
        }
      }
    }
    if (wantOrders) void this.#sendOrders(userId, [...change.orderIds], nowMs);
  }

  async #sendOrders(userId: number, orderIds: number[], nowMs: number): Promise<void> {
    try {
      const records = await Promise.all(orderIds.map((orderId) => this.#readModels.orderById(orderId)));
      const payloads = records.flatMap((record) =>
        record === undefined ? [] : [encode(userOrder(record, nowMs))],
      );
      for (const subscription of this.#users.get(userId) ?? []) {
        if (subscription.channel === "orders" && payloads.length > 0) this.#deliver(subscription, payloads);
      }
    } catch (error) {
      this.#logger.error({ err: error, userId }, "reading orders for a user channel failed");
      for (const subscription of this.#users.get(userId) ?? []) {
        if (subscription.channel === "orders")
          subscription.subscriber.close(closeCodes.upstreamUnavailable, upstreamUnavailableReason);
      }
    }
  }

  async #initialUserMessages(subscription: UserSubscription): Promise<Buffer[]> {
    const { userId } = subscription;
    switch (subscription.channel) {
      case "info":
        return [
          await this.#engine.read((state, position) =>
            encode(userInfo(userId, balanceOf(state, userId), position.nowMs)),
          ),
        ];
      case "positions":
        return this.#engine.read((state, position) =>
          positionsOfUser(state, userId, subscription.marketId).map((view) =>
            encode(userPosition(view, position.nowMs)),
          ),
        );
      case "orders": {
        const payloads: Buffer[] = [];
        const nowMs = await this.#engine.read((_state, position) => position.nowMs);
        for (let page = 1; ; page += 1) {
          const result = await this.#readModels.orders(
            { userId, openOnly: true },
            { page, pageSize: openOrdersPageSize },
          );
          for (const record of result.records) payloads.push(encode(userOrder(record, nowMs)));
          if (page * openOrdersPageSize >= result.total || result.records.length === 0) break;
        }
        return payloads;
      }
      default: {
        const unreachable: never = subscription.channel;
        throw new Error(`unknown user channel ${String(unreachable)}`);
      }
    }
  }

  /** Queues messages for a user channel; they go out after the session is checked again. */
  #deliver(subscription: UserSubscription, payloads: Buffer[]): void {
    if (!subscription.subscriber.open) return;
    subscription.pending.push(...payloads);
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
        for (const payload of batch) subscription.subscriber.send(payload);
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
