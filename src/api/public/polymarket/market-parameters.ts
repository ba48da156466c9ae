// The per-market parameters Polymarket serves per token (/tick-size, /neg-risk, /fee-rate), which
// clob-client reads before it builds an order. Unknown and draft tokens are "market not found".

import type { ExchangeState } from "../../../core/exchange.js";
import { formatAtoms } from "../../../core/money.js";
import { priceUnitsToAtoms } from "../../../core/units.js";
import type { PlatformDeps } from "../../deps.js";
import { marketNotFound, type PolymarketFailure } from "./errors.js";
import { publishedToken, type Token } from "./token-quotes.js";

/** Reads one value of a published token's market, or the failure to send. */
export function readMarketParameter<T>(
  deps: PlatformDeps,
  assetId: string,
  read: (token: Token, state: Readonly<ExchangeState>) => T,
): Promise<T | PolymarketFailure> {
  return deps.engine.read((state) => {
    const token = publishedToken(state, assetId);
    return token === null ? marketNotFound : read(token, state);
  });
}

/** The tick as a JSON number ("0.01" → 0.01), as Polymarket's minimum_tick_size is. */
export function tickSizeOf(token: Token): number {
  return Number(formatAtoms(priceUnitsToAtoms(token.market.tickUnits)));
}

/**
 * What a taker pays, in basis points: the taker fee on a book, the buy fee of an AMM pool, and the
 * settlement fee of a parimutuel pool (its only fee, taken from the pool at settlement).
 */
export function baseFeeBpsOf(token: Token, state: Readonly<ExchangeState>): number {
  if (token.market.modelType === "orderbook") return token.market.takerFeeBps;
  const terms = state.pools.terms.get(token.market.marketId);
  if (terms === undefined) return 0;
  return terms.modelType === "AMM" ? terms.buyFeeBps : terms.settlementFeeBps;
}
