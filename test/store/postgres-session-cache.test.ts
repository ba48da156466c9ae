// The session cache of PostgreSQL nodes (src/store/postgres/session-cache.ts): found sessions are
// answered from memory for at most sessionCacheMs, this node's revocations and new sessions are seen
// at once, other nodes' as soon as they are heard (forgetUser), nothing is kept while other nodes are
// not heard, misses are never kept, and a read that overlapped a change is not kept. Across real
// nodes on PostgreSQL: test/store/postgres-session-revocation.test.ts.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IdentityStore, SessionRecord } from "../../src/store/identity.js";
import { cacheSessions, type SessionCacheOptions } from "../../src/store/postgres/session-cache.js";

/** The session half of an identity store, in memory, counting findSession calls. */
function sessionStore() {
  const sessions = new Map<string, SessionRecord>();
  const counts = { finds: 0 };
  let findGate: Promise<void> | undefined;
  const store = {
    async createSession(session: Omit<SessionRecord, "revokedAtMs">, sessionsPerUserMax: number) {
      sessions.set(session.tokenSha256, { ...session, revokedAtMs: null });
      const live = [...sessions.values()].filter(
        (s) => s.userId === session.userId && s.revokedAtMs === null,
      );
      for (const oldest of live.slice(0, Math.max(0, live.length - sessionsPerUserMax))) {
        sessions.delete(oldest.tokenSha256);
      }
    },
    async findSession(tokenSha256: string) {
      counts.finds += 1;
      const found = sessions.get(tokenSha256);
      await findGate;
      return found;
    },
    async revokeUserSessions(userId: number, nowMs: number) {
      let revoked = 0;
      for (const [token, session] of sessions) {
        if (session.userId === userId && session.revokedAtMs === null) {
          sessions.set(token, { ...session, revokedAtMs: nowMs });
          revoked += 1;
        }
      }
      return revoked;
    },
  } as unknown as IdentityStore;
  return {
    store,
    sessions,
    counts,
    holdFinds(gate: Promise<void> | undefined) {
      findGate = gate;
    },
  };
}

/** A cache that hears other nodes (its listening connection is up), and the cache's controls. */
function hearingCache(store: IdentityStore, options: SessionCacheOptions) {
  const cache = cacheSessions(store, options);
  cache.hearOtherNodes(true);
  return { cached: cache.identity, cache };
}

const session = (token: string, userId: number) => ({
  tokenSha256: token,
  userId,
  partnerId: 1,
  createdAtMs: 0,
  expiresAtMs: 1_000_000,
});

