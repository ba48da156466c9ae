// 50 requests per second per merchant on the legacy listener (spec 001 "Limits", DESIGN §8): a
// fixed one-second window per key. The key is the merchant (by API key on authorize, by the JWT
// elsewhere), or the client address for calls without credentials. In memory, per listener: a
// deployment with several legacy nodes divides the limit between them.

export const legacyRequestsPerWindowMax = 50;
export const legacyRateWindowMs = 1_000;
export const legacyRateWindowName = "1s";
/** Keys remembered at once; beyond it the table is cleared (every key gets a fresh window). */
export const rateLimitKeysMax = 100_000;

export type RateDecision = { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number };

interface Window {
  startMs: number;
  count: number;
}

export class FixedWindowRateLimiter {
  readonly #windows = new Map<string, Window>();

  constructor(
    readonly limit: number = legacyRequestsPerWindowMax,
    readonly windowMs: number = legacyRateWindowMs,
  ) {}

  take(key: string, nowMs: number): RateDecision {
    let window = this.#windows.get(key);
    if (window === undefined || nowMs - window.startMs >= this.windowMs) {
      if (window === undefined && this.#windows.size >= rateLimitKeysMax) this.#evictExpired(nowMs);
      window = { startMs: nowMs, count: 0 };
      this.#windows.set(key, window);
    }
    window.count += 1;
    if (window.count <= this.limit) return { ok: true };
    const waitMs = window.startMs + this.windowMs - nowMs;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  #evictExpired(nowMs: number): void {
    for (const [key, window] of this.#windows) {
      if (nowMs - window.startMs >= this.windowMs) this.#windows.delete(key);
    }
    // Every key is live (a flood from many addresses): forget them all rather than grow.
    if (this.#windows.size >= rateLimitKeysMax) this.#windows.clear();
  }
}
