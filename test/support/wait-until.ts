// The one way a test waits for something that happens on its own (a commit reaching a replica, a
// socket opening, a scheduler's tick): check a condition every few milliseconds until it holds or
// a deadline passes, then fail saying what did not happen. A test never sleeps a fixed time where
// a condition can be awaited, and never waits without a bound.

import { setTimeout as sleep } from "node:timers/promises";

export interface WaitOptions {
  /** What is awaited, for the failure ("… waiting until <what>"); by default the condition's source. */
  readonly what?: string | (() => string);
  /** How long to wait before failing, ms (default 10,000). */
  readonly timeoutMs?: number;
  /** How often to check, ms (default 20). */
  readonly intervalMs?: number;
  /**
   * A check that throws counts as "not yet" and is tried again (a server still starting, a database
   * still recovering); the failure then names the last error. By default an error ends the wait.
   */
  readonly retryErrors?: boolean;
}

export const waitTimeoutMsDefault = 10_000;
export const waitIntervalMsDefault = 20;

/** Waits until `probe` gives a value other than undefined, and returns it. */
export async function waitForValue<Value>(
  probe: () => Value | undefined | Promise<Value | undefined>,
  options: WaitOptions = {},
): Promise<Value> {
  const timeoutMs = options.timeoutMs ?? waitTimeoutMsDefault;
  const intervalMs = options.intervalMs ?? waitIntervalMsDefault;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      if (options.retryErrors !== true) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      const what = typeof options.what === "function" ? options.what() : (options.what ?? String(probe));
      const last = lastError === undefined ? "" : `; the last check failed: ${String(lastError)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}${last}`, { cause: lastError });
    }
    await sleep(intervalMs);
  }
}

/** Waits until `condition` holds. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  options: WaitOptions = {},
): Promise<void> {
  await waitForValue(async () => ((await condition()) ? true : undefined), {
    ...options,
    what: options.what ?? String(condition),
  });
}
