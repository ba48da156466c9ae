// The market record of spec 000's list ("Market record in the list"), taken from the market detail
// so that both always agree (status, prices, volume, hotScore). Exactly the list's fields: the
// response schema drops anything else too, but the record is built with none to drop.

import type { MarketDetail } from "./market-detail.js";

export function listRecordOf(detail: MarketDetail) {
  return {
    marketId: detail.marketId,
    title: detail.title,
    category: detail.category,
    status: detail.status,
    coinId: detail.coinId,
    marketType: detail.marketType,
    volume: detail.volume,
    hotScore: detail.hotScore,
    isOnline: detail.isOnline,
    marketLogo: detail.marketLogo,
    startTime: detail.startTime,
    endTime: detail.endTime,
    matchDate: detail.matchDate,
    matchStartTime: detail.matchStartTime,
    modelType: detail.modelType,
    outcomes: detail.outcomes.map((outcome) => ({
      outcomeId: outcome.outcomeId,
      name: outcome.name,
      options: outcome.options.map((option) => ({
        optionId: option.optionId,
        title: option.title,
        price: option.price,
        chance: option.chance,
        optionIndex: option.optionIndex,
      })),
    })),
  };
}

export type MarketListRecord = ReturnType<typeof listRecordOf>;
