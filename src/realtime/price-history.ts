// GET /prices-history (spec 000, DESIGN §8): parameters and the bucketing of price points.
// Pure functions; the route file does the I/O.

/** Named look-back windows ending now. `1m` is a month, as on Polymarket; `max` and `all` are everything. */
export const historyIntervalsMs = {
  "1h": 3_600_000,
  "6h": 6 * 3_600_000,
  "1d": 86_400_000,
  "1w": 7 * 86_400_000,
  "1m": 30 * 86_400_000,
  max: Number.POSITIVE_INFINITY,
  all: Number.POSITIVE_INFINITY,
} as const;
export type HistoryInterval = keyof typeof historyIntervalsMs;

/** Points one answer holds at most: fidelity is coarsened until the span fits. */
export const historyPointsMax = 5_000;
/** Points read from each source (trades, samples) for one answer. */
export const historyScanPointsMax = 200_000;
const minuteMs = 60_000;

export interface HistoryQuery {
  readonly assetId: string;
  readonly fromMs: number;
  readonly toMs: number;
  /** Requested bucket width in minutes (1 when not given). */
  readonly fidelityMinutes: number;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const unixSeconds = /^[0-9]{1,12}$/;
const minutesPattern = /^[1-9][0-9]{0,6}$/;

export function parseHistoryQuery(
  query: Readonly<Record<string, unknown>>,
  nowMs: number,
): Parsed<HistoryQuery> {
  const text = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    return Array.isArray(value) ? String(value[value.length - 1]) : String(value);
  };
  const market = text("market");
  if (market === undefined || market.trim() === "") return { ok: false, error: "market is required" };
  const startText = text("startTs");
  const endText = text("endTs");
  const intervalText = text("interval");
  const fidelityText = text("fidelity");
  if (startText !== undefined && !unixSeconds.test(startText)) {
    return { ok: false, error: "startTs must be unix seconds (a non-negative integer)" };
  }
  if (endText !== undefined && !unixSeconds.test(endText)) {
    return { ok: false, error: "endTs must be unix seconds (a non-negative integer)" };
  }
  if (intervalText !== undefined && !Object.hasOwn(historyIntervalsMs, intervalText)) {
    return { ok: false, error: `interval must be one of ${Object.keys(historyIntervalsMs).join(", ")}` };
  }
  if (intervalText !== undefined && (startText !== undefined || endText !== undefined)) {
    return { ok: false, error: "interval cannot be combined with startTs or endTs" };
  }
  if (fidelityText !== undefined && !minutesPattern.test(fidelityText)) {
    return { ok: false, error: "fidelity must be a positive integer number of minutes" };
  }
  let fromMs = 0;
  let toMs = nowMs;
  if (intervalText !== undefined) {
    const windowMs = historyIntervalsMs[intervalText as HistoryInterval];
    fromMs = Number.isFinite(windowMs) ? Math.max(0, nowMs - windowMs) : 0;
  } else {
    if (startText !== undefined) fromMs = Number(startText) * 1000;
    if (endText !== undefined) toMs = Number(endText) * 1000 + 999;
  }
  if (fromMs > toMs) return { ok: false, error: "startTs must not be after endTs" };
  return {
    ok: true,
    value: {
      assetId: market.trim(),
      fromMs,
      toMs,
      fidelityMinutes: fidelityText === undefined ? 1 : Number(fidelityText),
    },
  };
}

export interface PricePoint {
  readonly timeMs: number;
  /** The price as a number (0–1). */
  readonly price: number;
}

/**
 * The last point of each bucket of `fidelityMinutes`, oldest first; t in unix seconds. Buckets
 * widen when the span would give more than historyPointsMax points.
 */
export function bucketHistory(
  points: readonly PricePoint[],
  fidelityMinutes: number,
): { t: number; p: number }[] {
  if (points.length === 0) return [];
  const sorted = [...points].sort((a, b) => a.timeMs - b.timeMs);
  const spanMs = sorted[sorted.length - 1]!.timeMs - sorted[0]!.timeMs;
  const bucketMs = Math.max(
    fidelityMinutes * minuteMs,
    Math.ceil(spanMs / historyPointsMax / minuteMs) * minuteMs,
  );
  const history: { t: number; p: number }[] = [];
  let currentBucket = Number.NaN;
  for (const point of sorted) {
    const bucket = Math.floor(point.timeMs / bucketMs);
    const entry = { t: Math.floor(point.timeMs / 1000), p: point.price };
    if (bucket === currentBucket) history[history.length - 1] = entry;
    else {
      history.push(entry);
      currentBucket = bucket;
    }
  }
  return history;
}
