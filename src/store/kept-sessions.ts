// Sessions kept in memory after a lookup, for both stores' session caches: SQLite's identity store
// (the file's only writer, so it keeps sessions until a change of its own) and a PostgreSQL node's
// cache (src/store/postgres/session-cache.ts: kept briefly, and only while it hears other nodes).
// By token hash, with each user's kept tokens so that a change to a user's sessions drops them all.
// Past the bound the oldest kept entry is evicted; misses are never kept, so unknown tokens cannot
// fill it.

import type { SessionRecord } from "./identity.js";

/** Sessions kept at most; beyond it the oldest kept is dropped first. */
export const sessionCacheEntriesMax = 100_000;

export interface KeptSession {
  readonly session: SessionRecord;
  readonly keptAtMs: number;
}

export class KeptSessions {
  readonly #byToken = new Map<string, KeptSession>();
  readonly #tokensByUser = new Map<number, Set<string>>();

  constructor(readonly entriesMax = sessionCacheEntriesMax) {}

  get(tokenSha256: string): KeptSession | undefined {
    return this.#byToken.get(tokenSha256);
  }

  keep(session: SessionRecord, keptAtMs = 0): void {
    this.forget(session.tokenSha256);
    if (this.#byToken.size >= this.entriesMax) this.forget(this.#byToken.keys().next().value as string);
    // Frozen: every caller gets this same object, so none may change what the next one reads.
    this.#byToken.set(session.tokenSha256, { session: Object.freeze(session), keptAtMs });
    let tokens = this.#tokensByUser.get(session.userId);
    if (tokens === undefined) {
      tokens = new Set();
      this.#tokensByUser.set(session.userId, tokens);
    }
    tokens.add(session.tokenSha256);
  }

  forget(tokenSha256: string): void {
    const entry = this.#byToken.get(tokenSha256);
    if (entry === undefined) return;
    this.#byToken.delete(tokenSha256);
    const tokens = this.#tokensByUser.get(entry.session.userId);
    tokens?.delete(tokenSha256);
    if (tokens?.size === 0) this.#tokensByUser.delete(entry.session.userId);
  }

  forgetUser(userId: number): void {
    for (const token of this.#tokensByUser.get(userId) ?? []) this.#byToken.delete(token);
    this.#tokensByUser.delete(userId);
  }

  clear(): void {
    this.#byToken.clear();
    this.#tokensByUser.clear();
  }
}
