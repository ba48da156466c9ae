// Session revocation across PostgreSQL nodes (src/store/postgres/session-revocations.ts): two nodes,
// each its own pool, identity store, session cache and listening connection, over one database. The
// caches keep sessions for 60 s here, so only the NOTIFY path can make a node refuse, within the
// tests' waits, a session revoked or evicted on the other. While a node's listening connection is
// down it keeps nothing, and once it listens again it keeps and hears again.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import pg from "pg";
import type { IdentityStore } from "../../src/store/identity.js";
import type { PostgresPool } from "../../src/store/postgres/database.js";
import { openPostgresIdentityStore, sessionsChangedChannel } from "../../src/store/postgres/identity.js";
import {
  openPostgresSessionCache,
  type PostgresSessionCache,
  type PostgresSessionCacheOptions,
} from "../../src/store/postgres/session-revocations.js";
import { placeholderPartner } from "../support/identity-fixtures.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { postgresDatabases } from "../support/postgres-databases.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();

/** Far longer than any wait below: a test that passes did not pass by the cache's time running out. */
const sessionCacheMs = 60_000;
/** How long a node may take to hear the other's commit (milliseconds in practice). */
const hearWithinMs = 5_000;

if (skipReason !== undefined) {
  it("session revocation across PostgreSQL nodes", { skip: skipReason }, () => {});
} else {
  const databases = postgresDatabases("revocation");
  const caches: PostgresSessionCache[] = [];
  after(async () => {
    await Promise.all(caches.splice(0).map((cache) => cache.close()));
    await databases.close();
  });

  const openNode = async (pool: PostgresPool, options: PostgresSessionCacheOptions = {}) => {
    const cache = await openPostgresSessionCache(pool, await openPostgresIdentityStore(pool), {
      sessionCacheMs,
      reconnectDelayMs: 20,
      ...options,
    });
    caches.push(cache);
    return cache;
  };

  /** A new database with one partner and two users, and a pool per node on it. */
  const database = async () => {
    const url = await databases.fresh();
    const poolA = databases.pool(url, "predex-api-a");
    const poolB = databases.pool(url, "predex-api-b");
    const store = await openPostgresIdentityStore(poolA);
    const partner = await store.createPartner(placeholderPartner);
    const register = (marchantUserId: string) =>
      store.registerUser({
        partnerId: partner.partnerId,
        marchantUserId,
        email: "",
        avatarUrl: "",
        nowMs: 0,
      });
    const [user, otherUser] = [await register("u"), await register("v")];
    const createSession = (
      node: IdentityStore,
      token: string,
      userId: number,
      createdAtMs: number,
      max = 5,
    ) =>
      node.createSession(
        { tokenSha256: token, userId, partnerId: partner.partnerId, createdAtMs, expiresAtMs: 1e12 },
        max,
      );
    /**
     * Whether `node` answers `token` from memory: the row is changed straight in the database (no
     * NOTIFY, as nothing of predex's would) in a way the node would see if it read it.
     */
    const keptOn = async (node: IdentityStore, token: string) => {
      const changed = await poolA.query<{ expires_at_ms: bigint }>(
        "UPDATE identity_sessions SET expires_at_ms = expires_at_ms + 1 WHERE token_sha256 = $1 RETURNING expires_at_ms",
        [token],
      );
      const answered = await node.findSession(token);
      return answered?.expiresAtMs !== Number(changed.rows[0]?.expires_at_ms);
    };
    return { url, poolA, poolB, user, otherUser, createSession, keptOn };
  };

  describe("session revocation across PostgreSQL nodes", () => {
    it("a session kept on node B is refused there once node A revokes it, and only that user's", async () => {
      const { poolA, poolB, user, otherUser, createSession, keptOn } = await database();
      const [nodeA, nodeB] = [await openNode(poolA), await openNode(poolB)];
      assert.ok(nodeA.listening && nodeB.listening);
      await createSession(nodeA.identity, "t", user.userId, 1);
      await createSession(nodeA.identity, "o", otherUser.userId, 1);
      assert.equal((await nodeB.identity.findSession("t"))?.revokedAtMs, null);
      assert.equal((await nodeB.identity.findSession("o"))?.revokedAtMs, null);
      assert.ok(await keptOn(nodeB.identity, "t"), "B keeps the session it found");
      assert.ok(await keptOn(nodeB.identity, "o"));

      assert.equal(await nodeA.identity.revokeUserSessions(user.userId, 50), 1);
      await waitUntil(async () => (await nodeB.identity.findSession("t"))?.revokedAtMs === 50, {
        what: "B refuses the session A revoked",
        timeoutMs: hearWithinMs,
        intervalMs: 10,
      });
      assert.ok(await keptOn(nodeB.identity, "o"), "another user's session stays kept on B");
      // A notification that names no user (nothing of predex's sends one) drops everything kept.
      await poolA.query(`NOTIFY ${sessionsChangedChannel}, 'not a user'`);
      await waitUntil(async () => !(await keptOn(nodeB.identity, "o")), {
        what: "B drops all on a strange payload",
        timeoutMs: hearWithinMs,
        intervalMs: 10,
      });
    });

    it("a session kept on node B is refused there once a new session on node A evicts it", async () => {
      const { poolA, poolB, user, createSession, keptOn } = await database();
      const [nodeA, nodeB] = [await openNode(poolA), await openNode(poolB)];
      await createSession(nodeA.identity, "oldest", user.userId, 1, 2);
      await createSession(nodeA.identity, "older", user.userId, 2, 2);
      assert.notEqual(await nodeB.identity.findSession("oldest"), undefined);
      assert.notEqual(await nodeB.identity.findSession("older"), undefined);
      assert.ok(await keptOn(nodeB.identity, "oldest"));

      await createSession(nodeA.identity, "newest", user.userId, 3, 2);
      await waitUntil(async () => (await nodeB.identity.findSession("oldest")) === undefined, {
        what: "B refuses the session A's new login evicted",
        timeoutMs: hearWithinMs,
        intervalMs: 10,
      });
      assert.notEqual(await nodeB.identity.findSession("older"), undefined, "within the max: still live");
    });

    it("notifies exactly when live sessions end: once per statement, with the user's id", async () => {
      const { url, poolA, user, otherUser, createSession } = await database();
      const store = await openPostgresIdentityStore(poolA);
      const listener = new pg.Client({ connectionString: url });
      const heard: string[] = [];
      listener.on("notification", (message) => heard.push(message.payload ?? ""));
      await listener.connect();
      try {
        await listener.query(`LISTEN ${sessionsChangedChannel}`);
        await createSession(store, "a", user.userId, 1, 2);
        await createSession(store, "b", user.userId, 2, 2);
        await createSession(store, "c", user.userId, 3, 2); // evicts "a"
        await createSession(store, "x", otherUser.userId, 3, 2);
        assert.equal(await store.revokeUserSessions(user.userId, 10), 2);
        assert.equal(await store.revokeUserSessions(user.userId, 11), 0, "nothing live: nothing to tell");
        await createSession(store, "d", user.userId, 12, 2); // drops only revoked ones
        // Notifications of successive commits arrive in commit order: once this one is heard, every
        // earlier one has been.
        await poolA.query(`NOTIFY ${sessionsChangedChannel}, 'end'`);
        await waitUntil(() => heard.includes("end"), {
          what: "the last notification arrives",
          timeoutMs: hearWithinMs,
          intervalMs: 10,
        });
        const userId = String(user.userId);
        assert.deepEqual(heard, [userId, userId, "end"]);
      } finally {
        await listener.end();
      }
    });

    it("starts while its listening connection cannot be opened, keeping nothing until it listens", async () => {
      const { url, poolA, poolB, user, createSession, keptOn } = await database();
      const role = "predex_revocation_late_listener";
      await poolA.query(`CREATE ROLE ${role} NOLOGIN`);
      const listenUrl = new URL(url);
      listenUrl.username = role;
      const listenErrors: unknown[] = [];
      const nodeB = await openNode(poolB, {
        listenConnection: { ...poolB.options, connectionString: listenUrl.href },
        onListenError: (error) => listenErrors.push(error),
      });
      assert.equal(nodeB.listening, false);
      assert.ok(listenErrors.length >= 1, "the failed first attempt is reported");
      await createSession(nodeB.identity, "t", user.userId, 1);
      await nodeB.identity.findSession("t");
      assert.equal(await keptOn(nodeB.identity, "t"), false, "not listening: nothing kept");

      await poolA.query(`ALTER ROLE ${role} LOGIN`);
      await waitUntil(() => nodeB.listening, {
        what: "B listens once it can",
        timeoutMs: hearWithinMs,
        intervalMs: 10,
      });
      await nodeB.identity.findSession("t");
      assert.ok(await keptOn(nodeB.identity, "t"), "listening: kept");
    });

    it("keeps nothing while its listening connection is down, and keeps and hears again once it is back", async () => {
      const { url, poolA, poolB, user, otherUser, createSession, keptOn } = await database();
      // B listens as a role of its own, so the test can keep B from reconnecting while the pools work.
      const role = "predex_revocation_listener";
      await poolA.query(`CREATE ROLE ${role} LOGIN`);
      const listenUrl = new URL(url);
      listenUrl.username = role;
      const listenErrors: unknown[] = [];
      const nodeA = await openNode(poolA);
      const nodeB = await openNode(poolB, {
        listenConnection: { ...poolB.options, connectionString: listenUrl.href },
        onListenError: (error) => listenErrors.push(error),
      });
      const listenerBackends = async () =>
        (
          await poolA.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE usename = $1", [role])
        ).rows.map((row) => row.pid);
      assert.equal((await listenerBackends()).length, 1);
      await createSession(nodeA.identity, "t", user.userId, 1);
      await createSession(nodeA.identity, "o", otherUser.userId, 1);
      await nodeB.identity.findSession("t");
      await nodeB.identity.findSession("o");
      assert.ok(await keptOn(nodeB.identity, "t"));

      // The listening connection is dropped and cannot come back for now.
      await poolA.query(`ALTER ROLE ${role} NOLOGIN`);
      await poolA.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", [role]);
      await waitUntil(() => !nodeB.listening, {
        what: "B notices its listening connection is gone",
        timeoutMs: hearWithinMs,
        intervalMs: 10,
      });
      assert.ok(listenErrors.length >= 1, "the loss is reported");
      assert.equal(await keptOn(nodeB.identity, "o"), false, "what B kept is dropped");
      await nodeB.identity.findSession("t");
      assert.equal(await keptOn(nodeB.identity, "t"), false, "and nothing new is kept");
      assert.equal(await nodeA.identity.revokeUserSessions(user.userId, 50), 1);
      assert.equal((await nodeB.identity.findSession("t"))?.revokedAtMs, 50, "refused at once, unheard");
      await waitUntil(() => listenErrors.length >= 2, {
        what: "B keeps retrying",
        timeoutMs: hearWithinMs,
        intervalMs: 10,
      });
      assert.equal(nodeB.listening, false);

      // Back: B listens again, keeps again, and hears A's revocations again.
      await poolA.query(`ALTER ROLE ${role} LOGIN`);
      await waitUntil(() => nodeB.listening, {
        what: "B listens again",
        timeoutMs: hearWithinMs,
        intervalMs: 10,
      });
      await nodeB.identity.findSession("o");
      assert.ok(await keptOn(nodeB.identity, "o"), "kept again");
      assert.equal(await nodeA.identity.revokeUserSessions(otherUser.userId, 60), 1);
      await waitUntil(async () => (await nodeB.identity.findSession("o"))?.revokedAtMs === 60, {
        what: "B hears A's revocation after reconnecting",
        timeoutMs: hearWithinMs,
        intervalMs: 10,
      });

      await nodeB.close();
      await waitUntil(async () => (await listenerBackends()).length === 0, {
        what: "closing ends the listening connection",
        timeoutMs: hearWithinMs,
        intervalMs: 10,
      });
      assert.equal(nodeB.listening, false);
    });
  });
}
