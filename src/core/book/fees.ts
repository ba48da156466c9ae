// Trading fees. A fee is `bps` basis points of the party's notional (lots × its own option's
// price), rounded down to the atom, charged in USDT: a buyer pays it on top of the notional, a
// seller has it taken from the proceeds. Makers pay makerFee, takers takerFee (DESIGN §3).

import { basisPointsPerUnit } from "../limits.js";

/**
 * floor(notional × bps / 10000), exact in JS numbers: the notional of one order is below 2^47
 * atoms (limits.ts), and splitting it at 10,000 keeps every product below 2^53.
 */
export function feeAtoms(notional: number, bps: number): number {
  if (bps === 0) return 0;
  const whole = Math.floor(notional / basisPointsPerUnit);
  const rest = notional - whole * basisPointsPerUnit;
  return whole * bps + Math.floor((rest * bps) / basisPointsPerUnit);
}

/**
 * What a resting BUY keeps frozen for `lots` more lots at its own price: the notional plus the
 * maker fee on it. A resting order only ever trades as maker, at its own price, so this always
 * covers the cost; the fee-rounding difference between fills comes back when each fill settles.
 */
export function buyReserveAtoms(lots: number, priceUnits: number, makerFeeBps: number): number {
  const notional = lots * priceUnits;
  return notional + feeAtoms(notional, makerFeeBps);
}

/** Largest number of lots whose cost plus fee fits in `budget` atoms at `priceUnits`. */
export function affordableLots(budget: number, priceUnits: number, feeBps: number): number {
  // Start from the real-valued answer, rounded down, then correct the fee rounding by a step.
  let lots = Math.floor((budget * basisPointsPerUnit) / (priceUnits * (basisPointsPerUnit + feeBps)));
  while (lots > 0 && lots * priceUnits + feeAtoms(lots * priceUnits, feeBps) > budget) lots--;
  while ((lots + 1) * priceUnits + feeAtoms((lots + 1) * priceUnits, feeBps) <= budget) lots++;
  return lots;
}
