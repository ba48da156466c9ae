// The SQLite commission projector keeps each user's partner across projection steps (a user's
// partner never changes) and reads partners' rates once a step; a user it did not find is looked up
// again in later steps (the user may be registered after trading under an id the engine knew).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ExchangeCommand } from "../../src/core/commands.js";
import type { ExchangeEvent } from "../../src/core/events.js";
import type { JournalEntry } from "../../src/engine/store.js";
import { openDatabase, type SqliteDatabase } from "../../src/store/sqlite/database.js";
import { createSqliteIdentityStore } from "../../src/store/sqlite/identity.js";
import {
  createSqliteCommissionProjector,
  createSqliteMerchantCommissions,
} from "../../src/store/sqlite/merchant-commissions.js";

const atMs = Date.UTC(2027, 2, 10);

/** A journal entry holding one trade; the projector reads only the fee fields of it. */
function tradeEntry(sequence: bigint, makerUserId: number, takerUserId: number, fee: bigint) {
  const event = { type: "TradeExecuted", makerUserId, takerUserId, makerFee: fee, takerFee: fee, atMs };
  return {
    sequence,
    nowMs: atMs,
    command: { type: "ExpireOrders" },
    events: [event],
  } as unknown as JournalEntry<ExchangeCommand, ExchangeEvent>;
}

async function setUp(db: SqliteDatabase) {
  const identity = createSqliteIdentityStore(db);
  const partner = await identity.createPartner({
    name: "p",
    appKey: "key-p",
    appSecretSealed: "sealed",
    apiKeySha256: "sha-p",
    rsaPublicKey: null,
    commissionRateBps: 5_000,
    webhookUrl: null,
    createdAtMs: 0,
  });
  const register = async (name: string) =>
    (
      await identity.registerUser({
        partnerId: partner.partnerId,
        marchantUserId: name,
        email: `${name}@example.com`,
        avatarUrl: "",
        nowMs: 0,
      })
    ).userId;
  return { partnerId: partner.partnerId, register };
}

describe("SQLite commission projector: partners kept across steps", () => {
  it("reads a user's partner once: a later step does not look it up again", async () => {
    const db = openDatabase({ path: ":memory:" });
    const { partnerId, register } = await setUp(db);
    const alice = await register("alice");
    const bob = await register("bob");
    const project = createSqliteCommissionProjector(db);
    project(db, [tradeEntry(1n, alice, bob, 100n)]);
    // Were the partner read again, these users would no longer accrue (their rows are gone).
    db.prepare("DELETE FROM identity_users WHERE user_id IN (?, ?)").run(alice, bob);
    project(db, [tradeEntry(2n, alice, bob, 10n)]);
    const commission = await createSqliteMerchantCommissions(db).commission(partnerId, "202703");
    assert.equal(commission.feeTotal, 220n);
    assert.equal(commission.commissionTotal, 110n);
    db.close();
  });

  it("does not keep a user it did not find: once registered, the user accrues", async () => {
    const db = openDatabase({ path: ":memory:" });
    const { partnerId, register } = await setUp(db);
    const alice = await register("alice");
    const notYet = alice + 1;
    const project = createSqliteCommissionProjector(db);
    project(db, [tradeEntry(1n, alice, notYet, 100n)]);
    const commissions = createSqliteMerchantCommissions(db);
    assert.equal((await commissions.commission(partnerId, "202703")).feeTotal, 100n);
    assert.equal(await register("late"), notYet);
    project(db, [tradeEntry(2n, alice, notYet, 10n)]);
    assert.equal((await commissions.commission(partnerId, "202703")).feeTotal, 120n);
    db.close();
  });

  it("reads the partners' rates afresh every step", async () => {
    const db = openDatabase({ path: ":memory:" });
    const { partnerId, register } = await setUp(db);
    const alice = await register("alice");
    const bob = await register("bob");
    const project = createSqliteCommissionProjector(db);
    project(db, [tradeEntry(1n, alice, bob, 100n)]);
    db.prepare("UPDATE identity_partners SET commission_rate_bps = 1000 WHERE partner_id = ?").run(partnerId);
    project(db, [tradeEntry(2n, alice, bob, 100n)]);
    const commission = await createSqliteMerchantCommissions(db).commission(partnerId, "202703");
    assert.deepEqual(commission.byRate, [
      { rateBps: 1_000, feeTotal: 200n, commissionTotal: 20n },
      { rateBps: 5_000, feeTotal: 200n, commissionTotal: 100n },
    ]);
    db.close();
  });
});
