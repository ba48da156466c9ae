// The market detail of spec 000 ("Market detail" table), built from the catalogue read model (what
// the operator described) and the engine's live state (status, fees, prices). Pure: the caller
// gathers the inputs (see load-market-detail.ts), so the list and detail routes share one shape.

import { isoSeconds } from "../contract/wire-format.js";
import { orderAmountAtomsMax, orderSharesMax } from "../core/limits.js";
import { formatAtoms } from "../core/money.js";
import { marketBuyAmountAtomsMin } from "../core/order-terms.js";
import type { PoolMarketView } from "../core/pools/queries.js";
import type { MarketView } from "../core/queries.js";
import type { CatalogMarket } from "../store/exchange-read-models.js";
import {
  type CatalogDetails,
  catalogDetailsOf,
  creatorNameOf,
  platformCreator,
} from "../store/market-details.js";

export { creatorNameOf, platformCreator };

export const usdtCoinId = "2";
/** Pictures shown until the operator gives the market its own. */
export const defaultMarketLogoUrl = "https://static.predex.local/markets/default-logo.png";
export const defaultMarketBannerUrl = "https://static.predex.local/markets/default-banner.png";
export const defaultOutcomeLogoUrl = "https://static.predex.local/markets/default-outcome.png";
export const defaultCreatorImageUrl =
  "https://static.predex.local/avatars/default.png"; /** The price shown for an option before its book has any price of its own. */
const initialPriceAtoms = 50_000_000n;

/** Live prices of one option, in its own terms (atoms). */
export interface OptionPrices {
  /** Midpoint when both sides are quoted, else the last trade, else 0.5. */
  readonly price: bigint;
  /** What a buyer pays now: the best ask, else `price`. */
  readonly priceBuy: bigint;
  /** What a seller gets now: the best bid, else `price`. */
  readonly priceSell: bigint;
}

export interface MarketDetailInput {
  readonly catalog: CatalogMarket;
  /** The engine's view of the market; null only if the catalogue is ahead of state, which cannot happen. */
  readonly live: MarketView;
  readonly pricesByOptionId: ReadonlyMap<number, OptionPrices>;
  /** AMM and parimutuel markets: their pools' terms and figures; null or absent for order books. */
  readonly pool?: PoolMarketView | null;
  /** The category's display name (src/catalog/categories.ts); "" when unknown. */
  readonly category?: string;
  /** Decayed recent activity (src/catalog/hot-score.ts); 0 when not given. */
  readonly hotScore?: number;
  /** Detail views so far; 0 when not given. */
  readonly clicks?: number;
}

/** Turns atoms into the JSON number the spec asks for where it says "number". */
function numberOf(atoms: bigint): number {
  return Number(formatAtoms(atoms));
}

export function optionPricesOf(
  best: {
    bestBid: bigint | null;
    bestAsk: bigint | null;
    midPrice: bigint | null;
    lastTradePrice: bigint | null;
  } | null,
): OptionPrices {
  const price = best?.midPrice ?? best?.lastTradePrice ?? initialPriceAtoms;
  return { price, priceBuy: best?.bestAsk ?? price, priceSell: best?.bestBid ?? price };
}

/**
 * Whether the option won: null until the market is settled (and always for a void market, which
 * has no winner), then true for the final winning option of its outcome and false for the other.
 */
function isWinOf(live: MarketView, outcomeId: number, optionId: number): boolean | null {
  const winners = live.status === "settled" ? live.resolution?.finalWinners : null;
  if (winners === null || winners === undefined) return null;
  return winners.some((winner) => winner.outcomeId === outcomeId && winner.optionId === optionId);
}

