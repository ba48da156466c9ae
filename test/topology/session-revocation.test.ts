// Session revocation across two platforms on one PostgreSQL database (issue #16, "shared state
// across nodes"), end to end: a user's session cookie works on both nodes' gateways; once an
// operator revokes the user's sessions on node A (POST /admin/users/:id/revoke-sessions), or new
// logins on node A evict the oldest session beyond the per-user max, node B refuses that cookie
// although it had just answered from it and keeps found sessions (src/store/postgres/
// session-revocations.ts: B hears A's NOTIFY at the commit). Node B's API clock stands still while
// it holds the session, so its kept copy never grows old: only the notification can make B refuse.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sessionsPerUserMax } from "../../src/identity/service.js";
import { PredexApiError } from "../../src/sdk/errors.js";
import { startTestPlatform, type TestPlatform, testMasterKeyHex } from "../e2e/harness.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();
const invalidSession = "unauthorized: Invalid or expired session";
/** How long node B may take to hear node A's commit (milliseconds in practice). */
const hearWithinMs = 5_000;

/** The call's answer: the session's user, or "refused" (1401). */
async function sessionUser(call: Promise<{ userId: string }>): Promise<string> {
  try {
    return (await call).userId;
  } catch (error) {
    assert.ok(error instanceof PredexApiError, String(error));
    assert.deepEqual([error.status, error.code, error.message], [401, 1401, invalidSession]);
    return "refused";
  }
}

/** Asks until the call is refused, for at most hearWithinMs. */
async function refusedSoon(call: () => Promise<{ userId: string }>, what: string): Promise<void> {
  await waitUntil(async () => (await sessionUser(call())) === "refused", {
    what: `refused: ${what}`,
    timeoutMs: hearWithinMs,
    intervalMs: 10,
  });
}

describe("session revocation across two platforms on one PostgreSQL database", { skip: skipReason }, () => {
  let cluster: PostgresCluster;
  let nodeA: TestPlatform;
  let nodeB: TestPlatform;
  /** Node B's API clock: the time it stands still at, or undefined when it runs. */
  let clockOfBStoppedAt: number | undefined;

  before(async () => {
    cluster = await startPostgresCluster();
    // Two all-in-one nodes on one database, sharing the master key (partners' secrets) as a
    // deployment's nodes do.
    const env = {
      PREDEX_DATABASE_URL: await cluster.createDatabase("revocation"),
      PREDEX_MASTER_KEY: testMasterKeyHex,
    };
    nodeA = await startTestPlatform({ env });
    nodeB = await startTestPlatform({ env, platform: { nowMs: () => clockOfBStoppedAt ?? Date.now() } });
  });
  after(async () => {
    await nodeB?.close();
    await nodeA?.close();
    await cluster?.stop();
  });

  /**
   * A user registered on node A, and clients of each node's gateway holding just that session's
   * cookie (no registration of their own, so the SDK cannot renew a refused session).
   */
  const userOnBothNodes = async (marchantUserId: string) => {
    const registered = await nodeA.registeredUser({ marchantUserId });
    const holding = (node: TestPlatform, cookie: string | undefined) => {
      const client = node.client(registered.partner);
      client.sessionCookie = cookie;
      return client;
    };
    const cookie = registered.client.sessionCookie;
    return { ...registered, holding, onA: holding(nodeA, cookie), onB: holding(nodeB, cookie) };
  };

  it("refuses on node B a session node A's operator revoked, as soon as B hears of it", async () => {
    const { user, onA, onB } = await userOnBothNodes("revoked");
    clockOfBStoppedAt = Date.now();
    try {
      assert.equal(await sessionUser(onB.getProfile()), user.userId, "B accepts the session (and keeps it)");
      assert.equal(await sessionUser(onB.getProfile()), user.userId);
      await nodeA.revokeSessions(user.userId);
      await refusedSoon(() => onB.getProfile(), "B after A's revocation");
      assert.equal(await sessionUser(onA.getProfile()), "refused");
    } finally {
      clockOfBStoppedAt = undefined;
    }
  });

  it("refuses on node B a session that logins on node A evicted, as soon as B hears of it", async () => {
    const { client, user, partner, holding, onB } = await userOnBothNodes("evicted");
    const first = client.sessionCookie;
    clockOfBStoppedAt = Date.now();
    try {
      assert.equal(
        await sessionUser(onB.getProfile()),
        user.userId,
        "B accepts the first session (and keeps it)",
      );
      // Each registration is a new session; the last one makes sessionsPerUserMax + 1.
      for (let login = 0; login < sessionsPerUserMax; login += 1) {
        await client.register({
          userEmail: "evicted@example.com",
          merchantId: partner.merchantId,
          marchantUserId: "evicted",
        });
      }
      assert.notEqual(client.sessionCookie, first);
      await refusedSoon(() => onB.getProfile(), "B after A's logins evicted the session");
      const latest = holding(nodeB, client.sessionCookie);
      assert.equal(await sessionUser(latest.getProfile()), user.userId, "the newest session works on B");
    } finally {
      clockOfBStoppedAt = undefined;
    }
  });
});
