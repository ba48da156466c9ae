// The price and chance of an option as the live channels publish them and the price sampler
// records them. The same rule as the market detail (src/catalog/market-detail.ts optionPricesOf):
// the midpoint when the book has both sides, else the last trade, else 0.5; chance = price (0–1).

import { askSide, bidSide } from "../core/book/orders.js";
import type { ExchangeState } from "../core/exchange.js";
import type { Outcome } from "../core/market.js";
import { poolOptionPrice } from "../core/pools/queries.js";
import { atomsPerPriceUnit, priceUnitsPerUnit } from "../core/units.js";
import { priceAtomsInTerms } from "./option-view.js";

const atomsPerUnitPrice = Number(atomsPerPriceUnit);
const oneAtoms = priceUnitsPerUnit * atomsPerUnitPrice;

/** The Yes option's price in atoms (a whole number of atoms: a midpoint may fall between ticks). */
export function yesPriceAtoms(outcome: Outcome): number {
  const book = outcome.book;
  const bid = book === null ? -1 : book.bestPrice(bidSide);
  const ask = book === null ? -1 : book.bestPrice(askSide);
  if (bid !== -1 && ask !== -1) return ((bid + ask) * atomsPerUnitPrice) / 2;
  if (outcome.lastTradeYesPriceUnits !== 0) return outcome.lastTradeYesPriceUnits * atomsPerUnitPrice;
  return oneAtoms / 2;
}

/**
 * Both options' prices in atoms, Yes first. A pool outcome (AMM, parimutuel) prices from its pool
 * to the atom, exactly as the market detail does; a book outcome from its book, No being 1 − Yes.
 */
export function optionPricesAtoms(
  state: Readonly<ExchangeState>,
  outcome: Outcome,
): readonly [number, number] {
  const poolYes = poolOptionPrice(state, outcome.outcomeId, 0);
  const poolNo = poolOptionPrice(state, outcome.outcomeId, 1);
  if (poolYes !== null && poolNo !== null) return [Number(poolYes), Number(poolNo)];
  const yes = yesPriceAtoms(outcome);
  return [yes, optionPriceAtoms(yes, 1)];
}

/** An option's price in its own terms: No is 1 − Yes (option-view.ts). */
export function optionPriceAtoms(yesAtoms: number, optionIndex: 0 | 1): number {
  return priceAtomsInTerms(yesAtoms, optionIndex);
}

/** Chance as the market detail gives it: the price as a probability, 0 to 1. */
export function chanceOf(priceAtoms: number): number {
  return priceAtoms / oneAtoms;
}
