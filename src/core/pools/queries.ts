// Read-only views of the pool models for the catalogue (market list and detail): an AMM's terms
// and marginal prices, a parimutuel market's stakes and chances. Atoms throughout.

import type { ExchangeState } from "../state.js";
import { marginalBuyPrice, marginalPrice, marginalSellPrice } from "./amm/fpmm.js";
import type { PoolTerms } from "./models.js";
import { chanceOf } from "./parimutuel/parimutuel-payout.js";

export interface PoolOptionPrices {
  /** AMM: marginal price; parimutuel: the option's share of its pool. Also its `chance`. */
  readonly price: bigint;
  /** AMM: what the next share costs with the buy fee; parimutuel: `price`. */
  readonly priceBuy: bigint;
  /** AMM: what the next share sold pays after the sell fee; parimutuel: `price`. */
  readonly priceSell: bigint;
}

export interface PoolMarketView {
  readonly terms: PoolTerms;
  /** AMM: the platform's funding of all outcomes; parimutuel: 0. */
  readonly liquidity: bigint;
  /** Parimutuel: every stake in every outcome's pool; AMM: 0. */
  readonly totalStake: bigint;
  readonly pricesByOptionId: ReadonlyMap<number, PoolOptionPrices>;
}

/** The pool view of an AMM or parimutuel market; null for an order-book or unknown market. */
export function poolMarketView(state: ExchangeState, marketId: number): PoolMarketView | null {
  const terms = state.pools.terms.get(marketId);
  const market = state.markets.get(marketId);
  if (terms === undefined || market === undefined) return null;
  const pricesByOptionId = new Map<number, PoolOptionPrices>();
  let liquidity = 0n;
  let totalStake = 0n;
  for (const outcomeId of market.outcomeIds) {
    const optionIds = state.outcomes.get(outcomeId)!.optionIds;
    for (const index of [0, 1] as const) {
      let prices: PoolOptionPrices;
      if (terms.modelType === "AMM") {
        const pool = state.pools.ammPools.get(outcomeId)!;
        prices = {
          price: marginalPrice(pool.balances, index),
          priceBuy: marginalBuyPrice(pool.balances, index, terms.buyFeeBps),
          priceSell: marginalSellPrice(pool.balances, index, terms.sellFeeBps),
        };
      } else {
        const chance = chanceOf(state.pools.parimutuelPools.get(outcomeId)!.stakes, index);
        prices = { price: chance, priceBuy: chance, priceSell: chance };
      }
      pricesByOptionId.set(optionIds[index], prices);
    }
    if (terms.modelType === "AMM") liquidity += state.pools.ammPools.get(outcomeId)!.funded;
    else {
      const stakes = state.pools.parimutuelPools.get(outcomeId)!.stakes;
      totalStake += stakes[0] + stakes[1];
    }
  }
  return { terms, liquidity, totalStake, pricesByOptionId };
}

/**
 * The live price of one option of a pool outcome, to the atom, as the market detail shows it
 * (AMM: the marginal price; parimutuel: the option's share of the stakes); null for an outcome
 * that trades on a book. The live channels and /orderbook/price use it so that every route names
 * a pool's price with the same digits.
 */
export function poolOptionPrice(state: ExchangeState, outcomeId: number, optionIndex: 0 | 1): bigint | null {
  const amm = state.pools.ammPools.get(outcomeId);
  if (amm !== undefined) return marginalPrice(amm.balances, optionIndex);
  const parimutuel = state.pools.parimutuelPools.get(outcomeId);
  if (parimutuel !== undefined) return chanceOf(parimutuel.stakes, optionIndex);
  return null;
}
