// hotScore (spec 000 list and detail): how much is happening in a market now. It is the market's
// recent activity with exponential decay — every USDT traded counts 1 and every detail view counts
// hotScoreUsdtPerClick, each halving in weight every hotScoreHalfLifeMs:
//
//   hotScore(now) = Σ weightᵢ · 2^(−(now − tᵢ) / halfLife)
//
// Stored as log2 of the same sum taken at a fixed epoch, `heat = log2 Σ weightᵢ · 2^((tᵢ − epoch) / halfLife)`,
// which never needs rewriting as time passes, orders markets exactly as hotScore does at any
// instant (so the list can ORDER BY it with an index), and cannot overflow (it grows by one per
// half-life, where the sum itself would pass 1e308 within three years).

export const hotScoreHalfLifeMs = 24 * 3_600_000;
/** A detail view weighs as much as this many USDT traded. */
export const hotScoreUsdtPerClick = 1;
/** 2026-01-01T00:00:00Z; any fixed instant works. */
const heatEpochMs = Date.UTC(2026, 0, 1);
const hotScoreDecimals = 4;

/** The heat after adding `weight` at `atMs`; `heat` null means nothing yet. */
export function addHeat(heat: number | null, weight: number, atMs: number): number | null {
  if (!(weight > 0)) return heat;
  const added = Math.log2(weight) + (atMs - heatEpochMs) / hotScoreHalfLifeMs;
  if (heat === null) return added;
  // log2(2^a + 2^b) computed from the larger term, so neither power is ever formed in full.
  const high = Math.max(heat, added);
  const low = Math.min(heat, added);
  return high + Math.log2(1 + 2 ** (low - high));
}

/** The decayed sum at `nowMs`, rounded to 4 decimals (0 when nothing has happened). */
export function hotScoreAt(heat: number | null, nowMs: number): number {
  if (heat === null) return 0;
  const score = 2 ** (heat - (nowMs - heatEpochMs) / hotScoreHalfLifeMs);
  return Number(score.toFixed(hotScoreDecimals));
}
