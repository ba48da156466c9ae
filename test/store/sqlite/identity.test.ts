// The IdentityStore contract on SQLite (the suite itself: test/store/contracts/identity-contract.ts).

import assert from "node:assert/strict";
import { it } from "node:test";
import { openDatabase } from "../../../src/store/sqlite/database.js";
import { createSqliteIdentityStore } from "../../../src/store/sqlite/identity.js";
import { describeIdentityStoreContract } from "../contracts/identity-contract.js";

describeIdentityStoreContract("sqlite", {
  async create() {
    return createSqliteIdentityStore(openDatabase({ path: ":memory:" }));
  },
});

it("answers a kept session without a promise (every user-scoped request asks)", async () => {
  const store = createSqliteIdentityStore(openDatabase({ path: ":memory:" }));
  const partner = await store.createPartner({
    name: "p",
    appKey: "app-p",
    appSecretSealed: "sealed",
    apiKeySha256: "hash-p",
    rsaPublicKey: null,
    commissionRateBps: 0,
    webhookUrl: null,
    createdAtMs: 0,
  });
  const user = await store.registerUser({
    partnerId: partner.partnerId,
    marchantUserId: "u",
    email: "u@x",
    avatarUrl: "a",
    nowMs: 0,
  });
  const session = {
    tokenSha256: "t",
    userId: user.userId,
    partnerId: partner.partnerId,
    createdAtMs: 0,
    expiresAtMs: 9,
  };
  await store.createSession(session, 5);
  assert.equal(store.findSession("unknown"), undefined);
  const found = store.findSession("t");
  assert.ok(!(found instanceof Promise) && found?.userId === user.userId);
});
