// The catalogue as the earlier interface shows it (spec 001 steps 2–4; its records are "not
// shown", so they are ours: docs/decisions.md "Legacy interface (spec 001)"). Built from the current
// interface's market detail (src/catalog/market-detail.ts), so both interfaces always agree on
// status, prices and volume; only the shape differs: numeric ids, prices and volume as numbers.

import type { CategoryNode } from "../catalog/category-tree.js";
import type { MarketDetail } from "../catalog/market-detail.js";
import type { MarketHolders } from "../catalog/market-holders.js";

/** Every category a market may be filed under: the visible tree, depth first (a parent before its children). */
export function legacyCategories(forest: readonly CategoryNode[]): { id: number; name: string }[] {
  const flat: { id: number; name: string }[] = [];
  const visit = (node: CategoryNode) => {
    flat.push({ id: Number(node.id), name: node.nameDisplay });
    for (const child of node.children) visit(child);
  };
  for (const root of forest) visit(root);
  return flat;
}

const numeric = (id: string): number => Number(id);

/** The market record of the legacy list. */
export function legacyMarketRecord(detail: MarketDetail, categoryId: string | null) {
  return {
    marketId: numeric(detail.marketId),
    title: detail.title,
    categoryId: categoryId === null ? null : numeric(categoryId),
    category: detail.category,
    status: detail.status,
    modelType: detail.modelType,
    coinId: numeric(detail.coinId),
    volume: Number(detail.volume),
    hotScore: detail.hotScore,
    isOnline: detail.isOnline,
    marketLogo: detail.marketLogo,
    creatorId: numeric(detail.creator.creatorId),
    startTime: detail.startTime,
    endTime: detail.endTime,
    outcomes: detail.outcomes.map((outcome) => ({
      outcomeId: numeric(outcome.outcomeId),
      name: outcome.name,
      chance: outcome.chance,
      options: outcome.options.map((option) => ({
        optionId: numeric(option.optionId),
        title: option.title,
        optionIndex: option.optionIndex,
        price: Number(option.price),
        chance: option.chance,
      })),
    })),
  };
}

/** The market details of `GET /api/market/openapi/{marketId}/outcome`. */
export function legacyMarketDetail(detail: MarketDetail, categoryId: string | null) {
  const record = legacyMarketRecord(detail, categoryId);
  return {
    ...record,
    description: detail.description,
    rules: detail.rules,
    tags: detail.tags,
    creatorName: detail.creator.name,
    clicks: detail.clicks,
    makerFee: detail.makerFee,
    takerFee: detail.takerFee,
    buyFee: detail.buyFee,
    sellFee: detail.sellFee,
    buyMinAmount: detail.buyMinAmount,
    buyMaxAmount: detail.buyMaxAmount,
    sellMinShares: detail.sellMinShares,
    sellMaxShares: detail.sellMaxShares,
    challengeBondAmount: detail.challengeBondAmount,
    ifHasChallenged: detail.ifHasChallenged,
    outcomes: detail.outcomes.map((outcome) => ({
      outcomeId: numeric(outcome.outcomeId),
      name: outcome.name,
      title: outcome.title,
      description: outcome.description,
      chance: outcome.chance,
      options: outcome.options.map((option) => ({
        optionId: numeric(option.optionId),
        title: option.title,
        optionIndex: option.optionIndex,
        price: Number(option.price),
        priceBuy: option.priceBuy,
        priceSell: option.priceSell,
        chance: option.chance,
        isWin: option.isWin,
      })),
    })),
  };
}

/** Top holders by option, as the current interface's holders with numeric ids. */
export function legacyTopHolders(holders: MarketHolders) {
  return holders.map((outcome) => ({
    outcomeId: numeric(outcome.outcomeId),
    outcomeName: outcome.outcomeName,
    options: outcome.outcomeOptionHolderVoList.map((option) => ({
      optionId: numeric(option.optionId),
      optionTitle: option.optionTitle,
      optionIndex: option.optionIndex,
      price: option.price,
      holders: option.holderVoList.map((holder) => ({
        userId: numeric(holder.userId),
        userName: holder.userName,
        avatarUrl: holder.avatarUrl,
        shares: holder.share,
      })),
    })),
  }));
}
