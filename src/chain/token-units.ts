// The token's units and the platform's atoms (1e-8 USDT), exactly: no floating point. USDT has 6
// decimals on Ethereum, so a unit is 100 atoms; a token with more than 8 decimals (USDT on some
// other chains has 18) is credited rounded down to the atom, the rest kept as dust.

const platformDecimals = 8;

export interface AtomsFromUnits {
  readonly atoms: bigint;
  /** Token units below one atom, not credited (0 when decimals ≤ 8). */
  readonly dustUnits: bigint;
}

export function unitsToAtoms(units: bigint, decimals: number): AtomsFromUnits {
  assertDecimals(decimals);
  if (decimals <= platformDecimals) {
    return { atoms: units * 10n ** BigInt(platformDecimals - decimals), dustUnits: 0n };
  }
  const divisor = 10n ** BigInt(decimals - platformDecimals);
  return { atoms: units / divisor, dustUnits: units % divisor };
}

/** The token units of `atoms`, or undefined when the token cannot carry that precision. */
export function atomsToUnits(atoms: bigint, decimals: number): bigint | undefined {
  assertDecimals(decimals);
  if (decimals >= platformDecimals) return atoms * 10n ** BigInt(decimals - platformDecimals);
  const divisor = 10n ** BigInt(platformDecimals - decimals);
  return atoms % divisor === 0n ? atoms / divisor : undefined;
}

function assertDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36) {
    throw new Error(`token decimals ${decimals} out of range`);
  }
}
