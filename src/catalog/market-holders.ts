// The holders of spec 000 ("Holders"): outcome, then option, then its top holders by shares, from
// the positions read model. Pure: the catalogue gathers the rows and the users' public profiles.

import { formatAtoms } from "../core/money.js";
import type { CatalogMarket } from "../store/exchange-read-models.js";
import type { HolderRow } from "../store/market-catalog.js";
import type { MarketDetail } from "./market-detail.js";

export interface HolderProfile {
  readonly userName: string;
  readonly avatarUrl: string;
}

export interface MarketHoldersInput {
  readonly detail: MarketDetail;
  readonly catalog: CatalogMarket;
  /** By option, largest first (MarketCatalogStore.topHolders). */
  readonly holders: readonly HolderRow[];
  readonly profiles: ReadonlyMap<number, HolderProfile>;
  /** Shown for a user whose profile cannot be found (it always can; this keeps the type total). */
  readonly defaultAvatarUrl: string;
}

export function buildMarketHolders(input: MarketHoldersInput) {
  const holdersByOption = new Map<number, HolderRow[]>();
  for (const row of input.holders) {
    const rows = holdersByOption.get(row.optionId);
    if (rows === undefined) holdersByOption.set(row.optionId, [row]);
    else rows.push(row);
  }
  const assetIdOf = new Map<number, string>();
  for (const outcome of input.catalog.outcomes)
    for (const option of outcome.options) assetIdOf.set(option.optionId, option.assetId);

  return input.detail.outcomes.map((outcome) => ({
    outcomeId: outcome.outcomeId,
    outcomeName: outcome.name,
    outcomeTitle: outcome.title,
    outcomeLogo: outcome.outcomeLogo,
    outcomeOptionHolderVoList: outcome.options.map((option) => {
      const optionId = Number(option.optionId);
      return {
        outcomeId: outcome.outcomeId,
        optionId: option.optionId,
        optionTitle: option.title,
        assetId: assetIdOf.get(optionId) ?? "",
        yes: option.optionIndex === 0,
        optionIndex: option.optionIndex,
        price: option.chance,
        priceBuy: option.priceBuy,
        priceSell: option.priceSell,
        holderVoList: (holdersByOption.get(optionId) ?? []).map((row) => {
          const profile = input.profiles.get(row.userId);
          return {
            userId: String(row.userId),
            userName: profile?.userName ?? `user${row.userId}`,
            avatarUrl: profile?.avatarUrl ?? input.defaultAvatarUrl,
            userAvatarFrameUrl: null,
            share: Number(formatAtoms(row.shares)),
          };
        }),
      };
    }),
  }));
}

export type MarketHolders = ReturnType<typeof buildMarketHolders>;
