// The realtime hub: one listener on the engine's commits turns each committed batch into what the
// channels publish. Book changes are read from the committed books (BookTracker), coalesced per
// outcome for at most publishIntervalMs, and serialized once per message for all subscribers of
// a topic. What a batch changed comes from batch-summary.ts; the user channels' part is in
// user-feeds.ts.
//
// Work only for what someone receives (issue #31): a batch's per-user part is built only for users
// with a live user channel. Every touched book is still re-read and its feed kept, watched or not:
// a subscriber's seed and the deltas after it then always agree, and a book's share of the fan-out
// is small (docs/decisions.md, "The realtime fan-out works only for what someone receives").

import type { Logger } from "pino";
import { bookSnapshot, type ExchangeState, type MarketSettledEvent } from "../core/exchange.js";
import type { Outcome } from "../core/market.js";
import { formatAtoms } from "../core/money.js";
import { priceUnitsToAtoms } from "../core/units.js";
import type { ExchangeEngine } from "../exchange/exchange-engine.js";
import type { IdentityService } from "../identity/service.js";
import type { ExchangeReadModels } from "../store/exchange-read-models.js";
import { summarizeBatch } from "./batch-summary.js";
import { bookHash } from "./book-hash.js";
import { BookTracker, trackedLevels } from "./book-tracker.js";
import { conditionIdOf } from "./condition-ids.js";
import {
  broadcast,
  closeCodes,
  newSocketStats,
  type Subscriber,
  stateReloadedReason,
  Topics,
  upstreamUnavailableReason,
} from "./fanout.js";
import {
  type OptionLevels,
  renderClobPriceUpdates,
  renderMarketPrice,
  renderPublicMarket,
} from "./feed-renderers.js";
import type { RealtimeLimits } from "./limits.js";
import { bookEvent, encode, marketResolvedEvent, newMarketEvent, type PublicLevel } from "./messages.js";
import { optionPricesAtoms } from "./option-price.js";
import { priceUnitsInTerms } from "./option-view.js";
import { type FeedIdentity, type FeedPrices, OutcomeFeed } from "./outcome-feed.js";
import { type UserChannel, UserFeeds, type UserSubscription } from "./user-feeds.js";

export interface RealtimeHubOptions {
  readonly engine: ExchangeEngine;
  readonly identity: IdentityService;
  readonly readModels: ExchangeReadModels;
  readonly limits: RealtimeLimits;
  readonly logger: Logger;
}

/**
 * What the fan-out did with the committed batches, counted: the guards that skip the work nobody
 * would receive are checked against these (tests), and an operator can read them. Plain numbers, as
 * SocketStats: bumping one costs nothing on the commit path.
 */
export interface FanoutWork {
  /** Committed batches absorbed. */
  batches: number;
  /** Per-user parts of a batch built (a followed user changed by the batch). */
  userParts: number;
  /** Touched books re-read for their feeds. */
  bookReads: number;
}

