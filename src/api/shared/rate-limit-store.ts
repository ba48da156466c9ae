// The store behind @fastify/rate-limit on every listener: fixed windows kept in this process, read
// against the platform's clock (deps.nowMs) instead of Date.now, so tests move time instead of
// sleeping. The plugin's store is its extension point: a store in the database (so several API
// nodes share one budget) replaces this class without touching the hooks that use it.

import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from "@fastify/rate-limit";

/** Keys remembered at once; beyond it expired windows are dropped, and if none is, all are. */
export const rateLimitKeysMax = 100_000;

interface Window {
  current: number;
  startMs: number;
  durationMs: number;
}

type IncrementCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** A store class for @fastify/rate-limit's `store` option, reading time from `nowMs`. */
export function clockedRateLimitStore(nowMs: () => number): FastifyRateLimitStoreCtor {
  class ClockedRateLimitStore {
    readonly #windows = new Map<string, Window>();

    /** The plugin calls incr(key, callback, timeWindow, max). */
    incr(key: string, callback: IncrementCallback, timeWindowMs: number): void {
      const now = nowMs();
      let window = this.#windows.get(key);
      if (window === undefined || now - window.startMs >= window.durationMs) {
        if (window === undefined && this.#windows.size >= rateLimitKeysMax) this.#evictExpired(now);
        window = { current: 0, startMs: now, durationMs: timeWindowMs };
        this.#windows.set(key, window);
      }
      window.current += 1;
      callback(null, { current: window.current, ttl: window.startMs + window.durationMs - now });
    }

    /** Each limiter (createRateLimit, a route's own limit) gets its own table. */
    child(): FastifyRateLimitStore {
      return new ClockedRateLimitStore() as unknown as FastifyRateLimitStore;
    }

    #evictExpired(now: number): void {
      for (const [key, window] of this.#windows) {
        if (now - window.startMs >= window.durationMs) this.#windows.delete(key);
      }
      // Every key is live (a flood from many addresses): forget them all rather than grow.
      if (this.#windows.size >= rateLimitKeysMax) this.#windows.clear();
    }
  }
  return ClockedRateLimitStore as unknown as FastifyRateLimitStoreCtor;
}
