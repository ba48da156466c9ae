// Polymarket's OrderBookSummary of one token, built from the same snapshot as the signed host's
// GET /orderbook/book. Its `hash` is /ws/market's: bookHash over the levels best first, as the REST
// snapshot and the book event list them. Polymarket itself lists bids low → high and asks high →
// low (the best of each side last; docs.polymarket.com "Prices & Order Books"), so the arrays are
// sent in that order; the hash does not depend on how they are sent (docs/decisions.md).

import type { BookSnapshot } from "../../../core/exchange.js";
import { formatAtoms } from "../../../core/money.js";
import { bookHash } from "../../../realtime/book-hash.js";
import { conditionIdOf } from "../../../realtime/condition-ids.js";
import type { PublicLevel } from "../../../realtime/messages.js";
import type { Token } from "./token-quotes.js";

export interface OrderBookSummary {
  readonly market: string;
  readonly asset_id: string;
  readonly timestamp: string;
  readonly hash: string;
  readonly bids: PublicLevel[];
  readonly asks: PublicLevel[];
  readonly min_order_size: string;
  readonly tick_size: string;
  readonly neg_risk: boolean;
  readonly last_trade_price: string;
}

const level = (entry: { price: bigint; size: bigint }): PublicLevel => ({
  price: formatAtoms(entry.price),
  size: formatAtoms(entry.size),
});

export function orderBookSummary(
  token: Token,
  book: BookSnapshot,
  lastTradePrice: string,
  timeMs: number,
): OrderBookSummary {
  const bidsBestFirst = book.bids.map(level);
  const asksBestFirst = book.asks.map(level);
  return {
    market: conditionIdOf(token.market.marketId, token.outcome.outcomeId),
    asset_id: book.assetId,
    timestamp: String(timeMs),
    hash: bookHash(bidsBestFirst, asksBestFirst),
    bids: bidsBestFirst.reverse(),
    asks: asksBestFirst.reverse(),
    min_order_size: formatAtoms(book.minOrderSize),
    tick_size: formatAtoms(book.tickSize),
    neg_risk: false,
    last_trade_price: lastTradePrice,
  };
}