describe("PostgreSQL session cache", () => {
  it("answers a found session from memory until sessionCacheMs has passed, then reads again", async () => {
    let now = 0;
    const inner = sessionStore();
    const { cached } = hearingCache(inner.store, { sessionCacheMs: 1_000, nowMs: () => now });
    await cached.createSession(session("a", 1), 5);
    assert.equal((await cached.findSession("a"))?.userId, 1);
    now = 999;
    assert.equal((await cached.findSession("a"))?.userId, 1);
    assert.equal(inner.counts.finds, 1);
    // Changed elsewhere and not heard (a listener that died silently): seen once the bound passes.
    inner.sessions.set("a", { ...inner.sessions.get("a")!, revokedAtMs: 5 });
    now = 1_000;
    assert.equal((await cached.findSession("a"))?.revokedAtMs, 5);
    assert.equal(inner.counts.finds, 2);
  });

  it("sees this node's revocation at once", async () => {
    const inner = sessionStore();
    const { cached } = hearingCache(inner.store, { sessionCacheMs: 60_000, nowMs: () => 0 });
    await cached.createSession(session("a", 1), 5);
    await cached.createSession(session("b", 2), 5);
    await cached.findSession("a");
    await cached.findSession("b");
    assert.equal(await cached.revokeUserSessions(1, 7), 1);
    assert.equal((await cached.findSession("a"))?.revokedAtMs, 7);
    assert.equal((await cached.findSession("b"))?.revokedAtMs, null);
    assert.equal(inner.counts.finds, 3, "user 2's session stays kept");
  });

  it("forgets a session that a new one of the same user evicted", async () => {
    const inner = sessionStore();
    const { cached } = hearingCache(inner.store, { sessionCacheMs: 60_000, nowMs: () => 0 });
    await cached.createSession(session("a", 1), 1);
    assert.notEqual(await cached.findSession("a"), undefined);
    await cached.createSession(session("a2", 1), 1);
    assert.equal(await cached.findSession("a"), undefined);
  });

  it("never keeps a miss, and never keeps a read that overlapped a revocation", async () => {
    const inner = sessionStore();
    const { cached } = hearingCache(inner.store, { sessionCacheMs: 60_000, nowMs: () => 0 });
    assert.equal(await cached.findSession("x"), undefined);
    await cached.createSession(session("x", 3), 5);
    assert.equal((await cached.findSession("x"))?.userId, 3, "created after a miss: found");

    await cached.createSession(session("c", 4), 5);
    let open: () => void = () => {};
    inner.holdFinds(new Promise<void>((resolve) => (open = resolve)));
    const overlapping = cached.findSession("c");
    inner.holdFinds(undefined);
    await cached.revokeUserSessions(4, 9);
    open();
    assert.equal((await overlapping)?.revokedAtMs, null, "read the row from before the revocation");
    assert.equal((await cached.findSession("c"))?.revokedAtMs, 9, "but did not keep it");
  });

  it("forgets a user's kept sessions when another node's change is heard, and only that user's", async () => {
    const inner = sessionStore();
    const { cached, cache } = hearingCache(inner.store, { sessionCacheMs: 60_000, nowMs: () => 0 });
    await cached.createSession(session("a", 1), 5);
    await cached.createSession(session("b", 2), 5);
    await cached.findSession("a");
    await cached.findSession("b");
    // Another node revokes user 1 (straight in the store) and its NOTIFY is heard.
    inner.sessions.set("a", { ...inner.sessions.get("a")!, revokedAtMs: 3 });
    inner.sessions.set("b", { ...inner.sessions.get("b")!, revokedAtMs: 3 });
    cache.forgetUser(1);
    assert.equal((await cached.findSession("a"))?.revokedAtMs, 3);
    assert.equal((await cached.findSession("b"))?.revokedAtMs, null, "user 2 was not told of: still kept");
    assert.equal(inner.counts.finds, 3);
  });

  it("keeps nothing until other nodes are heard, nor while they are not, and drops all on each change", async () => {
    const inner = sessionStore();
    const cache = cacheSessions(inner.store, { sessionCacheMs: 60_000, nowMs: () => 0 });
    const cached = cache.identity;
    await cached.createSession(session("a", 1), 5);
    await cached.findSession("a");
    await cached.findSession("a");
    assert.equal(inner.counts.finds, 2, "not heard yet: every lookup reads");

    cache.hearOtherNodes(true);
    await cached.findSession("a");
    await cached.findSession("a");
    assert.equal(inner.counts.finds, 3, "heard: kept");

    cache.hearOtherNodes(false);
    await cached.findSession("a");
    await cached.findSession("a");
    assert.equal(inner.counts.finds, 5, "lost: nothing kept, not even what was");

    // Regained: a read in flight across the change may have missed a revocation, so is not kept.
    let open: () => void = () => {};
    inner.holdFinds(new Promise<void>((resolve) => (open = resolve)));
    const overlapping = cached.findSession("a");
    inner.holdFinds(undefined);
    cache.hearOtherNodes(true);
    open();
    await overlapping;
    await cached.findSession("a");
    await cached.findSession("a");
    assert.equal(inner.counts.finds, 7, "the overlapping read was not kept; the next one was");
  });

  it("does not keep a read that overlapped another node's heard change", async () => {
    const inner = sessionStore();
    const { cached, cache } = hearingCache(inner.store, { sessionCacheMs: 60_000, nowMs: () => 0 });
    await cached.createSession(session("c", 4), 5);
    let open: () => void = () => {};
    inner.holdFinds(new Promise<void>((resolve) => (open = resolve)));
    const overlapping = cached.findSession("c");
    inner.holdFinds(undefined);
    inner.sessions.set("c", { ...inner.sessions.get("c")!, revokedAtMs: 9 });
    cache.forgetUser(4);
    open();
    assert.equal((await overlapping)?.revokedAtMs, null, "read the row from before the revocation");
    assert.equal((await cached.findSession("c"))?.revokedAtMs, 9, "but did not keep it");
  });
});
