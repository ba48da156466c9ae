// The state and terms of the two pool models (DESIGN §3): AMM markets (a fixed-product market
// maker per outcome, src/core/amm) and parimutuel markets (a stake pool per outcome,
// src/core/parimutuel). Order-book markets have none of this. Outcomes stay binary in every
// model, as the rest of the core keeps them (Outcome.optionIds is a pair).

import { feeBpsMax, orderAmountAtomsMax, orderSharesMax } from "../limits.js";
import type { ModelType } from "../market.js";
import type { PoolBalances } from "./amm/fpmm.js";

/** The smallest AMM funding per outcome: 100 USDT (legacy 4035 "Liquidity cannot be less than 100"). */
export const ammLiquidityAtomsMin = 10_000_000_000n;
/** The largest: 100,000,000 USDT, so pool products stay small enough to compute quickly. */
export const ammLiquidityAtomsMax = 10_000_000_000_000_000n;
/** A weight is an exact decimal of 8 places; the weights of an outcome's options sum to this. */
export const weightsSumAtoms = 100_000_000n;
/** Smallest and largest MARKET BUY amount (AMM) or stake (parimutuel) unless the market says otherwise. */
export const defaultBuyAmountAtomsMin = 1_000_000n;
export const defaultBuyAmountAtomsMax = orderAmountAtomsMax;
/** Smallest and largest AMM MARKET SELL unless the market says otherwise: 0.01 to 1,000,000 shares. */
export const defaultSellSharesAtomsMin = 1_000_000n;
export const defaultSellSharesAtomsMax = orderSharesMax;

export interface AmmTerms {
  readonly modelType: "AMM";
  /** Atoms the platform puts into each outcome's pool at creation. */
  readonly liquidity: bigint;
  /** Initial prices of the two options, atoms of 1, summing to exactly 1. */
  readonly weights: PoolBalances;
  readonly buyFeeBps: number;
  readonly sellFeeBps: number;
  readonly buyAmountMin: bigint;
  readonly buyAmountMax: bigint;
  readonly sellSharesMin: bigint;
  readonly sellSharesMax: bigint;
}

export interface ParimutuelTerms {
  readonly modelType: "parimutuel";
  /** Taken from each outcome's pool at settlement, to the market's fee income. */
  readonly settlementFeeBps: number;
  /** Bounds of one stake. */
  readonly buyAmountMin: bigint;
  readonly buyAmountMax: bigint;
}

export type PoolTerms = AmmTerms | ParimutuelTerms;

/** What CreateMarket may say about a pool; null or absent fields take the defaults above. */
export interface PoolTermsInput {
  readonly liquidity?: bigint | null;
  readonly weights?: readonly bigint[] | null;
  readonly buyFeeBps?: number | null;
  readonly sellFeeBps?: number | null;
  readonly buyAmountMin?: bigint | null;
  readonly buyAmountMax?: bigint | null;
  readonly sellSharesMin?: bigint | null;
  readonly sellSharesMax?: bigint | null;
  readonly settlementFeeBps?: number | null;
}

export interface AmmPool {
  readonly marketId: number;
  readonly outcomeId: number;
  /** Shares the pool trades with, by option index. */
  balances: PoolBalances;
  /** The funding's complete sets not in the pool, held for the platform. */
  readonly funderShares: PoolBalances;
  /** Atoms the platform put in. */
  readonly funded: bigint;
  /** Atoms the platform took back at settlement or void. */
  returned: bigint;
}

export interface ParimutuelSettlement {
  readonly fee: bigint;
  readonly dust: bigint;
  readonly distributable: bigint;
  /** 0 when nobody staked on the winner: every stake is then returned. */
  readonly winningStake: bigint;
}

export interface ParimutuelPool {
  readonly marketId: number;
  readonly outcomeId: number;
  /** Stakes by option index; their sum is the pool (`totalStake`). */
  stakes: PoolBalances;
  /** Set when the market settles; a void market returns stakes and has none. */
  settlement: ParimutuelSettlement | null;
}

