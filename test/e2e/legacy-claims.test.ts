// Legacy claim by marketId (spec 001 step 10): every status of its table, through the legacy SDK
// client, after trading on the legacy interface and the operator's settlement.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LegacyClient } from "../../src/sdk/legacy/client.js";
import type { BinaryMarket } from "../e2e/trading-fixtures.js";
import {
  type LegacyPlatform,
  type Merchant,
  mintPairs,
  refusal,
  startLegacyPlatform,
} from "../legacy/fixtures.js";

let platform: LegacyPlatform;
let merchant: Merchant;
before(async () => {
  platform = await startLegacyPlatform();
  merchant = await platform.createMerchant();
});
after(() => platform.close());

/** Yes buyer and No buyer mint 10 pairs at 0.6 / 0.4. */
async function tradedMarket(): Promise<{ market: BinaryMarket; yes: LegacyClient; no: LegacyClient }> {
  const market = await platform.openMarket();
  const yes = await platform.fundedLegacyUser(merchant, "10");
  const no = await platform.fundedLegacyUser(merchant, "10");
  await mintPairs(market, yes, no, { price: 0.6, yesAmount: 6, noAmount: 4 });
  return { market, yes, no };
}

describe("POST /api/order/openapi/order/claim", () => {
  it("pays the winner, then answers 4025 to a second claim; the loser has nothing to claim (404)", async () => {
    const { market, yes, no } = await tradedMarket();
    // Not settled yet: 422.
    assert.deepEqual(await refusal(yes.claim(Number(market.marketId))), [
      422,
      4017,
      "The current market status does not allow this operation",
    ]);
    await platform.operator.closeMarket(market.marketId);
    await platform.operator.resolveMarket(market.marketId, {
      outcomes: [{ outcomeId: market.outcomeId, winningOptionId: market.yes }],
    });
    await platform.operator.finalizeMarket(market.marketId);

    const claimed = await yes.claim(Number(market.marketId));
    assert.equal(claimed.claimedAmount, 10);
    assert.match(claimed.transactionId, /^\d+$/);
    assert.deepEqual(await refusal(yes.claim(Number(market.marketId))), [
      422,
      4025,
      "market is claimed or in claiming",
    ]);
    assert.deepEqual(await refusal(no.claim(Number(market.marketId))), [404, 404, "No claimable rewards"]);
  });

  it("answers an unknown market with 404 3009 and a malformed body with 400", async () => {
    const client = await platform.fundedLegacyUser(merchant, "0");
    assert.deepEqual(await refusal(client.claim(999_999)), [404, 3009, "market does not exist"]);
    const malformed = await platform.raw("legacy", {
      method: "POST",
      path: "/api/order/openapi/order/claim",
      headers: { authorization: `Bearer ${client.token}`, "content-type": "application/json" },
      body: JSON.stringify({ marketId: "1" }),
    });
    assert.equal(malformed.status, 400);
    const anonymous = await platform.raw("legacy", {
      method: "POST",
      path: "/api/order/openapi/order/claim",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ marketId: 1 }),
    });
    assert.equal(anonymous.status, 401);
  });
});
