// Spec 001's 5002: the creator of a market proposes its result, so it may not trade on it. The
// refusal comes at submit time (403, errorCode 5002) and nothing is queued; any other user trades.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LegacyClient } from "../../src/sdk/legacy/client.js";
import { LegacyApiError } from "../../src/sdk/legacy/errors.js";
import { type LegacyPlatform, type Merchant, startLegacyPlatform } from "../legacy/fixtures.js";

let platform: LegacyPlatform;
let merchant: Merchant;
let creator: LegacyClient;
let trader: LegacyClient;

before(async () => {
  platform = await startLegacyPlatform();
  merchant = await platform.createMerchant();
  creator = await platform.fundedLegacyUser(merchant, "50");
  trader = await platform.fundedLegacyUser(merchant, "50");
});
after(() => platform.close());

describe("POST /api/order/openapi/order/submit by a market's creator", () => {
  it("is refused with 403 and errorCode 5002, while another user's order is queued", async () => {
    const market = await platform.openMarket({
      title: "Will the creator's own market refuse its orders?",
      creatorId: String(creator.userId),
    });
    const order = {
      marketId: Number(market.marketId),
      outcomeId: Number(market.outcomeId),
      optionId: Number(market.yes),
      direction: "BUY",
      orderType: "LIMIT",
      price: 0.4,
      amount: 4,
    } as const;

    const refused = await creator.submitOrder(order).then(
      () => assert.fail("the creator's order was accepted"),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof LegacyApiError, String(refused));
    assert.equal(refused.status, 403);
    assert.equal(refused.errorCode, 5002);
    assert.equal(refused.msg, "Market creator is not allowed to place orders");

    const accepted = await trader.submitOrder(order);
    assert.equal((await trader.waitForResult(accepted)).status, "SUCCESS");
  });
});
