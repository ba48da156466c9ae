// Session revocation across two platforms on one PostgreSQL database (issue #16, "shared state
// across nodes"), end to end: a user's session cookie works on both nodes' gateways; once an
// operator revokes the user's sessions on node A (POST /admin/users/:id/revoke-sessions), or new
// logins on node A evict the oldest session beyond the per-user max, node B refuses that cookie on
// the very next request (1401), although B had just answered from it and keeps found sessions for a
// second (src/store/postgres/session-revocations.ts: B heard A's NOTIFY at the commit).

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

const skipReason = postgresSkipReason();
const invalidSession = "unauthorized: Invalid or expired session";

async function refused(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => assert.fail("expected the session to be refused"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof PredexApiError, String(error));
  assert.deepEqual([error.status, error.code, error.message], [401, 1401, invalidSession]);
}

describe("session revocation across two platforms on one PostgreSQL database", { skip: skipReason }, () => {
  let cluster: PostgresCluster;
  let nodeA: TestPlatform;
  let nodeB: TestPlatform;

  before(async () => {
    cluster = await startPostgresCluster();
    // Two all-in-one nodes on one database, sharing the master key (partners' secrets) as a
    // deployment's nodes do.
    const env = {
      PREDEX_DATABASE_URL: await cluster.createDatabase("revocation"),
      PREDEX_MASTER_KEY: testMasterKeyHex,
    };
    nodeA = await startTestPlatform({ env });
    nodeB = await startTestPlatform({ env });
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

  it("refuses on node B, at the next request, a session node A's operator revoked", async () => {
    const { user, onA, onB } = await userOnBothNodes("revoked");
    assert.equal((await onB.getProfile()).userId, user.userId, "B accepts the session (and keeps it)");
    assert.equal((await onB.getProfile()).userId, user.userId);
    await nodeA.revokeSessions(user.userId);
    await refused(onB.getProfile());
    await refused(onA.getProfile());
  });

  it("refuses on node B, at the next request, a session that logins on node A evicted", async () => {
    const { client, user, partner, holding, onB } = await userOnBothNodes("evicted");
    const first = client.sessionCookie;
    assert.equal((await onB.getProfile()).userId, user.userId, "B accepts the first session (and keeps it)");
    // Each registration is a new session; the last one makes sessionsPerUserMax + 1.
    for (let login = 0; login < sessionsPerUserMax; login += 1) {
      await client.register({
        userEmail: "evicted@example.com",
        merchantId: partner.merchantId,
        marchantUserId: "evicted",
      });
    }
    assert.notEqual(client.sessionCookie, first);
    await refused(onB.getProfile());
    const latest = holding(nodeB, client.sessionCookie);
    assert.equal((await latest.getProfile()).userId, user.userId, "the newest session works on B");
  });
});
