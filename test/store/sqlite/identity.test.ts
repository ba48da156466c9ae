import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IdentityStore, PartnerRecord } from "../../../src/store/identity.js";
import { openDatabase } from "../../../src/store/sqlite/database.js";
import { createSqliteIdentityStore } from "../../../src/store/sqlite/identity.js";

async function storeWithPartner(): Promise<{ store: IdentityStore; partner: PartnerRecord }> {
  const store = createSqliteIdentityStore(openDatabase({ path: ":memory:" }));
  const partner = await store.createPartner({
    name: "p",
    appKey: "app",
    appSecretSealed: "sealed",
    apiKeySha256: "hash",
    rsaPublicKey: null,
    commissionRateBps: 0,
    webhookUrl: null,
    createdAtMs: 1,
  });
  return { store, partner };
}

describe("sqlite identity store", () => {
  it("finds partners by id, APP Key and name", async () => {
    const { store, partner } = await storeWithPartner();
    assert.deepEqual(await store.findPartnerByAppKey("app"), partner);
    assert.deepEqual(await store.findPartnerById(partner.partnerId), partner);
    assert.deepEqual(await store.findPartnerByName("p"), partner);
    assert.equal(await store.findPartnerByAppKey("nope"), undefined);
  });

  it("registers a user once per (partner, marchantUserId) and names it after its id", async () => {
    const { store, partner } = await storeWithPartner();
    const input = {
      partnerId: partner.partnerId,
      marchantUserId: "m",
      email: "a@x",
      avatarUrl: "u",
      nowMs: 5,
    };
    const first = await store.registerUser(input);
    assert.equal(first.userName, `user${first.userId}`);
    const second = await store.registerUser({ ...input, email: "b@x", nowMs: 9 });
    assert.equal(second.userId, first.userId);
    assert.equal(second.email, "b@x");
    assert.equal(second.createdAtMs, 5);
  });

  it("keeps at most the newest sessions of a user and drops dead ones", async () => {
    const { store, partner } = await storeWithPartner();
    const user = await store.registerUser({
      partnerId: partner.partnerId,
      marchantUserId: "m",
      email: "a@x",
      avatarUrl: "u",
      nowMs: 0,
    });
    for (let index = 0; index < 4; index += 1) {
      await store.createSession(
        {
          tokenSha256: `t${index}`,
          userId: user.userId,
          partnerId: partner.partnerId,
          createdAtMs: index,
          expiresAtMs: 100,
        },
        2,
      );
    }
    assert.equal(await store.findSession("t0"), undefined);
    assert.equal(await store.findSession("t1"), undefined);
    assert.ok(await store.findSession("t3"));

    assert.equal(await store.revokeUserSessions(user.userId, 50), 2);
    assert.equal((await store.findSession("t3"))?.revokedAtMs, 50);
    assert.equal(await store.revokeUserSessions(user.userId, 51), 0, "already revoked");
  });

  it("never answers from its session cache after a prune or a revocation", async () => {
    const { store, partner } = await storeWithPartner();
    const user = await store.registerUser({
      partnerId: partner.partnerId,
      marchantUserId: "c",
      email: "c@x",
      avatarUrl: "u",
      nowMs: 0,
    });
    const session = (index: number) => ({
      tokenSha256: `c${index}`,
      userId: user.userId,
      partnerId: partner.partnerId,
      createdAtMs: index,
      expiresAtMs: 100,
    });
    await store.createSession(session(0), 1);
    assert.ok(await store.findSession("c0"), "looked up once, so now cached");
    await store.createSession(session(1), 1);
    assert.equal(await store.findSession("c0"), undefined, "pruned as the oldest beyond the limit");
    assert.equal((await store.findSession("c1"))?.revokedAtMs, null);
    await store.revokeUserSessions(user.userId, 7);
    assert.equal((await store.findSession("c1"))?.revokedAtMs, 7);
  });
});
