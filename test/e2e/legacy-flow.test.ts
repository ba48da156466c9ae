// Spec 001's trading flow, steps 1–11, end to end through the legacy SDK client: authorize,
// categories, market list, outcome, submit, result, positions, activity, the operator settles
// (resolve + finalize through the admin API), claim, and the notification list shows it all.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type LegacyPlatform, type Merchant, startLegacyPlatform } from "../legacy/fixtures.js";

let platform: LegacyPlatform;
let merchant: Merchant;
before(async () => {
  platform = await startLegacyPlatform();
  merchant = await platform.createMerchant();
});
after(() => platform.close());

describe("the legacy trading flow (spec 001 steps 1–11)", () => {
  it("takes a user from authorize to a claimed settlement, and notifies it", async () => {
    const title = `Will the flow test pass ${process.pid}?`;
    const market = await platform.openMarket({ title, takerFee: 100 });
    const yes = platform.legacyClient(merchant);
    // 1. Authorize: a JWT for the merchant's user.
    const authorized = await yes.authorize();
    assert.equal(authorized.expiresIn, 86_400);
    assert.equal(typeof authorized.userId, "number");
    await platform.operator.deposit({
      userId: String(authorized.userId),
      amount: "100",
      txHash: `0xflow-${process.pid}-1`,
    });
    const no = await platform.fundedLegacyUser(merchant, "100");

    // 2. Categories, without credentials.
    const categories = await yes.getCategories();
    assert.ok(categories.some((category) => category.name === "Weather" && typeof category.id === "number"));

    // 3. The market list finds the market by keyword, with numeric ids and pagination beside data.
    const list = await yes.getMarketList({ keyword: "flow test pass", pageSize: 5 });
    assert.equal(list.current, 1);
    assert.equal(list.size, 5);
    const listed = list.records.find((record) => record.marketId === Number(market.marketId));
    assert.ok(listed, "the market is listed");
    assert.equal(listed.status, "open");
    assert.equal(listed.outcomes[0]!.options.length, 2);

    // 4. The outcome: details and prices.
    const detail = await yes.getMarketOutcome(Number(market.marketId));
    assert.equal(detail.title, title);
    assert.equal(detail.outcomes[0]!.outcomeId, Number(market.outcomeId));
    const [yesOption, noOption] = detail.outcomes[0]!.options;
    assert.equal(yesOption!.optionId, Number(market.yes));
    assert.equal(yesOption!.price, 0.5);

    // 5–6. Submit, then read the result: a resting bid and a taker that fills it.
    const order = {
      marketId: detail.marketId,
      outcomeId: detail.outcomes[0]!.outcomeId,
      direction: "BUY",
    } as const;
    const bid = await yes.submitOrder({
      ...order,
      optionId: yesOption!.optionId,
      orderType: "LIMIT",
      price: 0.6,
      amount: 6.06,
    });
    assert.equal((await yes.waitForResult(bid)).status, "SUCCESS");
    const take = await no.submitOrder({
      ...order,
      optionId: noOption!.optionId,
      orderType: "MARKET",
      amount: 4.04,
    });
    const taken = await no.waitForResult(take);
    assert.equal(taken.status, "SUCCESS", taken.errorMsg ?? "");

    // 7. Positions.
    const positions = await yes.getPositions({ marketId: detail.marketId });
    assert.equal(positions.total, 1);
    assert.equal(positions.records[0]!.shares, 10);

    // 8. Activity.
    const activity = await yes.getUserActivity({ marketId: detail.marketId });
    assert.equal(activity.records[0]!.direction, "BUY");
    assert.equal(activity.records[0]!.shares, 10);

    // 9. The market is settled: the operator closes, resolves (Yes) and finalizes.
    await platform.operator.closeMarket(market.marketId);
    await platform.operator.resolveMarket(market.marketId, {
      outcomes: [{ outcomeId: market.outcomeId, winningOptionId: market.yes }],
    });
    await platform.operator.finalizeMarket(market.marketId);
    const settled = await yes.getMarketOutcome(detail.marketId);
    assert.equal(settled.status, "settled");
    assert.equal(settled.outcomes[0]!.options[0]!.isWin, true);

    // 10. Claim.
    const claimed = await yes.claim(detail.marketId);
    assert.equal(claimed.claimedAmount, 10);

    // 11. Notifications: the settlement first (newest), then both order results of this user.
    const notifications = await yes.getNotifications();
    assert.equal(notifications.total, 2);
    const [settlement, result] = notifications.records;
    assert.equal(settlement!.type, "MARKET_SETTLED");
    assert.equal(settlement!.marketId, detail.marketId);
    assert.equal(settlement!.id, `market:${detail.marketId}`);
    const content = JSON.parse(settlement!.content) as Record<string, unknown>;
    assert.equal(content.status, "settled");
    assert.equal(content.shares, 10);
    assert.equal(content.claimable, 10);
    assert.deepEqual(content.winners, [
      { outcomeId: Number(market.outcomeId), optionId: Number(market.yes), optionTitle: "Yes" },
    ]);
    assert.equal(result!.type, "ORDER_RESULT");
    assert.equal(result!.refId, bid);
    assert.equal(result!.title, "Order executed");
    assert.equal(JSON.parse(result!.content).status, "SUCCESS");
    // The loser is notified of the settlement too (it held shares), with nothing to claim.
    const loser = await no.getNotifications();
    assert.equal(loser.records[0]!.type, "MARKET_SETTLED");
    assert.equal(JSON.parse(loser.records[0]!.content).claimable, 0);
  });
});