export function buildMarketDetail(input: MarketDetailInput) {
  const { catalog, live } = input;
  const details: CatalogDetails = catalogDetailsOf(catalog.details);
  const pricesOf = (optionId: number): OptionPrices =>
    input.pricesByOptionId.get(optionId) ?? optionPricesOf(null);
  const pool = input.pool ?? null;
  const amm = pool?.terms.modelType === "AMM" ? pool.terms : null;
  return {
    marketId: String(catalog.marketId),
    coinId: usdtCoinId,
    category: input.category ?? "",
    title: catalog.title,
    description: catalog.description,
    rules: catalog.rules,
    marketType: null,
    marketLogoBackground: null,
    // A parimutuel market's pools, as a decimal string like `volume`; null on the other models.
    totalStake: pool?.terms.modelType === "parimutuel" ? formatAtoms(pool.totalStake) : null,
    hotScore: input.hotScore ?? 0,
    // null until a result is proposed; then whether anyone challenged it.
    ifHasChallenged: live.resolution === null ? null : live.resolution.challenged,
    orderbookMakers: null,
    liveVideoType: null,
    liveSourcePlat: null,
    liveLinkUrl: null,
    matchStartTime: null,
    matchDate: null,
    modelType: live.modelType,
    creatorType: catalog.creatorId === null ? "platform" : "user",
    status: live.status,
    topic: details.topic,
    priOrPub: "public",
    dataResource: details.dataResource,
    poolAddress: "",
    tags: catalog.tags,
    marketLogo: details.marketLogo ?? defaultMarketLogoUrl,
    marketBanner: details.marketBanner ?? defaultMarketBannerUrl,
    isOnline: live.status !== "draft" && live.status !== "void",
    wishlist: false,
    isResolveOvertime: false,
    isWorldCup: false,
    liquidity: pool === null ? 0 : numberOf(pool.liquidity),
    // Fees are basis points, as POST /admin/markets takes them (DESIGN §3, §5).
    buyFee: amm?.buyFeeBps ?? details.buyFeeBps,
    sellFee: amm?.sellFeeBps ?? details.sellFeeBps,
    platformFees: numberOf(live.feeIncome),
    makerFee: live.makerFeeBps,
    takerFee: live.takerFeeBps,
    buyMaxAmount: numberOf(pool?.terms.buyAmountMax ?? orderAmountAtomsMax),
    buyMinAmount: numberOf(pool?.terms.buyAmountMin ?? marketBuyAmountAtomsMin),
    sellMinShares: numberOf(amm?.sellSharesMin ?? live.minOrderSize),
    sellMaxShares: numberOf(amm?.sellSharesMax ?? orderSharesMax),
    challengeBondAmount: numberOf(live.challengeBond),
    marketOrderPriceProtection: numberOf(live.marketOrderPriceProtection),
    limitOrderPriceProtection: numberOf(live.limitOrderPriceProtection),
    commentCount: 0,
    clicks: input.clicks ?? 0,
    volume: formatAtoms(catalog.volume),
    fee: formatAtoms(live.feeIncome),
    startTime: isoSeconds(live.startTimeMs ?? catalog.createdAtMs),
    endTime: isoSeconds(live.endTimeMs ?? catalog.createdAtMs),
    creator:
      catalog.creatorId === null
        ? { ...platformCreator, profileImage: defaultCreatorImageUrl, creatorAddress: null }
        : {
            creatorId: String(catalog.creatorId),
            name: creatorNameOf(catalog.creatorId, details),
            profileImage: details.creatorImage ?? defaultCreatorImageUrl,
            creatorAddress: null,
          },
    outcomes: catalog.outcomes.map((outcome, outcomeIndex) => {
      const described = details.outcomes[outcomeIndex];
      const options = outcome.options.map((option) => {
        const prices = pricesOf(option.optionId);
        return {
          optionId: String(option.optionId),
          title: option.title,
          chance: numberOf(prices.price),
          price: formatAtoms(prices.price),
          priceBuy: numberOf(prices.priceBuy),
          priceSell: numberOf(prices.priceSell),
          // "1" marks the option that wins when the outcome happens (Yes), "0" the other.
          isWinFirst: option.optionIndex === 0 ? "1" : "0",
          isWin: isWinOf(live, outcome.outcomeId, option.optionId),
          optionIndex: option.optionIndex,
        };
      });
      return {
        outcomeId: String(outcome.outcomeId),
        title: described?.title ?? outcome.name,
        name: outcome.name,
        chance: options[0]?.chance ?? numberOf(initialPriceAtoms),
        outcomeLogo: described?.outcomeLogo ?? defaultOutcomeLogoUrl,
        description: described?.description ?? "",
        options,
      };
    }),
  };
}

export type MarketDetail = ReturnType<typeof buildMarketDetail>;
