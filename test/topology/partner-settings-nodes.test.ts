// Issue #27 defect 2 on several API nodes: the operator's requirement of a signed nonce
// (POST /admin/partners/{merchantId} {"signedNonceRequired": …}) is a row of the partner in
// PostgreSQL, and every node applies it: the node that changed it from its next request, every
// other within about a second (its copy of the partner is read again in the background,
// src/identity/service.ts partnerRefreshMs). Two all-in-one platforms on one database, sharing the
// master key as a deployment's nodes do, driven through the SDK.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexApiError } from "../../src/sdk/errors.js";
import {
  type PartnerCredentials,
  startTestPlatform,
  type TestPlatform,
  testMasterKeyHex,
} from "../e2e/harness.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();
const nonceMissing = "unauthorized: Missing signed X-CA-NONCE header";

/** "served", or "refused" when the gateway asked for a signed nonce; anything else fails the test. */
async function outcome(call: Promise<unknown>): Promise<"served" | "refused"> {
  try {
    await call;
    return "served";
  } catch (error) {
    assert.ok(error instanceof PredexApiError, String(error));
    assert.deepEqual([error.status, error.code, error.message], [401, 1401, nonceMissing]);
    return "refused";
  }
}

describe("the signed-nonce requirement on two API nodes sharing PostgreSQL", { skip: skipReason }, () => {
  let cluster: PostgresCluster;
  let nodeA: TestPlatform;
  let nodeB: TestPlatform;

  before(async () => {
    cluster = await startPostgresCluster();
    const env = {
      PREDEX_DATABASE_URL: await cluster.createDatabase("partnersettings"),
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

  /** A registration without a nonce on `node`: a mutating request. */
  const registerWithoutNonce = (node: TestPlatform, partner: PartnerCredentials, marchantUserId: string) =>
    node.client(partner, { nonces: false }).register({
      userEmail: `${marchantUserId}@example.com`,
      merchantId: partner.merchantId,
      marchantUserId,
    });

  it("is applied by every node once the operator sets it on one, and lifted the same way", async () => {
    const partner = await nodeA.createPartner();
    // Node B has the partner in its cache before the change, as a busy node would.
    assert.equal(await outcome(registerWithoutNonce(nodeB, partner, "before")), "served");

    const operatorA = new PredexAdminClient({
      baseUrl: nodeA.addresses.admin,
      token: nodeA.platform.adminToken,
    });
    await operatorA.updatePartner(partner.merchantId, { signedNonceRequired: true });
    assert.equal(await outcome(registerWithoutNonce(nodeA, partner, "on-a")), "refused", "node A at once");
    await waitUntil(async () => (await outcome(registerWithoutNonce(nodeB, partner, "on-b"))) === "refused");
    // Node B reads the same row: its admin API shows the setting, and a signed nonce is served.
    const operatorB = new PredexAdminClient({
      baseUrl: nodeB.addresses.admin,
      token: nodeB.platform.adminToken,
    });
    assert.equal((await operatorB.getPartner(partner.merchantId)).signedNonceRequired, true);
    await nodeB
      .client(partner)
      .register({ userEmail: "n@example.com", merchantId: partner.merchantId, marchantUserId: "n" });

    await operatorB.updatePartner(partner.merchantId, { signedNonceRequired: false });
    assert.equal(await outcome(registerWithoutNonce(nodeB, partner, "off-b")), "served", "node B at once");
    await waitUntil(async () => (await outcome(registerWithoutNonce(nodeA, partner, "off-a"))) === "served");
  });
});
