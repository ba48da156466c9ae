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

/**
 * The starting fair prices of an exclusive event's outcomes (DESIGN §10), in ticks that add up to
 * exactly one unit: exactly one outcome wins, so fair Yes prices sum to 1. Prices that do not (an
 * existing event's last prices) are scaled to; the rounding's remainder goes to the first outcome.
 */
export function eventFairTicks(prices: readonly number[]): number[] {
  const total = prices.reduce((sum, price) => sum + price, 0);
  const ticks = prices.map((price) =>
    clampTicks(Math.round((total > 0 ? price / total : 1 / prices.length) * ticksPerUnit)),
  );
  const remainder = ticksPerUnit - ticks.reduce((sum, each) => sum + each, 0);
  if (ticks.length > 0) ticks[0] = clampTicks(ticks[0]! + remainder);
  return ticks;
}

/**
 * One step of an event's walk: now and then one outcome's fair price gains a tick that another
 * loses, so the sum never moves. `random` returns [0, 1).
 */
export function nextEventFairTicks(ticks: readonly number[], random: () => number): number[] {
  const next = [...ticks];
  if (next.length < 2 || random() >= fairMoveChance) return next;
  const up = Math.floor(random() * next.length);
  const other = Math.floor(random() * (next.length - 1));
  const down = other >= up ? other + 1 : other;
  if (next[up]! + 1 > fairTicksMax || next[down]! - 1 < fairTicksMin) return next;
  next[up]! += 1;
  next[down]! -= 1;
  return next;
}
