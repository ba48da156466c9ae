// Remembers signed `x-ca-nonce` values for the date window so that a captured request cannot be
// replayed. The port is small so that storage can vary (SQLite now, PostgreSQL for several API
// nodes next); MemoryNonceWindow is the bounded, per-partner, in-memory part every adapter keeps in
// front of its durable table, so the hot path is a Map lookup.

/** Live nonces one partner may hold; one more is refused ("full") until some expire. */
export const nonceEntriesPerPartnerMax = 250_000;

export type NonceOutcome = "fresh" | "replayed" | "full";

/**
 * Whether a nonce recorded until `expiresAtMs` (its first use + the window) still holds at `nowMs`:
 * through that millisecond itself. The date check accepts a date exactly 15 minutes off, so a
 * request first used at t and dated t + 15 min passes it again at t + 30 min; SQLite's and
 * PostgreSQL's statements draw the same line (expired: `expires_at_ms < now`).
 */
export function nonceHolds(expiresAtMs: number, nowMs: number): boolean {
  return expiresAtMs >= nowMs;
}

/** The gateway's nonce port: `remember` answers once the nonce is recorded (durably, for a durable store). */
export interface NonceStore {
  remember(partnerKey: string, nonce: string, nowMs: number): NonceOutcome | Promise<NonceOutcome>;
}

/**
 * Nonces per partner, each partner bounded on its own: one partner sending many cannot lock the
 * others out. Insertion order is expiry order (every entry lives for the same window), so the
 * oldest entries are at the front of each Map and pruning stops at the first live one.
 */
export class MemoryNonceWindow implements NonceStore {
  readonly #partners = new Map<string, Map<string, number>>();

  constructor(
    readonly windowMs: number,
    readonly entriesPerPartnerMax: number = nonceEntriesPerPartnerMax,
  ) {}

  remember(partnerKey: string, nonce: string, nowMs: number): NonceOutcome {
    return this.rememberUntil(partnerKey, nonce, nowMs, nowMs + this.windowMs);
  }

  /** As remember, with the expiry given (a durable store reloads entries with their own). */
  rememberUntil(partnerKey: string, nonce: string, nowMs: number, expiresAtMs: number): NonceOutcome {
    let entries = this.#partners.get(partnerKey);
    if (entries === undefined) {
      entries = new Map();
      this.#partners.set(partnerKey, entries);
    }
    prune(entries, nowMs);
    const known = entries.get(nonce);
    if (known !== undefined && nonceHolds(known, nowMs)) return "replayed";
    if (entries.size >= this.entriesPerPartnerMax) return "full";
    entries.set(nonce, expiresAtMs);
    return "fresh";
  }

  /** Forgets a nonce recorded a moment ago whose durable write failed, so a retry is not "replayed". */
  forget(partnerKey: string, nonce: string): void {
    this.#partners.get(partnerKey)?.delete(nonce);
  }

  sizeOf(partnerKey: string): number {
    return this.#partners.get(partnerKey)?.size ?? 0;
  }
}

function prune(entries: Map<string, number>, nowMs: number): void {
  for (const [nonce, expiresAtMs] of entries) {
    if (nonceHolds(expiresAtMs, nowMs)) return;
    entries.delete(nonce);
  }
}
