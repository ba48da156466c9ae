// Gathers what buildMarketDetail needs: the catalogue row from the read models and, in one read of
// the engine's committed state, the market's live figures and every option's prices.

import { bestPrices, marketById, poolMarketView } from "../core/exchange.js";
import type { ExchangeEngine } from "../exchange/exchange-engine.js";
import type { ExchangeReadModels } from "../store/exchange-read-models.js";
import { buildMarketDetail, type MarketDetail, type OptionPrices, optionPricesOf } from "./market-detail.js";

export interface MarketDetailSources {
  readonly engine: ExchangeEngine;
  readonly exchangeReadModels: ExchangeReadModels;
  /** When given, `category` shows the category's name (else ""). */
  readonly categories?: { marketCategoryName(categoryId: string | null): Promise<string> };
  /** When given, `hotScore` and `clicks` are filled in (else 0). */
  readonly catalogue?: { activityOf(marketId: number): Promise<{ hotScore: number; clicks: number }> };
}

export async function loadMarketDetail(
  sources: MarketDetailSources,
  marketId: number,
): Promise<MarketDetail | undefined> {
  const catalog = await sources.exchangeReadModels.market(marketId);
  if (catalog === undefined) return undefined;
  const live = await sources.engine.read((state) => {
    const market = marketById(state, marketId);
    if (market === null) return undefined;
    // AMM and parimutuel markets price from their pools (src/core/pool-queries.ts), not a book.
    const pool = poolMarketView(state, marketId);
    if (pool !== null) return { market, pricesByOptionId: pool.pricesByOptionId, pool };
    const pricesByOptionId = new Map<number, OptionPrices>();
    for (const outcome of market.outcomes) {
      for (const option of outcome.options) {
        const best = bestPrices(state, { marketId, outcomeId: outcome.outcomeId, optionId: option.optionId });
        // A draft market has no book yet (not_ready): its options show the initial price.
        pricesByOptionId.set(option.optionId, optionPricesOf(best.ok ? best.value : null));
      }
    }
    return { market, pricesByOptionId, pool: null };
  });
  if (live === undefined) return undefined;
  const category = (await sources.categories?.marketCategoryName(catalog.categoryId)) ?? "";
  const activity = await sources.catalogue?.activityOf(marketId);
  return buildMarketDetail({
    catalog,
    live: live.market,
    pricesByOptionId: live.pricesByOptionId,
    pool: live.pool,
    category,
    ...activity,
  });
}
