// An outcome's feed: what its channels have yet to publish, coalesced between publish rounds. Level
// changes of the same side and price replace each other (the latest total wins), trades queue,
// and the best prices and option prices are kept as of the latest commit. `takeRound` hands over
// one round, to be rendered per option (feed-renderers.ts), and starts the next.

import type { TradeExecutedEvent } from "../core/exchange.js";
import { priceUnitsPerUnit } from "../core/units.js";
import type { LevelChange } from "./book-tracker.js";

/** What stays the same for an outcome's feed: its ids and its market's terms. */
export interface FeedIdentity {
  readonly marketId: number;
  readonly outcomeId: number;
  /** The `market` of every /ws/market event of this outcome, as GET /book names it. */
  readonly conditionId: string;
  /** Yes first, then No. */
  readonly assetIds: readonly [string, string];
  readonly optionIds: readonly [number, number];
  readonly tickUnits: number;
  readonly takerFeeBps: number;
}

/** The Yes book's best prices in price units (-1 for an empty side) and both options' prices. */
export interface FeedPrices {
  readonly bestBidUnits: number;
  readonly bestAskUnits: number;
  /** Both options' live prices in atoms, Yes first (src/realtime/option-price.ts). */
  readonly priceAtoms: readonly [number, number];
}

/** One publish round of an outcome: what changed since the previous round. */
export interface FeedRound extends FeedPrices {
  /** Level changes of the Yes book, one per side and price; empty when the levels did not change. */
  readonly changes: readonly LevelChange[];
  /** The sequence of the commit the changes are as of, and of the previous round's. */
  readonly seq: bigint;
  readonly prevSeq: bigint;
  readonly trades: readonly TradeExecutedEvent[];
  /** Commit time of the oldest change carried (the public `timestamp`, so latency is never understated). */
  readonly firstMs: number;
  /** Commit time of the latest change carried. */
  readonly lastMs: number;
  /** Whether the best bid or ask differs from the last round that published them. */
  readonly bestChanged: boolean;
  /** Whether an option's price differs from the last round that published them. */
  readonly priceChanged: boolean;
}

/** A touched book as one commit left it. */
export interface BookChange extends FeedPrices {
  readonly changes: readonly LevelChange[];
  readonly sequence: bigint;
  readonly nowMs: number;
}

export class OutcomeFeed {
  readonly identity: FeedIdentity;
  /** Level changes not yet published, by side and price: the latest total wins. */
  readonly #pending = new Map<number, LevelChange>();
  #pendingTrades: TradeExecutedEvent[] = [];
  #firstPendingMs = 0;
  #lastPendingMs = 0;
  #pendingSeq = 0n;
  #publishedSeq: bigint;
  #prices: FeedPrices;
  #publishedBest = "";
  #publishedPriceAtoms: readonly [number, number];

  /** `publishedSeq` is the `prevSeq` of the first round (after a reload, the reload's sequence). */
  constructor(identity: FeedIdentity, prices: FeedPrices, publishedSeq: bigint) {
    this.identity = identity;
    this.#prices = prices;
    this.#publishedPriceAtoms = prices.priceAtoms;
    this.#publishedSeq = publishedSeq;
  }

  tradeExecuted(trade: TradeExecutedEvent): void {
    this.#pendingTrades.push(trade);
  }

  bookChanged(change: BookChange): void {
    const { changes, nowMs } = change;
    if (changes.length > 0) {
      if (this.#pending.size === 0) this.#firstPendingMs = nowMs;
      for (const level of changes)
        this.#pending.set(level.side * priceUnitsPerUnit * 2 + level.priceUnits, level);
      this.#pendingSeq = change.sequence;
    }
    this.#prices = {
      bestBidUnits: change.bestBidUnits,
      bestAskUnits: change.bestAskUnits,
      priceAtoms: change.priceAtoms,
    };
    if (this.#pendingTrades.length > 0 && this.#firstPendingMs === 0) this.#firstPendingMs = nowMs;
    this.#lastPendingMs = nowMs;
  }

  /** What the next publish round carries; from here on, changes go to the round after it. */
  takeRound(): FeedRound {
    const changes = [...this.#pending.values()];
    const firstMs = this.#firstPendingMs || this.#lastPendingMs;
    this.#pending.clear();
    this.#firstPendingMs = 0;
    const trades = this.#pendingTrades;
    this.#pendingTrades = [];
    const prevSeq = this.#publishedSeq;
    if (changes.length > 0) this.#publishedSeq = this.#pendingSeq;
    const prices = this.#prices;
    const best = `${prices.bestBidUnits}/${prices.bestAskUnits}`;
    const bestChanged = best !== this.#publishedBest;
    this.#publishedBest = best;
    const published = this.#publishedPriceAtoms;
    const priceChanged = prices.priceAtoms[0] !== published[0] || prices.priceAtoms[1] !== published[1];
    if (priceChanged) this.#publishedPriceAtoms = prices.priceAtoms;
    return {
      bestBidUnits: prices.bestBidUnits,
      bestAskUnits: prices.bestAskUnits,
      priceAtoms: prices.priceAtoms,
      changes,
      seq: this.#pendingSeq,
      prevSeq,
      trades,
      firstMs,
      lastMs: this.#lastPendingMs,
      bestChanged,
      priceChanged,
    };
  }
}
