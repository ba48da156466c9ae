// The bot meets the same refusal again and again (a closed market, an empty balance): say each
// one once a minute rather than on every tick, so the server's log stays readable.

import type { DemoLog } from "./seed.js";

export const repeatedMessageIntervalMs = 60_000;
/** Distinct messages remembered; beyond it the memory starts over (a bounded map, never a leak). */
const rememberedMessagesMax = 256;

export class ThrottledLog {
  readonly #log: DemoLog;
  readonly #nowMs: () => number;
  readonly #lastShownMs = new Map<string, number>();

  constructor(log: DemoLog, nowMs: () => number = Date.now) {
    this.#log = log;
    this.#nowMs = nowMs;
  }

  warn(message: string): void {
    const now = this.#nowMs();
    const last = this.#lastShownMs.get(message);
    if (last !== undefined && now - last < repeatedMessageIntervalMs) return;
    if (this.#lastShownMs.size >= rememberedMessagesMax) this.#lastShownMs.clear();
    this.#lastShownMs.set(message, now);
    this.#log.warn(message);
  }
}
