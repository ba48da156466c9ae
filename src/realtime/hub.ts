// The realtime hub: one listener on the engine's commits turns each committed batch into what the
// channels publish. Book changes are read from the committed books (BookTracker), coalesced per
// outcome for at most publishIntervalMs, and serialized once per message for all subscribers of
// a topic. What a batch changed comes from batch-summary.ts; the user channels' part is in
// user-feeds.ts.

import type { Logger } from "pino";
import {
  bookSnapshot,
  type ExchangeState,
  type MarketSettledEvent,
  type TradeExecutedEvent,
} from "../core/exchange.js";
import { formatAtoms } from "../core/money.js";
import { priceUnitsPerUnit, priceUnitsToAtoms } from "../core/units.js";
import type { ExchangeEngine } from "../exchange/exchange-engine.js";
import type { IdentityService } from "../identity/service.js";
import type { ExchangeReadModels } from "../store/exchange-read-models.js";
import { summarizeBatch } from "./batch-summary.js";
import { bookHash } from "./book-hash.js";
import { BookTracker, type LevelChange, trackedLevels } from "./book-tracker.js";
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
import type { RealtimeLimits } from "./limits.js";
import {
  bestBidAskEvent,
  bookEvent,
  clobPriceUpdate,
  encode,
  lastTradePriceEvent,
  marketPrice,
  marketResolvedEvent,
  newMarketEvent,
  type PriceChangeEntry,
  type PublicLevel,
  priceChangeEvent,
} from "./messages.js";
import { chanceOf, optionPricesAtoms } from "./option-price.js";
import { type UserChannel, UserFeeds, type UserSubscription } from "./user-feeds.js";

interface OutcomeFeed {
  readonly marketId: number;
  readonly outcomeId: number;
  /** The `market` of every /ws/market event of this outcome, as GET /book names it. */
  readonly conditionId: string;
  readonly assetIds: readonly [string, string];
  readonly optionIds: readonly [number, number];
  readonly tickUnits: number;
  readonly takerFeeBps: number;
  /** Level changes not yet published, by side and price: the latest total wins. */
  readonly pending: Map<number, LevelChange>;
  pendingTrades: TradeExecutedEvent[];
  /** Commit time of the oldest unpublished change (the public `timestamp`, so latency is never understated). */
  firstPendingMs: number;
  lastPendingMs: number;
  pendingSeq: bigint;
  publishedSeq: bigint;
  bestBidUnits: number;
  bestAskUnits: number;
  publishedBest: string;
  /** Both options' live prices in atoms, Yes first (src/realtime/option-price.ts). */
  priceAtoms: readonly [number, number];
  publishedPriceAtoms: readonly [number, number];
}

export interface RealtimeHubOptions {
  readonly engine: ExchangeEngine;
  readonly identity: IdentityService;
  readonly readModels: ExchangeReadModels;
  readonly limits: RealtimeLimits;
  readonly logger: Logger;
}

