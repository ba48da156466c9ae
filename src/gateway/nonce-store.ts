// Remembers signed `x-ca-nonce` values for the date window so that a captured request cannot be
// replayed. In memory: one API node sees all of its own traffic; several nodes behind one host
// would need a shared store (decisions.md).

export const nonceEntriesMax = 1_000_000;

export type NonceOutcome = "fresh" | "replayed" | "full";

export class NonceStore {
  // Insertion order is expiry order because every entry lives for the same window, so the oldest
  // entries are always at the front of the Map and pruning stops at the first live one.
  readonly #expiresAtMs = new Map<string, number>();

  constructor(
    private readonly windowMs: number,
    private readonly entriesMax: number = nonceEntriesMax,
  ) {}

  /** Records a nonce for the window; reports whether it was seen before inside the window. */
  remember(key: string, nowMs: number): NonceOutcome {
    this.#prune(nowMs);
    const expiresAtMs = this.#expiresAtMs.get(key);
    if (expiresAtMs !== undefined && expiresAtMs > nowMs) return "replayed";
    if (this.#expiresAtMs.size >= this.entriesMax) return "full";
    this.#expiresAtMs.set(key, nowMs + this.windowMs);
    return "fresh";
  }

  get size(): number {
    return this.#expiresAtMs.size;
  }

  #prune(nowMs: number): void {
    for (const [key, expiresAtMs] of this.#expiresAtMs) {
      if (expiresAtMs > nowMs) return;
      this.#expiresAtMs.delete(key);
    }
  }
}
