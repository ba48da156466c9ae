// How each option of a binary outcome sees the outcome's one book. The core keeps a single book
// per outcome in Yes prices (DESIGN §3). Option 0 (Yes) sees it as kept; option 1 (No) sees its
// mirror image: a Yes price p is a No price 1 − p, and a Yes bid is a No ask (whoever buys Yes at p
// sells No at 1 − p). Every realtime message that speaks in an option's terms asks this file, so
// the rule is written once.

import { askSide, type BookSide, bidSide } from "../core/book/orders.js";
import type { OptionIndex } from "../core/option-index.js";
import { atomsPerPriceUnit, priceUnitsPerUnit } from "../core/units.js";

export type { OptionIndex };

const oneAtoms = priceUnitsPerUnit * Number(atomsPerPriceUnit);

function isMirrored(optionIndex: OptionIndex): boolean {
  return optionIndex === 1;
}

/** A Yes price in price units, in the option's terms; -1 (an empty side) stays -1. */
export function priceUnitsInTerms(yesPriceUnits: number, optionIndex: OptionIndex): number {
  if (!isMirrored(optionIndex) || yesPriceUnits === -1) return yesPriceUnits;
  return priceUnitsPerUnit - yesPriceUnits;
}

/** A Yes price in atoms, in the option's terms. */
export function priceAtomsInTerms(yesAtoms: number, optionIndex: OptionIndex): number {
  return isMirrored(optionIndex) ? oneAtoms - yesAtoms : yesAtoms;
}

/** The same, for a price carried as a bigint (a trade's `yesPrice`). */
export function priceBigAtomsInTerms(yesAtoms: bigint, optionIndex: OptionIndex): bigint {
  return isMirrored(optionIndex) ? BigInt(oneAtoms) - yesAtoms : yesAtoms;
}

/** Whether a level on this side of the Yes book is a bid in the option's terms. */
export function isBidInTerms(yesSide: BookSide, optionIndex: OptionIndex): boolean {
  return (yesSide === bidSide) !== isMirrored(optionIndex);
}

/** The Yes book's best bid and ask (-1 when a side is empty) as the option's best bid and ask. */
export function bestInTerms(
  bestBidUnits: number,
  bestAskUnits: number,
  optionIndex: OptionIndex,
): readonly [bidUnits: number, askUnits: number] {
  if (!isMirrored(optionIndex)) return [bestBidUnits, bestAskUnits];
  return [priceUnitsInTerms(bestAskUnits, optionIndex), priceUnitsInTerms(bestBidUnits, optionIndex)];
}

type Level = [priceUnits: number, lots: number];

/**
 * The Yes book's levels, by side as kept ([bids, asks], each in any order), as the option's bids
 * (high to low) and asks (low to high), the order the REST snapshot gives them.
 */
export function levelsInTerms(
  yesLevels: readonly [ReadonlyMap<number, number>, ReadonlyMap<number, number>],
  optionIndex: OptionIndex,
): { bids: Level[]; asks: Level[] } {
  const inTerms = (side: BookSide): Level[] =>
    [...yesLevels[side]].map(
      ([priceUnits, lots]): Level => [priceUnitsInTerms(priceUnits, optionIndex), lots],
    );
  const [bidsFrom, asksFrom] = isMirrored(optionIndex) ? [askSide, bidSide] : [bidSide, askSide];
  return {
    bids: inTerms(bidsFrom).sort((a, b) => b[0] - a[0]),
    asks: inTerms(asksFrom).sort((a, b) => a[0] - b[0]),
  };
}

/**
 * Whether a trade's taker bought the option `optionId` of the outcome: it bought that option, or
 * sold the other one (selling No at 1 − p is buying Yes at p).
 */
export function takerBought(
  trade: { readonly takerSide: "BUY" | "SELL"; readonly takerOptionId: number },
  optionId: number,
): boolean {
  return (trade.takerSide === "BUY") === (trade.takerOptionId === optionId);
}
