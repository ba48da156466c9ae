// The session cache of PostgreSQL nodes (src/store/postgres/session-cache.ts): found sessions are
// answered from memory for at most sessionCacheMs, this node's revocations and new sessions are seen
// at once, misses are never kept, and a read that overlapped a revocation is not kept.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IdentityStore, SessionRecord } from "../../src/store/identity.js";
import { cacheSessions } from "../../src/store/postgres/session-cache.js";

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
    const cached = cacheSessions(inner.store, { sessionCacheMs: 1_000, nowMs: () => now });
    await cached.createSession(session("a", 1), 5);
    assert.equal((await cached.findSession("a"))?.userId, 1);
    now = 999;
    assert.equal((await cached.findSession("a"))?.userId, 1);
    assert.equal(inner.counts.finds, 1);
    // Revoked elsewhere (straight in the store, as another node would): seen once the bound passes.
    inner.sessions.set("a", { ...inner.sessions.get("a")!, revokedAtMs: 5 });
    now = 1_000;
    assert.equal((await cached.findSession("a"))?.revokedAtMs, 5);
    assert.equal(inner.counts.finds, 2);
  });

  it("sees this node's revocation at once", async () => {
    const inner = sessionStore();
    const cached = cacheSessions(inner.store, { sessionCacheMs: 60_000, nowMs: () => 0 });
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
    const cached = cacheSessions(inner.store, { sessionCacheMs: 60_000, nowMs: () => 0 });
    await cached.createSession(session("a", 1), 1);
    assert.notEqual(await cached.findSession("a"), undefined);
    await cached.createSession(session("a2", 1), 1);
    assert.equal(await cached.findSession("a"), undefined);
  });

  it("never keeps a miss, and never keeps a read that overlapped a revocation", async () => {
    const inner = sessionStore();
    const cached = cacheSessions(inner.store, { sessionCacheMs: 60_000, nowMs: () => 0 });
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
});