export class RealtimeHub {
  readonly limits: RealtimeLimits;
  readonly work: FanoutWork = { batches: 0, userParts: 0, bookReads: 0 };
  /** Counters of the signed host's channels and of the public /ws/market, for the metrics. */
  readonly socketStats = { gateway: newSocketStats(), public: newSocketStats() } as const;
  readonly #engine: ExchangeEngine;
  readonly #logger: Logger;
  #tracker = new BookTracker();
  readonly #feeds = new Map<number, OutcomeFeed>();
  readonly #dirty = new Set<OutcomeFeed>();
  /** clobKey(outcomeId, optionIndex) → signed clob-price-update sockets. */
  readonly #clob = new Topics<number>();
  readonly #marketPrice = new Topics<number>();
  readonly #assets = new Topics<string>();
  readonly #publicSockets = new Set<Subscriber>();
  readonly #userFeeds: UserFeeds;
  /** Only the users someone follows get a part of a batch's summary (made once, not per batch). */
  readonly #followsUser = (userId: number): boolean => this.#userFeeds.follows(userId);
  readonly #unknownEvent = (type: string): void => {
    this.#logger.warn({ type }, "realtime ignores an unknown event");
  };
  readonly #sockets = new Set<Subscriber>();
  readonly #alive = new WeakSet<Subscriber>();
  readonly #unsubscribeEngine: () => void;
  readonly #unsubscribeReloads: () => void;
  readonly #timers: NodeJS.Timeout[] = [];
  #flushTimer: NodeJS.Timeout | undefined;
  #lastFlushMs = 0;
  #closed = false;

  private constructor(options: RealtimeHubOptions) {
    this.limits = options.limits;
    this.#engine = options.engine;
    this.#logger = options.logger;
    this.#userFeeds = new UserFeeds({
      engine: options.engine,
      identity: options.identity,
      readModels: options.readModels,
      logger: options.logger,
      healthy: () => this.upstreamHealthy,
    });
    this.#unsubscribeEngine = this.#engine.onCommitted((entries) => {
      // Inside a commit listener no batch is in flight, so the reader runs now, on this state.
      void this.#engine
        .read((state) => this.#absorb(state, entries))
        .catch((error: unknown) => this.#logger.error({ err: error }, "realtime could not absorb a commit"));
    });
    this.#unsubscribeReloads = this.#engine.onReloaded?.(() => this.#reseed()) ?? (() => {});
    this.#timers.push(
      setInterval(() => this.#checkSessions(), this.limits.sessionCheckIntervalMs).unref(),
      setInterval(() => this.#heartbeat(), this.limits.heartbeatIntervalMs).unref(),
    );
  }

  static async start(options: RealtimeHubOptions): Promise<RealtimeHub> {
    const hub = new RealtimeHub(options);
    // Books that exist already (after a restart) are read once, so only later changes are published.
    await options.engine.read((state) => hub.#seed(state));
    return hub;
  }

  /**
   * Reads every live book. `sinceSeq` (after a reload: the sequence of the state read) becomes each
   * book's `prevSeq` for its first publish, so a client whose book was seeded from the state before
   * the reload (an older `seq`) sees a gap and re-seeds.
   */
  #seed(state: Readonly<ExchangeState>, sinceSeq = 0n): void {
    for (const outcome of state.outcomes.values()) {
      if (outcome.book !== null) {
        this.#tracker.refresh(outcome.outcomeId, outcome.book);
        this.#feeds.set(outcome.outcomeId, newFeed(state, outcome.outcomeId, sinceSeq));
      }
    }
  }

  /**
   * The engine's state was replaced by a reloaded one (an API node's replica that fell behind the
   * journal archive): the batches in between never came, so every subscriber's view may be stale.
   * Every socket is closed with 1012 (clients reconnect and re-seed from snapshots: no subscriber
   * sees a jump in `seq`; a user channel's client gets a fresh snapshot), unpublished changes of
   * the old state are dropped (the user channels' order reads too), and the books are
   * read again from the new state, as at start, with the reload's sequence as their `prevSeq`.
   */
  #reseed(): void {
    if (this.#closed) return;
    for (const subscriber of this.#sockets) subscriber.close(closeCodes.serviceRestart, stateReloadedReason);
    this.#userFeeds.reset();
    if (this.#flushTimer !== undefined) clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    this.#dirty.clear();
    this.#feeds.clear();
    this.#tracker = new BookTracker();
    void this.#engine
      .read((state, position) => this.#seed(state, position.sequence))
      .catch((error: unknown) => this.#logger.error({ err: error }, "realtime could not re-seed its books"));
  }

  get engine(): ExchangeEngine {
    return this.#engine;
  }

  /** Whether the exchange behind the channels is serving; otherwise sockets close with 1011. */
  get upstreamHealthy(): boolean {
    return !this.#closed && this.#engine.phase !== "failed";
  }

  // ------------------------------------------------------------ registration

  /** Tracks a socket for heartbeats, shutdown and upstream failure; calls `onGone` once it closes. */
  track(subscriber: Subscriber, onGone: () => void): void {
    this.#sockets.add(subscriber);
    this.#alive.add(subscriber);
    subscriber.socket.on("pong", () => this.#alive.add(subscriber));
    subscriber.socket.once("close", () => {
      subscriber.stats.closed += 1;
      this.#sockets.delete(subscriber);
      onGone();
    });
  }

  addClobSubscriber(subscriber: Subscriber, outcomeId: number, optionIndex: 0 | 1): () => void {
    const key = clobKey(outcomeId, optionIndex);
    this.#clob.add(key, subscriber);
    return () => this.#clob.remove(key, subscriber);
  }

  addMarketPriceSubscriber(subscriber: Subscriber, marketId: number): () => void {
    this.#marketPrice.add(marketId, subscriber);
    return () => this.#marketPrice.remove(marketId, subscriber);
  }

  addPublicSocket(subscriber: Subscriber): () => void {
    this.#publicSockets.add(subscriber);
    return () => this.#publicSockets.delete(subscriber);
  }

  subscribeAsset(subscriber: Subscriber, assetId: string): void {
    this.#assets.add(assetId, subscriber);
  }

  unsubscribeAsset(subscriber: Subscriber, assetId: string): void {
    this.#assets.remove(assetId, subscriber);
  }

  /** Sends an asset's current book (the Polymarket `book` event) to one socket; false if unknown. */
  async sendBook(subscriber: Subscriber, assetId: string): Promise<boolean> {
    const payload = await this.#engine.read((state, position) => {
      const option = findOption(state, assetId);
      if (option === undefined) return undefined;
      const snapshot = bookSnapshot(state, option);
      if (!snapshot.ok) return undefined;
      const outcome = state.outcomes.get(option.outcomeId)!;
      const market = state.markets.get(option.marketId)!;
      const format = (level: { price: bigint; size: bigint }): PublicLevel => ({
        price: formatAtoms(level.price),
        size: formatAtoms(level.size),
      });
      const bids = snapshot.value.bids.map(format);
      const asks = snapshot.value.asks.map(format);
      const last = outcome.lastTradeYesPriceUnits;
      const lastUnits = last === 0 ? 0 : priceUnitsInTerms(last, option.optionIndex);
      return encode(
        bookEvent({
          assetId,
          conditionId: conditionIdOf(market.marketId, outcome.outcomeId),
          bids,
          asks,
          hash: bookHash(bids, asks),
          tickSize: formatAtoms(snapshot.value.tickSize),
          lastTradePrice: formatAtoms(priceUnitsToAtoms(lastUnits)),
          timeMs: Math.max(position.nowMs, 0),
        }),
      );
    });
    if (payload === undefined) return false;
    subscriber.send(payload);
    return true;
  }

  /** Registers a user channel and sends its snapshot (then every change). */
  addUserSubscription(subscription: UserSubscription): Promise<() => void> {
    return this.#userFeeds.add(subscription);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribeEngine();
    this.#unsubscribeReloads();
    for (const timer of this.#timers) clearInterval(timer);
    if (this.#flushTimer !== undefined) clearTimeout(this.#flushTimer);
    for (const subscriber of this.#sockets) subscriber.close(closeCodes.goingAway, "server shutting down");
  }

  /** Closes every socket with 1011 (the exchange stopped); also used by tests. */
  closeAllUpstreamUnavailable(): void {
    for (const subscriber of this.#sockets)
      subscriber.close(closeCodes.upstreamUnavailable, upstreamUnavailableReason);
  }

  // ------------------------------------------------------------ commits

  #absorb(
    state: Readonly<ExchangeState>,
    entries: Parameters<Parameters<ExchangeEngine["onCommitted"]>[0]>[0],
  ): void {
    const last = entries[entries.length - 1];
    if (last === undefined) return;
    const { touched, trades, opened, settled, users } = summarizeBatch(
      state,
      entries,
      this.#unknownEvent,
      this.#followsUser,
    );
    this.work.batches += 1;
    this.work.userParts += users.size;
    for (const marketId of opened) this.#marketOpened(state, marketId, last.nowMs);
    for (const event of settled) this.#marketSettled(state, event);
    for (const trade of trades) this.#feedFor(state, trade.outcomeId)?.tradeExecuted(trade);
    for (const outcomeId of touched) this.#bookTouched(state, outcomeId, last.sequence, last.nowMs);
    if (trades.length > 0) for (const trade of trades) this.#markDirty(this.#feedFor(state, trade.outcomeId));
    for (const [userId, change] of users)
      this.#userFeeds.changed(state, userId, change, last.sequence, last.nowMs);
  }

  #feedFor(state: Readonly<ExchangeState>, outcomeId: number): OutcomeFeed | undefined {
    let feed = this.#feeds.get(outcomeId);
    if (feed === undefined && state.outcomes.get(outcomeId)?.book != null) {
      this.#tracker.refresh(outcomeId, state.outcomes.get(outcomeId)!.book);
      feed = newFeed(state, outcomeId, 0n);
      this.#feeds.set(outcomeId, feed);
    }
    return feed;
  }

  #marketOpened(state: Readonly<ExchangeState>, marketId: number, nowMs: number): void {
    const market = state.markets.get(marketId);
    if (market === undefined) return;
    for (const outcomeId of market.outcomeIds) {
      const feed = this.#feedFor(state, outcomeId);
      if (feed === undefined) continue;
      const outcome = state.outcomes.get(outcomeId)!;
      const titles = outcome.optionIds.map((id) => state.options.get(id)!.title) as [string, string];
      const payload = encode(
        newMarketEvent(
          {
            outcomeId,
            conditionId: feed.identity.conditionId,
            question: market.outcomeIds.length === 1 ? market.title : `${market.title}: ${outcome.name}`,
            assetIds: feed.identity.assetIds,
            optionTitles: titles,
          },
          { tickSize: formatAtoms(priceUnitsToAtoms(market.tickUnits)), timeMs: nowMs },
        ),
      );
      broadcast(this.#publicSockets, payload);
      // Sockets that subscribed to these assets while the market was a draft get its (empty) book now.
      for (const assetId of feed.identity.assetIds) {
        if (this.#assets.has(assetId)) {
          this.#assets.publish(assetId, () =>
            encode(
              bookEvent({
                assetId,
                conditionId: feed.identity.conditionId,
                bids: [],
                asks: [],
                hash: bookHash([], []),
                tickSize: formatAtoms(priceUnitsToAtoms(market.tickUnits)),
                lastTradePrice: "0",
                timeMs: nowMs,
              }),
            ),
          );
        }
      }
    }
  }

  /** Polymarket's market_resolved, one per binary outcome, to every public socket (like new_market). */
  #marketSettled(state: Readonly<ExchangeState>, event: MarketSettledEvent): void {
    const market = state.markets.get(event.marketId);
    if (market === undefined || this.#publicSockets.size === 0) return;
    for (const winner of event.winners) {
      const outcome = state.outcomes.get(winner.outcomeId);
      if (outcome === undefined) continue;
      const options = outcome.optionIds.map((id) => state.options.get(id)!);
      const winningIndex = outcome.optionIds[0] === winner.optionId ? 0 : 1;
      const payload = encode(
        marketResolvedEvent(
          {
            outcomeId: outcome.outcomeId,
            conditionId: conditionIdOf(market.marketId, outcome.outcomeId),
            question: market.outcomeIds.length === 1 ? market.title : `${market.title}: ${outcome.name}`,
            assetIds: [options[0]!.assetId, options[1]!.assetId],
            optionTitles: [options[0]!.title, options[1]!.title],
          },
          winningIndex,
          event.atMs,
        ),
      );
      broadcast(this.#publicSockets, payload);
    }
  }

  #bookTouched(state: Readonly<ExchangeState>, outcomeId: number, sequence: bigint, nowMs: number): void {
    const feed = this.#feedFor(state, outcomeId);
    const outcome = state.outcomes.get(outcomeId);
    if (feed === undefined || outcome === undefined) return;
    this.work.bookReads += 1;
    const prices = feedPrices(state, outcome);
    // Field by field: a literal with a spread is built through V8's slow generic copy.
    feed.bookChanged({
      changes: this.#tracker.refresh(outcomeId, outcome.book),
      sequence,
      nowMs,
      bestBidUnits: prices.bestBidUnits,
      bestAskUnits: prices.bestAskUnits,
      priceAtoms: prices.priceAtoms,
    });
    this.#markDirty(feed);
  }

  #markDirty(feed: OutcomeFeed | undefined): void {
    if (feed === undefined) return;
    this.#dirty.add(feed);
    if (this.#flushTimer !== undefined || this.#closed) return;
    // A quiet book publishes right away; a busy one at most once per publishIntervalMs.
    const waitMs = Math.max(0, this.#lastFlushMs + this.limits.publishIntervalMs - performance.now());
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      this.#lastFlushMs = performance.now();
      this.#flush();
    }, waitMs);
  }

  #flush(): void {
    const feeds = [...this.#dirty];
    this.#dirty.clear();
    for (const feed of feeds) {
      try {
        this.#publishFeed(feed);
      } catch (error) {
        this.#logger.error(
          { err: error, outcomeId: feed.identity.outcomeId },
          "publishing a book change failed",
        );
      }
    }
  }

  /** Sends one round of a feed to each channel's subscribers: each option's view, rendered once. */
  #publishFeed(feed: OutcomeFeed): void {
    const round = feed.takeRound();
    const { identity } = feed;
    const views = optionIndexes.map((optionIndex) => ({ feed: identity, round, optionIndex }));
    for (const view of views) {
      this.#clob.publishRendered(clobKey(identity.outcomeId, view.optionIndex), () =>
        renderClobPriceUpdates(view).map(encode),
      );
    }
    // Everything one round has for an asset goes out in one write per subscriber.
    for (const view of views) {
      this.#assets.publishRendered(identity.assetIds[view.optionIndex], () => {
        const levels =
          round.changes.length === 0
            ? noLevels
            : trackedLevels(this.#tracker, identity.outcomeId, view.optionIndex);
        return renderPublicMarket(view, levels).map(encode);
      });
    }
    if (round.priceChanged) {
      this.#marketPrice.publishRendered(identity.marketId, () =>
        views.map((view) => encode(renderMarketPrice(view)!)),
      );
    }
  }

  #checkSessions(): void {
    if (!this.upstreamHealthy) {
      this.closeAllUpstreamUnavailable();
      return;
    }
    this.#userFeeds.checkSessions();
  }

  #heartbeat(): void {
    for (const subscriber of this.#sockets) {
      if (!this.#alive.has(subscriber)) {
        subscriber.socket.terminate();
        continue;
      }
      this.#alive.delete(subscriber);
      if (subscriber.open) subscriber.socket.ping();
    }
  }
}

