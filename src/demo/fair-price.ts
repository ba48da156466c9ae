// The market maker's idea of a market's Yes price: a slow, bounded random walk in whole ticks.
// Integer ticks keep every quoted price exactly on the market's tick (no 0.1 + 0.2 surprises).

/** Demo markets use the default tick, 0.01. */
export const ticksPerUnit = 100;
/** The walk stays inside [0.05, 0.95]: quotes below and above it must still be valid prices. */
export const fairTicksMin = 5;
export const fairTicksMax = 95;
/** The chance that the fair price moves by one tick on a given step. */
export const fairMoveChance = 0.35;

export function ticksOf(price: number): number {
  return clampTicks(Math.round(price * ticksPerUnit));
}

export function priceOf(ticks: number): number {
  return ticks / ticksPerUnit;
}

/** One step of the walk; `random` returns [0, 1). */
export function nextFairTicks(ticks: number, random: () => number): number {
  const roll = random();
  if (roll >= fairMoveChance) return ticks;
  return clampTicks(roll < fairMoveChance / 2 ? ticks - 1 : ticks + 1);
}

function clampTicks(ticks: number): number {
  return Math.min(fairTicksMax, Math.max(fairTicksMin, ticks));
}
