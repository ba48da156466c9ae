// Callers of a subscription's whenLive(): each waits, bounded, until the subscription turns live.

export class LiveWaiters {
  #waiting: (() => void)[] = [];

  /** Resolves at the next release(); rejects naming `what` after `timeoutMs`. */
  wait(timeoutMs: number, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what} not live after ${timeoutMs} ms`)), timeoutMs);
      this.#waiting.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The subscription is live: every waiting caller goes on. */
  release(): void {
    for (const resolve of this.#waiting.splice(0)) resolve();
  }
}
