// The clock the forwarding engine reads its deadlines from and waits on. Injected (the real one by
// default) so the deadline rules are tested without real waiting (test/cluster/forwarding-engine-clock.test.ts).

export interface ForwardingClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or as soon as `signal` aborts (never rejects). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: ForwardingClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener("abort", done, { once: true });
    }),
};
