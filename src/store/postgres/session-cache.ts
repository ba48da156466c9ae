// Session lookups of a PostgreSQL node, kept briefly in memory. Every signed request resolves its
// session cookie, and on PostgreSQL that point read was half of all the statements a create-order
// cost (bench:orders). A session found is kept for `sessionCacheMs`; a token not found is never kept
// (tokens are random, so a cache of misses would only grow with guesses).
//
// Exactness (docs/decisions.md, "Session caching" and "Session revocation across nodes"):
// - On this node: a revocation (revokeUserSessions) or a new session that evicts the user's oldest
//   ones (createSession) drops every kept session of that user before it returns.
// - From other nodes: the identity store NOTIFYs the user's id in the transaction that revokes or
//   evicts (identity.ts), and this node's listener (session-revocations.ts) calls forgetUser when it
//   hears it, so a session revoked elsewhere is refused here as soon as the commit's notification
//   arrives. Sessions are kept only while the cache hears other nodes (`hearOtherNodes(true)`):
//   while the listening connection is down nothing is kept, and losing or regaining it drops all.
// - A read that overlapped any of these changes is answered but not kept: it may have seen the row
//   from before the change.
// - `sessionCacheMs` still bounds every kept session: a listening connection that died silently (no
//   FIN, a network partition) is noticed only by TCP keepalive, and until then a session revoked
//   elsewhere is accepted here for at most that long.
// - Expiry is unchanged: the identity service checks expiresAtMs against its clock on every request.

import type { IdentityStore } from "../identity.js";
import { KeptSessions } from "../kept-sessions.js";

/** The longest a session is kept, whatever the node hears: the bound if its listener dies silently. */
export const defaultSessionCacheMs = 1_000;

export interface SessionCacheOptions {
  readonly sessionCacheMs?: number;
  readonly nowMs?: () => number;
}

export interface SessionCache {
  /** The same store, with findSession answered from memory while that is exact (see above). */
  readonly identity: IdentityStore;
  /** Another node revoked or evicted sessions of this user: its kept sessions are forgotten. */
  forgetUser(userId: number): void;
  /**
   * Whether every other node's revocation reaches forgetUser (the listening connection is up). At
   * first it does not, and nothing is kept until it does; every change drops everything kept.
   */
  hearOtherNodes(hearing: boolean): void;
}

export function cacheSessions(store: IdentityStore, options: SessionCacheOptions = {}): SessionCache {
  const sessionCacheMs = options.sessionCacheMs ?? defaultSessionCacheMs;
  const nowMs = options.nowMs ?? Date.now;
  const kept = new KeptSessions();
  let hearing = false;
  // Bumped by every revocation, new session or change of hearing: a read that overlapped one is
  // answered but not kept, since it may have seen the row from before the change.
  let changes = 0;
  const forgetUser = (userId: number) => {
    changes += 1;
    kept.forgetUser(userId);
  };

  const identity: IdentityStore = {
    createPartner: (partner) => store.createPartner(partner),
    findPartnerById: (partnerId) => store.findPartnerById(partnerId),
    findPartnerByAppKey: (appKey) => store.findPartnerByAppKey(appKey),
    findPartnerByName: (name) => store.findPartnerByName(name),
    findPartnerByApiKeySha256: (sha256) => store.findPartnerByApiKeySha256(sha256),
    updatePartnerSettings: (partnerId, update) => store.updatePartnerSettings(partnerId, update),
    registerUser: (input) => store.registerUser(input),
    findUserById: (userId) => store.findUserById(userId),
    async createSession(session, sessionsPerUserMax) {
      // The store may drop the user's oldest live sessions: none of them may be answered from here.
      forgetUser(session.userId);
      try {
        await store.createSession(session, sessionsPerUserMax);
      } finally {
        forgetUser(session.userId);
      }
    },
    findSession(tokenSha256) {
      const now = nowMs();
      const entry = kept.get(tokenSha256);
      if (entry !== undefined && now - entry.keptAtMs < sessionCacheMs) return entry.session;
      const changesBefore = changes;
      return (async () => {
        const session = await store.findSession(tokenSha256);
        if (session !== undefined && hearing && changes === changesBefore) kept.keep(session, now);
        else kept.forget(tokenSha256);
        return session;
      })();
    },
    async revokeUserSessions(userId, atMs) {
      forgetUser(userId);
      try {
        return await store.revokeUserSessions(userId, atMs);
      } finally {
        forgetUser(userId);
      }
    },
  };

  return {
    identity,
    forgetUser,
    hearOtherNodes(nowHearing) {
      // Lost: a revocation may go unheard from now on. Regained: one may have gone unheard before.
      hearing = nowHearing;
      changes += 1;
      kept.clear();
    },
  };
}
