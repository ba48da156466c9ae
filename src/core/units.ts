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

/** Every price a book can hold, as atoms, made once: events carry prices without allocating. */
const priceAtomsByUnits: readonly Atoms[] = Array.from({ length: priceUnitsPerUnit + 1 }, (_unused, units) =>
  BigInt(units * atomsPerPriceUnitNumber),
);

export function priceUnitsToAtoms(units: number): Atoms {
  return priceAtomsByUnits[units] ?? BigInt(units * atomsPerPriceUnitNumber);
}

export function lotsToShares(lots: number): Atoms {
  return lots === 0 ? 0n : BigInt(lots * atomsPerLotNumber);
}

/** An exact JS number of atoms as a bigint; zero is the shared literal, so it costs nothing. */
export function atomsOf(value: number): Atoms {
  return value === 0 ? 0n : BigInt(value);
}

/**
 * Share atoms of one order (at most orderSharesMax, below 2^53) → lots, without bigint division:
 * Number() of such a bigint is exact, and so is the division when it is a whole number of lots.
 */
export function orderSharesToLots(shares: Atoms): number {
  return Number(shares) / atomsPerLotNumber;
}

/** Price atoms (below 1 USDT) → price units, exactly, without bigint division. */
export function priceToUnits(price: Atoms): number {
  return Number(price) / atomsPerPriceUnitNumber;
}
