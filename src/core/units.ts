// Units used inside the exchange core, and the conversions to and from the atoms of money.ts.
//
// Prices live strictly between 0 and 1 and are multiples of the finest tick, 0.0001, so inside
// the core a price is a small integer of *price units* (1 unit = 0.0001 USDT per share). Share
// quantities on order books are multiples of a *lot* of 0.0001 shares. With both, the cash of
// any fill is exact: lots × price units = atoms, so trades never round; only fees do.

import type { Atoms } from "./money.js";

/** Price units in one USDT: a complete Yes+No set is worth exactly this many units. */
export const priceUnitsPerUnit = 10_000;
/** Atoms of money in one price unit (0.0001 USDT). */
export const atomsPerPriceUnit = 10_000n;
/** Atoms of shares in one lot (0.0001 shares): the step of every order-book quantity. */
export const atomsPerLot = 10_000n;
const atomsPerLotNumber = 10_000;
const atomsPerPriceUnitNumber = 10_000;

/** Price atoms per share → price units; null when not a whole number of units. */
export function priceAtomsToUnits(price: Atoms): number | null {
  if (price % atomsPerPriceUnit !== 0n) return null;
  return Number(price / atomsPerPriceUnit);
}

export function priceUnitsToAtoms(units: number): Atoms {
  return BigInt(units * atomsPerPriceUnitNumber);
}

/** Share atoms → lots; null when not a whole number of lots. */
export function sharesToLots(shares: Atoms): number | null {
  if (shares % atomsPerLot !== 0n) return null;
  return Number(shares / atomsPerLot);
}

export function lotsToShares(lots: number): Atoms {
  return BigInt(lots * atomsPerLotNumber);
}

/** Cash of `lots` at `priceUnits`, in atoms, as an exact JS number (see limits.ts for the bound). */
export function notionalAtoms(lots: number, priceUnits: number): number {
  return lots * priceUnits;
}