const optionIndexes = [0, 1] as const;

/** The key of an option's /socket/clob-price-update topic (a number: no string built per lookup). */
function clobKey(outcomeId: number, optionIndex: 0 | 1): number {
  return outcomeId * 2 + optionIndex;
}
const noLevels: OptionLevels = { bids: [], asks: [] };

/** The Yes book's best prices and both options' prices, as a commit left the outcome. */
function feedPrices(state: Readonly<ExchangeState>, outcome: Outcome): FeedPrices {
  return {
    bestBidUnits: outcome.book?.bestPrice(0) ?? -1,
    bestAskUnits: outcome.book?.bestPrice(1) ?? -1,
    priceAtoms: optionPricesAtoms(state, outcome),
  };
}

/** A feed for a live book; `publishedSeq` becomes the `prevSeq` of its first round. */
function newFeed(state: Readonly<ExchangeState>, outcomeId: number, publishedSeq: bigint): OutcomeFeed {
  const outcome = state.outcomes.get(outcomeId)!;
  const market = state.markets.get(outcome.marketId)!;
  const [yesId, noId] = outcome.optionIds;
  const identity: FeedIdentity = {
    marketId: market.marketId,
    outcomeId,
    conditionId: conditionIdOf(market.marketId, outcomeId),
    assetIds: [state.options.get(yesId)!.assetId, state.options.get(noId)!.assetId],
    optionIds: [yesId, noId],
    tickUnits: market.tickUnits,
    takerFeeBps: market.takerFeeBps,
  };
  return new OutcomeFeed(identity, feedPrices(state, outcome), publishedSeq);
}

function findOption(state: Readonly<ExchangeState>, assetId: string) {
  const optionId = Number(assetId.slice(-12));
  const option = Number.isSafeInteger(optionId) ? state.options.get(optionId) : undefined;
  return option !== undefined && option.assetId === assetId ? option : undefined;
}

export type { UserChannel, UserSubscription };
