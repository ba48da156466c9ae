// An outcome feed's coalescing (outcome-feed.ts) and the pure renderers over an option's view of a
// publish round (feed-renderers.ts): the No option sees the mirror image of the Yes book.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TradeExecutedEvent } from "../../src/core/events.js";
import {
  type OptionRoundView,
  renderClobPriceUpdates,
  renderMarketPrice,
  renderPublicMarket,
} from "../../src/realtime/feed-renderers.js";
import { type FeedIdentity, OutcomeFeed } from "../../src/realtime/outcome-feed.js";

const identity: FeedIdentity = {
  marketId: 7,
  outcomeId: 3,
  conditionId: "0xcondition",
  assetIds: ["yes-asset", "no-asset"],
  optionIds: [5, 6],
  tickUnits: 100,
  takerFeeBps: 10,
};
const half = 50_000_000;

/** A trade whose taker bought Yes at 0.41 for 2 shares. */
const trade = {
  type: "TradeExecuted",
  tradeId: 9,
  yesPrice: 41_000_000n,
  shares: 200_000_000n,
  atMs: 1_500,
  takerOptionId: 5,
  takerSide: "BUY",
} as TradeExecutedEvent;

function feedWithOneRound(): OutcomeFeed {
  const feed = new OutcomeFeed(
    identity,
    { bestBidUnits: -1, bestAskUnits: -1, priceAtoms: [half, half] },
    4n,
  );
  feed.tradeExecuted(trade);
  feed.bookChanged({
    changes: [{ side: 0, priceUnits: 4_000, lots: 10_000 }],
    sequence: 5n,
    nowMs: 1_000,
    bestBidUnits: 4_000,
    bestAskUnits: -1,
    priceAtoms: [half, half],
  });
  // A later commit replaces the level's total and adds an ask: the latest total wins.
  feed.bookChanged({
    changes: [
      { side: 0, priceUnits: 4_000, lots: 30_000 },
      { side: 1, priceUnits: 4_500, lots: 20_000 },
    ],
    sequence: 6n,
    nowMs: 2_000,
    bestBidUnits: 4_000,
    bestAskUnits: 4_500,
    priceAtoms: [42_500_000, 57_500_000],
  });
  return feed;
}

describe("OutcomeFeed", () => {
  it("coalesces a round: one change per level, the oldest commit time first, seq after the previous round's", () => {
    const round = feedWithOneRound().takeRound();
    assert.deepEqual(round.changes, [
      { side: 0, priceUnits: 4_000, lots: 30_000 },
      { side: 1, priceUnits: 4_500, lots: 20_000 },
    ]);
    assert.deepEqual([round.prevSeq, round.seq, round.firstMs, round.lastMs], [4n, 6n, 1_000, 2_000]);
    assert.deepEqual(round.trades, [trade]);
    assert.equal(round.bestChanged, true);
    assert.equal(round.priceChanged, true);
  });

  it("starts the next round empty, chained to the last seq, with nothing moved", () => {
    const feed = feedWithOneRound();
    feed.takeRound();
    feed.bookChanged({
      changes: [],
      sequence: 7n,
      nowMs: 3_000,
      bestBidUnits: 4_000,
      bestAskUnits: 4_500,
      priceAtoms: [42_500_000, 57_500_000],
    });
    const round = feed.takeRound();
    assert.deepEqual(round.changes, []);
    assert.deepEqual(round.trades, []);
    assert.equal(round.prevSeq, 6n);
    assert.equal(round.bestChanged, false);
    assert.equal(round.priceChanged, false);
  });
});

describe("feed renderers", () => {
  const round = feedWithOneRound().takeRound();
  const yes: OptionRoundView = { feed: identity, round, optionIndex: 0 };
  const no: OptionRoundView = { feed: identity, round, optionIndex: 1 };

  it("renders the signed price updates in each option's terms, No mirrored", () => {
    const sides = (view: OptionRoundView) =>
      renderClobPriceUpdates(view).map((update) => [update.assetId, update.side, update.price, update.size]);
    assert.deepEqual(sides(yes), [
      ["yes-asset", "BUY", "0.4", "3"],
      ["yes-asset", "SELL", "0.45", "2"],
    ]);
    assert.deepEqual(sides(no), [
      ["no-asset", "SELL", "0.6", "3"],
      ["no-asset", "BUY", "0.55", "2"],
    ]);
    assert.deepEqual(
      renderClobPriceUpdates(no).map((update) => [update.seq, update.prevSeq]),
      [
        [6, 4],
        [6, 4],
      ],
    );
  });

  it("renders /ws/market's price_change, last_trade_price and best_bid_ask in order, No mirrored", () => {
    const levels = { bids: [[4_000, 30_000] as const], asks: [[4_500, 20_000] as const] };
    const noLevels = { bids: [[5_500, 20_000] as const], asks: [[6_000, 30_000] as const] };
    const yesMessages = renderPublicMarket(yes, levels);
    const noMessages = renderPublicMarket(no, noLevels);
    assert.deepEqual(
      yesMessages.map((message) => message.event_type),
      ["price_change", "last_trade_price", "best_bid_ask"],
    );
    const [, yesTrade, yesBest] = yesMessages as [unknown, Record<string, string>, Record<string, string>];
    const [, noTrade, noBest] = noMessages as [unknown, Record<string, string>, Record<string, string>];
    assert.deepEqual(
      [yesTrade.price, yesTrade.side, noTrade.price, noTrade.side],
      ["0.41", "BUY", "0.59", "SELL"],
    );
    assert.deepEqual([yesBest.best_bid, yesBest.best_ask, yesBest.spread], ["0.4", "0.45", "0.05"]);
    assert.deepEqual([noBest.best_bid, noBest.best_ask, noBest.spread], ["0.55", "0.6", "0.05"]);
  });

  it("renders each option's own price on /socket/market-price only when a price moved", () => {
    assert.deepEqual([renderMarketPrice(yes)?.price, renderMarketPrice(no)?.price], ["0.425", "0.575"]);
    const quiet = { ...round, priceChanged: false };
    assert.equal(renderMarketPrice({ feed: identity, round: quiet, optionIndex: 0 }), undefined);
  });
});