export class RealtimeHub {
  readonly limits: RealtimeLimits;
  /** Counters of the signed host's channels and of the public /ws/market, for the metrics. */
  readonly socketStats = { gateway: newSocketStats(), public: newSocketStats() } as const;
  readonly #engine: ExchangeEngine;
  readonly #logger: Logger;
  #tracker = new BookTracker();
  readonly #feeds = new Map<number, OutcomeFeed>();
  readonly #dirty = new Set<OutcomeFeed>();
  /** `${outcomeId}:${optionIndex}` → signed clob-price-update sockets. */
  readonly #clob = new Topics<string>();
  readonly #marketPrice = new Topics<number>();
  readonly #assets = new Topics<string>();
  readonly #publicSockets = new Set<Subscriber>();
  readonly #userFeeds: UserFeeds;
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
        const feed = this.#newFeed(state, outcome.outcomeId);
        feed.publishedSeq = sinceSeq;
        this.#feeds.set(outcome.outcomeId, feed);
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
    const key = `${outcomeId}:${optionIndex}`;
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
      const lastUnits = last === 0 ? 0 : option.optionIndex === 0 ? last : priceUnitsPerUnit - last;
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
    const { touched, trades, opened, settled, users } = summarizeBatch(state, entries, (type) =>
      this.#logger.warn({ type }, "realtime ignores an unknown event"),
    );
    for (const marketId of opened) this.#marketOpened(state, marketId, last.nowMs);
    for (const event of settled) this.#marketSettled(state, event);
    for (const trade of trades) this.#feedFor(state, trade.outcomeId)?.pendingTrades.push(trade);
    for (const outcomeId of touched) this.#bookTouched(state, outcomeId, last.sequence, last.nowMs);
    if (trades.length > 0) for (const trade of trades) this.#markDirty(this.#feedFor(state, trade.outcomeId));
    for (const [userId, change] of users)
      this.#userFeeds.changed(state, userId, change, last.sequence, last.nowMs);
  }

  #newFeed(state: Readonly<ExchangeState>, outcomeId: number): OutcomeFeed {
    const outcome = state.outcomes.get(outcomeId)!;
    const market = state.markets.get(outcome.marketId)!;
    const [yesId, noId] = outcome.optionIds;
    const price = optionPricesAtoms(state, outcome);
    const book = outcome.book;
    return {
      marketId: market.marketId,
      outcomeId,
      conditionId: conditionIdOf(market.marketId, outcomeId),
      assetIds: [state.options.get(yesId)!.assetId, state.options.get(noId)!.assetId],
      optionIds: [yesId, noId],
      tickUnits: market.tickUnits,
      takerFeeBps: market.takerFeeBps,
      pending: new Map(),
      pendingTrades: [],
      firstPendingMs: 0,
      lastPendingMs: 0,
      pendingSeq: 0n,
      publishedSeq: 0n,
      bestBidUnits: book?.bestPrice(0) ?? -1,
      bestAskUnits: book?.bestPrice(1) ?? -1,
      publishedBest: "",
      priceAtoms: price,
      publishedPriceAtoms: price,
    };
  }

  #feedFor(state: Readonly<ExchangeState>, outcomeId: number): OutcomeFeed | undefined {
    let feed = this.#feeds.get(outcomeId);
    if (feed === undefined && state.outcomes.get(outcomeId)?.book != null) {
      this.#tracker.refresh(outcomeId, state.outcomes.get(outcomeId)!.book);
      feed = this.#newFeed(state, outcomeId);
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
            conditionId: feed.conditionId,
            question: market.outcomeIds.length === 1 ? market.title : `${market.title}: ${outcome.name}`,
            assetIds: feed.assetIds,
            optionTitles: titles,
          },
          { tickSize: formatAtoms(priceUnitsToAtoms(market.tickUnits)), timeMs: nowMs },
        ),
      );
      broadcast(this.#publicSockets, payload);
      // Sockets that subscribed to these assets while the market was a draft get its (empty) book now.
      for (const assetId of feed.assetIds) {
        if (this.#assets.has(assetId)) {
          this.#assets.publish(assetId, () =>
            encode(
              bookEvent({
                assetId,
                conditionId: feed.conditionId,
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
    const changes = this.#tracker.refresh(outcomeId, outcome.book);
    if (changes.length > 0) {
      if (feed.pending.size === 0) feed.firstPendingMs = nowMs;
      for (const change of changes)
        feed.pending.set(change.side * priceUnitsPerUnit * 2 + change.priceUnits, change);
      feed.pendingSeq = sequence;
      feed.lastPendingMs = nowMs;
    }
    feed.bestBidUnits = outcome.book?.bestPrice(0) ?? -1;
    feed.bestAskUnits = outcome.book?.bestPrice(1) ?? -1;
    feed.priceAtoms = optionPricesAtoms(state, outcome);
    if (feed.pendingTrades.length > 0 && feed.firstPendingMs === 0) feed.firstPendingMs = nowMs;
    feed.lastPendingMs = nowMs;
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
        this.#logger.error({ err: error, outcomeId: feed.outcomeId }, "publishing a book change failed");
      }
    }
  }

  #publishFeed(feed: OutcomeFeed): void {
    const changes = [...feed.pending.values()];
    const firstMs = feed.firstPendingMs || feed.lastPendingMs;
    const lastMs = feed.lastPendingMs;
    feed.pending.clear();
    feed.firstPendingMs = 0;
    const trades = feed.pendingTrades;
    feed.pendingTrades = [];
    // Everything one publish round has for an asset goes out in one write per subscriber.
    const assetBuilds: [(() => Buffer)[], (() => Buffer)[]] = [[], []];

    if (changes.length > 0) {
      const seq = feed.pendingSeq;
      const prevSeq = feed.publishedSeq;
      feed.publishedSeq = seq;
      for (const optionIndex of [0, 1] as const) {
        const assetId = feed.assetIds[optionIndex];
        this.#clob.publishMany(
          `${feed.outcomeId}:${optionIndex}`,
          changes.map(
            (change) => () =>
              encode(
                clobPriceUpdate({
                  marketId: feed.marketId,
                  outcomeId: feed.outcomeId,
                  assetId,
                  seq,
                  prevSeq,
                  change,
                  optionIndex,
                  timeMs: lastMs,
                }),
              ),
          ),
        );
        assetBuilds[optionIndex].push(() =>
          encode(priceChangeEvent(feed.conditionId, this.#priceChanges(feed, changes, optionIndex), firstMs)),
        );
      }
    }

    for (const trade of trades) {
      for (const optionIndex of [0, 1] as const) {
        const assetId = feed.assetIds[optionIndex];
        assetBuilds[optionIndex].push(() => {
          const takerBoughtThis =
            (trade.takerSide === "BUY") === (trade.takerOptionId === feed.optionIds[optionIndex]);
          const yesAtoms = trade.yesPrice;
          const price = optionIndex === 0 ? yesAtoms : priceUnitsToAtoms(priceUnitsPerUnit) - yesAtoms;
          return encode(
            lastTradePriceEvent({
              assetId,
              conditionId: feed.conditionId,
              price: formatAtoms(price),
              side: takerBoughtThis ? "BUY" : "SELL",
              size: formatAtoms(trade.shares),
              feeRateBps: feed.takerFeeBps,
              tradeId: trade.tradeId,
              timeMs: trade.atMs,
            }),
          );
        });
      }
    }

    const best = `${feed.bestBidUnits}/${feed.bestAskUnits}`;
    if (best !== feed.publishedBest) {
      feed.publishedBest = best;
      for (const optionIndex of [0, 1] as const) {
        const assetId = feed.assetIds[optionIndex];
        assetBuilds[optionIndex].push(() => {
          const [bid, ask] = this.#bestInTerms(feed, optionIndex);
          return encode(
            bestBidAskEvent({
              assetId,
              conditionId: feed.conditionId,
              bestBid: bid,
              bestAsk: ask,
              spread:
                bid === "0" || ask === "0"
                  ? "0"
                  : formatAtoms(BigInt(Math.round((Number(ask) - Number(bid)) * 1e8))),
              timeMs: lastMs,
            }),
          );
        });
      }
    }

    this.#assets.publishMany(feed.assetIds[0], assetBuilds[0]);
    this.#assets.publishMany(feed.assetIds[1], assetBuilds[1]);

    if (
      feed.priceAtoms[0] !== feed.publishedPriceAtoms[0] ||
      feed.priceAtoms[1] !== feed.publishedPriceAtoms[1]
    ) {
      feed.publishedPriceAtoms = feed.priceAtoms;
      this.#marketPrice.publishMany(
        feed.marketId,
        ([0, 1] as const).map((optionIndex) => () => {
          const priceAtoms = feed.priceAtoms[optionIndex];
          return encode(
            marketPrice({
              marketId: feed.marketId,
              outcomeId: feed.outcomeId,
              optionId: feed.optionIds[optionIndex],
              priceAtoms,
              chance: chanceOf(priceAtoms),
              timeMs: lastMs,
            }),
          );
        }),
      );
    }
  }

  /** Best bid and ask in an option's terms as decimal strings ("0" when a side is empty, as Polymarket does). */
  #bestInTerms(feed: OutcomeFeed, optionIndex: 0 | 1): [string, string] {
    const text = (units: number) => (units === -1 ? "0" : formatAtoms(priceUnitsToAtoms(units)));
    if (optionIndex === 0) return [text(feed.bestBidUnits), text(feed.bestAskUnits)];
    const mirror = (units: number) => (units === -1 ? -1 : priceUnitsPerUnit - units);
    return [text(mirror(feed.bestAskUnits)), text(mirror(feed.bestBidUnits))];
  }

  #priceChanges(feed: OutcomeFeed, changes: readonly LevelChange[], optionIndex: 0 | 1): PriceChangeEntry[] {
    const assetId = feed.assetIds[optionIndex];
    const levels = trackedLevels(this.#tracker, feed.outcomeId, optionIndex);
    const format = ([priceUnits, lots]: [number, number]): PublicLevel => ({
      price: formatAtoms(priceUnitsToAtoms(priceUnits)),
      size: formatAtoms(BigInt(lots) * 10_000n),
    });
    const hash = bookHash(levels.bids.map(format), levels.asks.map(format));
    const [bestBid, bestAsk] = this.#bestInTerms(feed, optionIndex);
    return changes.map((change) => {
      const mirrored = optionIndex === 1;
      const isBid = (change.side === 0) !== mirrored;
      const units = mirrored ? priceUnitsPerUnit - change.priceUnits : change.priceUnits;
      return {
        asset_id: assetId,
        price: formatAtoms(priceUnitsToAtoms(units)),
        size: formatAtoms(BigInt(change.lots) * 10_000n),
        side: isBid ? "BUY" : "SELL",
        hash,
        best_bid: bestBid,
        best_ask: bestAsk,
      };
    });
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

function findOption(state: Readonly<ExchangeState>, assetId: string) {
  const optionId = Number(assetId.slice(-12));
  const option = Number.isSafeInteger(optionId) ? state.options.get(optionId) : undefined;
  return option !== undefined && option.assetId === assetId ? option : undefined;
}

export type { UserChannel, UserSubscription };
