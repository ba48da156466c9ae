// Markets, outcomes and options as the core keeps them. Only what trading, settlement and the
// book queries need lives here; the catalogue (descriptions, categories, logos) is a read model.

import type { OrderBook } from "./book/order-book.js";
import type { OptionIndex } from "./option-index.js";

export { noOptionIndex, type OptionIndex, yesOptionIndex } from "./option-index.js";

/** Pricing model (DESIGN §3). Only `orderbook` trades today; the discriminant leaves room for the others. */
export type ModelType = "orderbook" | "AMM" | "parimutuel";
export const modelTypes: readonly ModelType[] = ["orderbook", "AMM", "parimutuel"];

/** Lifecycle (DESIGN §3). resolving, settled and void are reserved for settlement (issue 5). */
export type MarketStatus = "draft" | "open" | "closed" | "resolving" | "settled" | "void";

/** Tick sizes a market may use, in price units (0.1, 0.01, 0.001, 0.0001). */
export const allowedTickUnits: readonly number[] = [1_000, 100, 10, 1];
export const defaultTickUnits = 100;
/** Default minimum order: 0.01 shares = 100 lots (DESIGN leaves it open; recorded in docs/decisions.md). */
export const defaultMinOrderLots = 100;
/** Default protections of DESIGN §8, in price units: 0.1 for MARKET orders, 0.5 for LIMIT orders. */
export const defaultMarketProtectionUnits = 1_000;
export const defaultLimitProtectionUnits = 5_000;

export interface Market {
  readonly marketId: number;
  readonly title: string;
  readonly modelType: ModelType;
  status: MarketStatus;
  readonly tickUnits: number;
  readonly minOrderLots: number;
  readonly makerFeeBps: number;
  readonly takerFeeBps: number;
  readonly marketProtectionUnits: number;
  readonly limitProtectionUnits: number;
  readonly startTimeMs: number | null;
  readonly endTimeMs: number | null;
  readonly creatorId: number | null;
  readonly createdAtMs: number;
  readonly outcomeIds: readonly number[];
  /** Trading fees this market has earned, in atoms. */
  feeIncome: bigint;
}

export interface Outcome {
  readonly outcomeId: number;
  readonly marketId: number;
  readonly name: string;
  /** [Yes, No]: option index 0 is Yes, 1 is No. */
  readonly optionIds: readonly [number, number];
  /** USDT locked behind the outstanding Yes+No pairs: 1 USDT per pair, in atoms. */
  collateral: bigint;
  /** Created when the market opens; a draft market has no book (DESIGN §3, code 4054). */
  book: OrderBook | null;
  /** Yes price of the last trade in price units; 0 when there has been none. */
  lastTradeYesPriceUnits: number;
}

export interface OptionRecord {
  readonly optionId: number;
  readonly outcomeId: number;
  readonly marketId: number;
  readonly optionIndex: OptionIndex;
  readonly title: string;
  /** The "CLOB token id" of /prices-history?market= (DESIGN §3): a long decimal string. */
  readonly assetId: string;
}

/**
 * A long decimal asset id derived from the option id alone, so it is deterministic and unique:
 * 20 digits of a 64-bit mix (leading digit never 0) followed by the option id on 12 digits.
 */
export function assetIdFor(optionId: number): string {
  let high = 0x811c9dc5 ^ optionId;
  let low = 0x9e3779b9 ^ Math.imul(optionId, 0x85ebca6b);
  for (let round = 0; round < 4; round++) {
    high = Math.imul(high ^ (high >>> 15), 0x2c1b3c6d) >>> 0;
    low = Math.imul(low ^ (low >>> 13), 0x297a2d39) >>> 0;
    high = (high ^ low) >>> 0;
  }
  const mixed = (BigInt(high) << 32n) | BigInt(low);
  const twentyDigits = (mixed % (9n * 10n ** 19n)) + 10n ** 19n;
  return `${twentyDigits}${String(optionId).padStart(12, "0")}`;
}

/** True when nowMs lies in [startTimeMs, endTimeMs); a missing bound does not limit. */
export function isWithinTradingWindow(
  market: { readonly startTimeMs: number | null; readonly endTimeMs: number | null },
  nowMs: number,
): boolean {
  return (
    (market.startTimeMs === null || nowMs >= market.startTimeMs) &&
    (market.endTimeMs === null || nowMs < market.endTimeMs)
  );
}
