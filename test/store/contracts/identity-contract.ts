// The IdentityStore contract, run against every adapter (SQLite: test/store/sqlite/identity.test.ts;
// PostgreSQL: test/store/postgres-services.test.ts). Nothing here knows which adapter it tests.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IdentityStore, PartnerRecord } from "../../../src/store/identity.js";

export interface IdentityHarness {
  /** A new, empty store. */
  create(): Promise<IdentityStore>;
}

export function describeIdentityStoreContract(adapterName: string, harness: IdentityHarness): void {
  async function storeWithPartner(): Promise<{ store: IdentityStore; partner: PartnerRecord }> {
    const store = await harness.create();
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

  describe(`IdentityStore contract: ${adapterName}`, { concurrency: false }, () => {
    it("finds partners by id, APP Key and name", async () => {
      const { store, partner } = await storeWithPartner();
      assert.deepEqual(await store.findPartnerByAppKey("app"), partner);
      assert.deepEqual(await store.findPartnerById(partner.partnerId), partner);
      assert.deepEqual(await store.findPartnerByName("p"), partner);
      assert.equal(await store.findPartnerByAppKey("nope"), undefined);
    });

    it("keeps a partner's signed-nonce requirement: off at creation, changed only when given", async () => {
      const { store, partner } = await storeWithPartner();
      assert.equal(partner.signedNonceRequired, false);
      const required = await store.updatePartnerSettings(partner.partnerId, { signedNonceRequired: true });
      assert.deepEqual(required, { ...partner, signedNonceRequired: true });
      assert.equal((await store.findPartnerByAppKey("app"))?.signedNonceRequired, true);
      assert.equal((await store.findPartnerByApiKeySha256("hash"))?.signedNonceRequired, true);
      assert.deepEqual(await store.updatePartnerSettings(partner.partnerId, {}), required, "nothing given");
      assert.equal(
        (await store.updatePartnerSettings(partner.partnerId, { signedNonceRequired: false }))
          ?.signedNonceRequired,
        false,
      );
      assert.equal(
        await store.updatePartnerSettings(partner.partnerId + 1000, { signedNonceRequired: true }),
        undefined,
      );
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

    it("finds a partner by API key hash and keeps every field", async () => {
      const store = await harness.create();
      const partner = await store.createPartner({
        name: "full",
        appKey: "k2",
        appSecretSealed: "s2",
        apiKeySha256: "h2",
        rsaPublicKey: "-----BEGIN PUBLIC KEY-----",
        commissionRateBps: 125,
        webhookUrl: "http://127.0.0.1:1/hook",
        createdAtMs: 1_700_000_000_123,
      });
      assert.deepEqual(await store.findPartnerByApiKeySha256("h2"), partner);
      assert.equal(partner.commissionRateBps, 125);
      assert.equal(partner.createdAtMs, 1_700_000_000_123);
      assert.equal(await store.findPartnerByApiKeySha256("nope"), undefined);
      assert.equal(await store.findPartnerById(partner.partnerId + 1000), undefined);
      await assert.rejects(
        store.createPartner({ ...partner, name: "other", appKey: "k2", apiKeySha256: "h3" }),
        "an APP Key is unique",
      );
    });

    it("keeps the e-mail when a later registration gives none, and gives a new user an empty one", async () => {
      const { store, partner } = await storeWithPartner();
      const input = { partnerId: partner.partnerId, marchantUserId: "n", avatarUrl: "", nowMs: 3 };
      const fresh = await store.registerUser({ ...input, email: null });
      assert.equal(fresh.email, "");
      await store.registerUser({ ...input, email: "x@y" });
      const again = await store.registerUser({ ...input, email: null });
      assert.equal(again.email, "x@y");
      assert.deepEqual(await store.findUserById(fresh.userId), again);
      assert.equal(await store.findUserById(fresh.userId + 1000), undefined);
    });

    it("registers one user when the same merchant user arrives many times at once", async () => {
      const { store, partner } = await storeWithPartner();
      const users = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          store.registerUser({
            partnerId: partner.partnerId,
            marchantUserId: "race",
            email: `r${index}@x`,
            avatarUrl: "",
            nowMs: index,
          }),
        ),
      );
      assert.equal(new Set(users.map((user) => user.userId)).size, 1);
    });

    it("counts only live sessions as revoked, and an expired session is not live", async () => {
      const { store, partner } = await storeWithPartner();
      const user = await store.registerUser({
        partnerId: partner.partnerId,
        marchantUserId: "e",
        email: "e@x",
        avatarUrl: "",
        nowMs: 0,
      });
      const base = { userId: user.userId, partnerId: partner.partnerId, createdAtMs: 0 };
      await store.createSession({ ...base, tokenSha256: "short", expiresAtMs: 10 }, 5);
      await store.createSession({ ...base, tokenSha256: "long", expiresAtMs: 1_000 }, 5);
      assert.deepEqual(await store.findSession("short"), {
        ...base,
        tokenSha256: "short",
        expiresAtMs: 10,
        revokedAtMs: null,
      });
      assert.equal(await store.revokeUserSessions(user.userId, 20), 1);
      assert.equal((await store.findSession("short"))?.revokedAtMs, null, "expired, not revoked");
      assert.equal((await store.findSession("long"))?.revokedAtMs, 20);
    });
  });
}