export interface PoolModels {
  /** Terms of every AMM and parimutuel market, by market id. */
  readonly terms: Map<number, PoolTerms>;
  readonly ammPools: Map<number, AmmPool>;
  readonly parimutuelPools: Map<number, ParimutuelPool>;
}

export function createPoolModels(): PoolModels {
  return { terms: new Map(), ammPools: new Map(), parimutuelPools: new Map() };
}

export type TermsDecision = { ok: true; terms: PoolTerms | null } | { ok: false; message: string };

function isBps(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= feeBpsMax;
}

function bounds(
  minimum: bigint | null | undefined,
  maximum: bigint | null | undefined,
  defaults: readonly [bigint, bigint],
  what: string,
): { ok: true; range: readonly [bigint, bigint] } | { ok: false; message: string } {
  const low = minimum ?? defaults[0];
  const high = maximum ?? defaults[1];
  if (typeof low !== "bigint" || typeof high !== "bigint" || low <= 0n || high < low || high > defaults[1])
    return {
      ok: false,
      message: `${what} bounds must be positive, minimum ≤ maximum ≤ ${defaults[1]} atoms`,
    };
  return { ok: true, range: [low, high] };
}

/** The pool terms of a new market with every default filled in, or why they are invalid. */
export function resolvePoolTerms(
  modelType: ModelType,
  input: PoolTermsInput | null | undefined,
): TermsDecision {
  const given = input ?? {};
  if (modelType === "orderbook") {
    return input === null || input === undefined
      ? { ok: true, terms: null }
      : { ok: false, message: "liquidity, weights and pool fees are only for AMM and parimutuel markets" };
  }
  const buy = bounds(
    given.buyAmountMin,
    given.buyAmountMax,
    [defaultBuyAmountAtomsMin, defaultBuyAmountAtomsMax],
    "buy amount",
  );
  if (!buy.ok) return buy;
  if (modelType === "parimutuel") {
    const settlementFeeBps = given.settlementFeeBps ?? 0;
    if (!isBps(settlementFeeBps))
      return { ok: false, message: `fees must be 0 to ${feeBpsMax} basis points` };
    return {
      ok: true,
      terms: { modelType, settlementFeeBps, buyAmountMin: buy.range[0], buyAmountMax: buy.range[1] },
    };
  }
  const liquidity = given.liquidity ?? ammLiquidityAtomsMin;
  if (typeof liquidity !== "bigint" || liquidity < ammLiquidityAtomsMin)
    return { ok: false, message: "Liquidity cannot be less than 100" };
  if (liquidity > ammLiquidityAtomsMax)
    return { ok: false, message: "Liquidity cannot be more than 100000000" };
  const weights = given.weights ?? [weightsSumAtoms / 2n, weightsSumAtoms / 2n];
  // One weight per option; each a price strictly between 0 and 1; together exactly 1.
  if (
    !Array.isArray(weights) ||
    weights.length !== 2 ||
    !weights.every((weight) => typeof weight === "bigint" && weight > 0n) ||
    weights[0] + weights[1] !== weightsSumAtoms
  ) {
    return { ok: false, message: "The weights must add up to 1" };
  }
  const buyFeeBps = given.buyFeeBps ?? 0;
  const sellFeeBps = given.sellFeeBps ?? 0;
  if (!isBps(buyFeeBps) || !isBps(sellFeeBps))
    return { ok: false, message: `fees must be 0 to ${feeBpsMax} basis points` };
  const sell = bounds(
    given.sellSharesMin,
    given.sellSharesMax,
    [defaultSellSharesAtomsMin, defaultSellSharesAtomsMax],
    "sell shares",
  );
  if (!sell.ok) return sell;
  return {
    ok: true,
    terms: {
      modelType,
      liquidity,
      weights: [weights[0]!, weights[1]!],
      buyFeeBps,
      sellFeeBps,
      buyAmountMin: buy.range[0],
      buyAmountMax: buy.range[1],
      sellSharesMin: sell.range[0],
      sellSharesMax: sell.range[1],
    },
  };
}
