// Legacy reads that name a merchant or a user (spec 001): one that is not the token's is answered
// as missing, with the operation's not-found answer, never 403 (DESIGN §8, legacy interface):
// spec 001 lists no 403 for these reads, and another merchant's existence is not revealed, so
// another merchant's id and an id no merchant has get the very same answer.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LegacyClient } from "../../src/sdk/legacy/client.js";
import { type LegacyPlatform, type Merchant, refusal, startLegacyPlatform } from "../legacy/fixtures.js";

let platform: LegacyPlatform;
let mine: Merchant;
let theirs: Merchant;
let client: LegacyClient;
before(async () => {
  platform = await startLegacyPlatform();
  mine = await platform.createMerchant();
  theirs = await platform.createMerchant();
  client = platform.legacyClient(mine);
  await client.authorize();
});
after(() => platform.close());

const unknownMerchantId = 987_654_321;
const period = Number(new Date().toISOString().slice(0, 7).replace("-", ""));

describe("another merchant's id on the legacy merchant reads", () => {
  it("bill detail: 404/3005 User not found, exactly as for a merchant that does not exist", async () => {
    const theirUser = platform.legacyClient(theirs, { marchantUserId: "their-user" });
    await theirUser.authorize();
    const foreign = await refusal(
      client.getBillDetail({ merchantId: Number(theirs.merchantId), merchantUserId: "their-user" }),
    );
    assert.deepEqual(foreign, [404, 3005, "User not found"]);
    const unknown = await refusal(
      client.getBillDetail({ merchantId: unknownMerchantId, merchantUserId: "their-user" }),
    );
    assert.deepEqual(unknown, foreign);
  });

  it("monthly bill: 404, exactly as for a merchant that does not exist", async () => {
    const foreign = await refusal(
      client.getMonthlyBill({ billPeriod: period, merchantId: Number(theirs.merchantId) }),
    );
    assert.equal(foreign[0], 404);
    const unknown = await refusal(
      client.getMonthlyBill({ billPeriod: period, merchantId: unknownMerchantId }),
    );
    assert.deepEqual(unknown, foreign);
  });

  it("notification list: another user's id is 404, as a user that does not exist", async () => {
    const other = platform.legacyClient(mine);
    const { userId } = await other.authorize();
    const foreign = await refusal(client.getNotifications({ userId }));
    assert.equal(foreign[0], 404);
    assert.deepEqual(await refusal(client.getNotifications({ userId: 987_654_321 })), foreign);
  });
});
