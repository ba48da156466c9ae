// Exclusive (negative-risk) markets, DESIGN §10: several outcomes, each its own Yes/No book, of which
// exactly one resolves Yes. A No share of one outcome is then worth exactly a Yes share of every
// other outcome, and ConvertPositions (convert.ts) turns one into the other.
//
// The accounting, which invariants.ts checks after every command. A conversion of `s` No shares of
// k listed outcomes (of n) takes those No shares out of the user's hands and mints `s` Yes+No pairs
// in each of the n − k other outcomes: their Yes go to the user, their No join the retired ones.
// So the market holds `retiredNoShares` (B) No shares of *every* outcome that nobody owns, and per
// outcome the Yes outstanding still equals the No outstanding counting them (Yes = No + B). The
// new pairs' collateral, s × (n − k), and the USDT paid to the user, s × (k − 1), add up to
// s × (n − 1): exactly what B retired No shares of every outcome pay whichever outcome wins (all but
// the winner's). The core pays it ahead, as the `conversionAdvance`, and takes it back from the
// losing outcomes' collateral when the market finishes (settlement.ts). Until then money is
// conserved with the advance counted: deposits − withdrawals = balances + collateral + fees − advance.

import type { ExchangeState } from "../state.js";

export type { ExclusiveMarket } from "./exclusive-state.js";

export function isExclusiveMarket(state: Readonly<ExchangeState>, marketId: number): boolean {
  return state.exclusiveMarkets.has(marketId);
}

/** The retired No shares of every outcome of the market: 0 when it is not exclusive. */
export function retiredNoSharesOf(state: Readonly<ExchangeState>, marketId: number): bigint {
  return state.exclusiveMarkets.get(marketId)?.retiredNoShares ?? 0n;
}

/** What conversions have paid ahead across every exclusive market, atoms (money conservation). */
export function conversionAdvanceTotal(state: Readonly<ExchangeState>): bigint {
  let total = 0n;
  for (const exclusive of state.exclusiveMarkets.values()) total += exclusive.conversionAdvance;
  return total;
}

/** Checks CreateMarket's `exclusive`: only an order-book market of two outcomes or more may be one. */
export function exclusiveFlagProblem(
  exclusive: unknown,
  modelType: string,
  outcomeCount: number,
): string | undefined {
  if (exclusive !== undefined && exclusive !== null && typeof exclusive !== "boolean")
    return "exclusive must be true or false";
  if (exclusive === true && (modelType !== "orderbook" || outcomeCount < 2))
    return "an exclusive market is an orderbook market with at least two outcomes";
  return undefined;
}

/** MarketCreated of an exclusive market: it starts with nothing converted. */
export function applyExclusiveMarketCreated(
  state: ExchangeState,
  event: { readonly marketId: number; readonly exclusive?: boolean },
): void {
  if (event.exclusive !== true) return;
  state.exclusiveMarkets.set(event.marketId, {
    marketId: event.marketId,
    retiredNoShares: 0n,
    conversionAdvance: 0n,
  });
}
