// Pure renderers, one per channel, over one option's view of an outcome's publish round: what the
// round's messages say in that option's terms (option-view.ts holds the mirror rule). They read
// nothing but their arguments and change nothing; the hub decides who gets the messages and when.

import type {
  BestBidAskEvent,
  LastTradePriceEvent,
  MarketPriceMessage,
  PriceChangeEvent,
} from "../contract/channels.js";
import { formatAtoms } from "../core/money.js";
import { lotsToShares, priceUnitsToAtoms } from "../core/units.js";
import { bookHash } from "./book-hash.js";
import type { LevelChange } from "./book-tracker.js";
import {
  bestBidAskEvent,
  type ClobPriceUpdate,
  clobPriceUpdate,
  lastTradePriceEvent,
  marketPrice,
  type PriceChangeEntry,
  type PublicLevel,
  priceChangeEvent,
} from "./messages.js";
import { chanceOf } from "./option-price.js";
import {
  bestInTerms,
  isBidInTerms,
  type OptionIndex,
  priceBigAtomsInTerms,
  priceUnitsInTerms,
  takerBought,
} from "./option-view.js";
import type { FeedIdentity, FeedRound } from "./outcome-feed.js";

/** One option of an outcome looking at one publish round of the outcome's feed. */
export interface OptionRoundView {
  readonly feed: FeedIdentity;
  readonly round: FeedRound;
  readonly optionIndex: OptionIndex;
}

/** The option's book levels, bids high to low and asks low to high ([price units, lots]). */
export interface OptionLevels {
  readonly bids: readonly (readonly [number, number])[];
  readonly asks: readonly (readonly [number, number])[];
}

/** A price in price units as a decimal string; an empty side (-1) is "0", as Polymarket sends it. */
function priceText(units: number): string {
  return units === -1 ? "0" : formatAtoms(priceUnitsToAtoms(units));
}

function levelOf([priceUnits, lots]: readonly [number, number]): PublicLevel {
  return { price: formatAtoms(priceUnitsToAtoms(priceUnits)), size: formatAtoms(lotsToShares(lots)) };
}

/** The option's best bid and ask as the public channel writes them. */
function bestTexts(view: OptionRoundView): [bid: string, ask: string] {
  const [bid, ask] = bestInTerms(view.round.bestBidUnits, view.round.bestAskUnits, view.optionIndex);
  return [priceText(bid), priceText(ask)];
}

// ---------------------------------------------------------------- signed channels

/** /socket/clob-price-update: one message per changed level, in the option's terms. */
export function renderClobPriceUpdates(view: OptionRoundView): ClobPriceUpdate[] {
  const { feed, round, optionIndex } = view;
  return round.changes.map((change) =>
    clobPriceUpdate({
      marketId: feed.marketId,
      outcomeId: feed.outcomeId,
      assetId: feed.assetIds[optionIndex],
      seq: round.seq,
      prevSeq: round.prevSeq,
      change,
      optionIndex,
      timeMs: round.lastMs,
    }),
  );
}

/** /socket/market-price: the option's price, when a round moved an option's price. */
export function renderMarketPrice(view: OptionRoundView): MarketPriceMessage | undefined {
  const { feed, round, optionIndex } = view;
  if (!round.priceChanged) return undefined;
  const priceAtoms = round.priceAtoms[optionIndex];
  return marketPrice({
    marketId: feed.marketId,
    outcomeId: feed.outcomeId,
    optionId: feed.optionIds[optionIndex],
    priceAtoms,
    chance: chanceOf(priceAtoms),
    timeMs: round.lastMs,
  });
}

// ---------------------------------------------------------------- public /ws/market

/**
 * Everything one round has for the option's asset on /ws/market, in the order it goes out:
 * price_change (when levels changed; `levels` is the option's book after them, for the hash), one
 * last_trade_price per trade, best_bid_ask (when the best prices moved).
 */
export function renderPublicMarket(
  view: OptionRoundView,
  levels: OptionLevels,
): (PriceChangeEvent | LastTradePriceEvent | BestBidAskEvent)[] {
  const messages: (PriceChangeEvent | LastTradePriceEvent | BestBidAskEvent)[] = [];
  const { round } = view;
  if (round.changes.length > 0)
    messages.push(priceChangeEvent(view.feed.conditionId, priceChanges(view, levels), round.firstMs));
  for (const trade of round.trades) messages.push(lastTradePrice(view, trade));
  if (round.bestChanged) messages.push(bestBidAsk(view));
  return messages;
}

function priceChanges(view: OptionRoundView, levels: OptionLevels): PriceChangeEntry[] {
  const { feed, round, optionIndex } = view;
  const assetId = feed.assetIds[optionIndex];
  const hash = bookHash(levels.bids.map(levelOf), levels.asks.map(levelOf));
  const [bestBid, bestAsk] = bestTexts(view);
  return round.changes.map((change: LevelChange) => ({
    asset_id: assetId,
    price: priceText(priceUnitsInTerms(change.priceUnits, optionIndex)),
    size: formatAtoms(lotsToShares(change.lots)),
    side: isBidInTerms(change.side, optionIndex) ? "BUY" : "SELL",
    hash,
    best_bid: bestBid,
    best_ask: bestAsk,
  }));
}

function lastTradePrice(view: OptionRoundView, trade: FeedRound["trades"][number]): LastTradePriceEvent {
  const { feed, optionIndex } = view;
  return lastTradePriceEvent({
    assetId: feed.assetIds[optionIndex],
    conditionId: feed.conditionId,
    price: formatAtoms(priceBigAtomsInTerms(trade.yesPrice, optionIndex)),
    side: takerBought(trade, feed.optionIds[optionIndex]) ? "BUY" : "SELL",
    size: formatAtoms(trade.shares),
    feeRateBps: feed.takerFeeBps,
    tradeId: trade.tradeId,
    timeMs: trade.atMs,
  });
}

function bestBidAsk(view: OptionRoundView): BestBidAskEvent {
  const [bid, ask] = bestTexts(view);
  return bestBidAskEvent({
    assetId: view.feed.assetIds[view.optionIndex],
    conditionId: view.feed.conditionId,
    bestBid: bid,
    bestAsk: ask,
    spread:
      bid === "0" || ask === "0" ? "0" : formatAtoms(BigInt(Math.round((Number(ask) - Number(bid)) * 1e8))),
    timeMs: view.round.lastMs,
  });
}
