// What the Polymarket-compatible reads know about one token (a predex option, named by its asset
// id), computed from the engine's committed state in one read. Prices are in the option's own
// terms, exactly as the signed host's GET /orderbook/book and /orderbook/price give them: the Yes
// book as kept, the No option's book mirrored (bids ↔ asks at 1 − p). AMM and parimutuel markets
// have no book; their bid and ask come from the pool (docs/decisions.md).

import {
  type BookSnapshot,
  bestPrices,
  bookSnapshot,
  type ExchangeState,
  optionByAssetId,
  poolMarketView,
} from "../../../core/exchange.js";
import type { Market, OptionRecord, Outcome } from "../../../core/market.js";
import { formatAtoms } from "../../../core/money.js";
import { poolOptionPrice } from "../../../core/pools/queries.js";
import { priceUnitsPerUnit, priceUnitsToAtoms } from "../../../core/units.js";
import { noOrderbook, type PolymarketFailure, poolHasNoBook } from "./errors.js";

export interface Token {
  readonly market: Market;
  readonly outcome: Outcome;
  readonly option: OptionRecord;
}

/** Best bid and ask of a token, their midpoint and spread; null where a side is empty. Atoms. */
export interface TokenQuote {
  readonly bid: bigint | null;
  readonly ask: bigint | null;
  readonly mid: bigint | null;
  readonly spread: bigint | null;
}

export type TokenRead<T> = { ok: true; value: T } | { ok: false; failure: PolymarketFailure };

/**
 * The token an asset id names, once its market is published. A draft market's options have asset
 * ids already, but Polymarket lists no market before it trades, so a draft's tokens are unknown here.
 */
export function publishedToken(state: Readonly<ExchangeState>, assetId: string): Token | null {
  const option = optionByAssetId(state as ExchangeState, assetId);
  if (option === null) return null;
  const market = state.markets.get(option.marketId);
  const outcome = state.outcomes.get(option.outcomeId);
  if (market === undefined || outcome === undefined || market.status === "draft") return null;
  return { market, outcome, option };
}

function address(token: Token) {
  return {
    marketId: token.market.marketId,
    outcomeId: token.outcome.outcomeId,
    optionId: token.option.optionId,
  };
}

/** The aggregated book of an order-book token, as GET /orderbook/book lists it (bids and asks best first). */
export function tokenBook(
  state: Readonly<ExchangeState>,
  assetId: string,
): TokenRead<{ token: Token; book: BookSnapshot }> {
  const token = publishedToken(state, assetId);
  if (token === null) return { ok: false, failure: noOrderbook };
  if (token.market.modelType !== "orderbook")
    return { ok: false, failure: poolHasNoBook(token.market.modelType) };
  const snapshot = bookSnapshot(state as ExchangeState, address(token));
  if (!snapshot.ok) return { ok: false, failure: noOrderbook };
  return { ok: true, value: { token, book: snapshot.value } };
}

/**
 * Bid, ask, midpoint and spread of any published token. An order book gives GET /orderbook/price's
 * numbers. An AMM pool's bid is what it pays for a share sold (after the sell fee), its ask what the
 * next share costs (with the buy fee), its midpoint the marginal price. A parimutuel pool has one
 * price, the option's share of the pool, on both sides.
 */
export function tokenQuote(state: Readonly<ExchangeState>, assetId: string): TokenRead<TokenQuote> {
  const token = publishedToken(state, assetId);
  if (token === null) return { ok: false, failure: noOrderbook };
  if (token.market.modelType === "orderbook") {
    const best = bestPrices(state as ExchangeState, address(token));
    if (!best.ok) return { ok: false, failure: noOrderbook };
    const { bestBid, bestAsk, midPrice, spread } = best.value;
    return { ok: true, value: { bid: bestBid, ask: bestAsk, mid: midPrice, spread } };
  }
  const prices = poolMarketView(state as ExchangeState, token.market.marketId)?.pricesByOptionId.get(
    token.option.optionId,
  );
  if (prices === undefined) return { ok: false, failure: poolHasNoBook(token.market.modelType) };
  return {
    ok: true,
    value: {
      bid: prices.priceSell,
      ask: prices.priceBuy,
      mid: prices.price,
      spread: prices.priceBuy - prices.priceSell,
    },
  };
}

/**
 * The price of the outcome's last trade in the token's terms (any model), or null before the first:
 * GET /orderbook/price's lastTradePrice, by the same rule (a pool's current price to the atom, a
 * book's last trade on its tick), so both routes give the same digits.
 */
export function lastTradePriceOf(state: Readonly<ExchangeState>, token: Token): bigint | null {
  const yesUnits = token.outcome.lastTradeYesPriceUnits;
  if (yesUnits === 0) return null;
  const optionIndex = token.option.optionIndex;
  return (
    poolOptionPrice(state, token.outcome.outcomeId, optionIndex) ??
    priceUnitsToAtoms(optionIndex === 0 ? yesUnits : priceUnitsPerUnit - yesUnits)
  );
}

/** Polymarket's answer before the first trade: "0.5" (its docs, GET /last-trade-price). */
export const noTradePriceText = "0.5";

export function lastTradePriceText(state: Readonly<ExchangeState>, token: Token): string {
  const price = lastTradePriceOf(state, token);
  return price === null ? noTradePriceText : formatAtoms(price);
}
