// The rules of a withdrawal request, as named constants (DESIGN §4, §6, §8). The fee is flat: an
// ERC20 transfer costs the platform about the same gas whatever the amount, so a percentage would
// overcharge large withdrawals for nothing. It is charged on top of the amount (the address receives
// exactly `amount`), frozen with it, and becomes platform income when the withdrawal completes.

import { ATOMS_PER_UNIT } from "../core/money.js";
import { evmAddressPattern } from "./deposit-addresses.js";

/** Flat fee per withdrawal, USDT atoms: 1 USDT. */
export const withdrawalFeeAtoms = 1n * ATOMS_PER_UNIT;
/** Smallest withdrawal, USDT atoms: 10 USDT (below it the fee would be most of the transfer). */
export const withdrawalAmountAtomsMin = 10n * ATOMS_PER_UNIT;
/** Largest single withdrawal, USDT atoms: 1,000,000 USDT (larger sums go in several, each reviewed). */
export const withdrawalAmountAtomsMax = 1_000_000n * ATOMS_PER_UNIT;

export function isWithdrawalAddress(address: string): boolean {
  return evmAddressPattern.test(address);
}
