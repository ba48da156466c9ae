// Merchant bills (spec 001 point 6) through the legacy SDK: the monthly statement computed from the
// merchant's users' fees, its commission and unclaimed payouts; the user bill detail; and every
// status of their rows in spec 001's table (bill: 200/400/401; detail: 200/400/401/404).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LegacyClient } from "../../src/sdk/legacy/client.js";
import {
  type LegacyPlatform,
  type Merchant,
  mintPairs,
  refusal,
  startLegacyPlatform,
} from "../legacy/fixtures.js";
import type { BinaryMarket } from "./trading-fixtures.js";

let platform: LegacyPlatform;
let merchant: Merchant;
let yes: LegacyClient;
let no: LegacyClient;
let market: BinaryMarket;
const period = (() => {
  const now = new Date();
  return now.getUTCFullYear() * 100 + now.getUTCMonth() + 1;
})();

before(async () => {
  platform = await startLegacyPlatform();
  // A merchant earning 20% of its users' fees.
  merchant = await platform.createMerchant({ commissionRate: 0.2 });
  market = await platform.openMarket({ title: "Bills market", takerFee: 100 });
  yes = await platform.fundedLegacyUser(merchant, "20");
  no = await platform.fundedLegacyUser(merchant, "20");
  await mintPairs(market, yes, no, { price: 0.6, yesAmount: 6.06, noAmount: 4.04 });
});
after(() => platform.close());

async function postBill(body: string, token: string | undefined) {
  return platform.raw("legacy", {
    method: "POST",
    path: "/api/order/openapi/merchant-commission-bill/query/month",
    headers: {
      "content-type": "application/json",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body,
  });
}

describe("POST /api/order/openapi/merchant-commission-bill/query/month", () => {
  it("states the month's fees, commission and unclaimed payouts of the merchant's users", async () => {
    await platform.operator.closeMarket(market.marketId);
    await platform.operator.resolveMarket(market.marketId, {
      outcomes: [{ outcomeId: market.outcomeId, winningOptionId: market.yes }],
    });
    await platform.operator.finalizeMarket(market.marketId);
    const bill = await yes.getMonthlyBill({ billPeriod: period, merchantId: Number(merchant.merchantId) });
    assert.deepEqual([bill.current, bill.total, bill.pages, bill.totalRow, bill.empty], [1, 1, 1, 1, false]);
    const statement = bill.records[0]!;
    assert.deepEqual(
      { ...statement, createTime: undefined, updateTime: undefined },
      {
        statementId: `${merchant.merchantId}-${period}`,
        merchantId: merchant.merchantId,
        periodMonth: String(period),
        currency: "USDT",
        // The No buyer took 10 shares at 0.4: a 1% taker fee of 0.04; the maker paid none.
        tradeFeeTotal: 0.04,
        settlementFeeTotal: 0,
        agentCommissionTotal: 0.008,
        selfCommissionFee: 0.032,
        commissionRate: 20,
        // The winner has not claimed its 10 yet.
        unclaimedPoolTotal: 10,
        merchantTotalIncome: 0.008,
        adjustmentAmount: 0,
        createTime: undefined,
        updateTime: undefined,
      },
    );
    assert.match(statement.createTime, /^\d{4}-\d{2}-01T00:00:00\.000Z$/);
    await yes.claim(Number(market.marketId));
    const afterClaim = await yes.getMonthlyBill({
      billPeriod: period,
      merchantId: Number(merchant.merchantId),
    });
    assert.equal(afterClaim.records[0]!.unclaimedPoolTotal, 0);
    // A month that has not begun has no statement.
    const future = await yes.getMonthlyBill({ billPeriod: 999_912, merchantId: Number(merchant.merchantId) });
    assert.deepEqual([future.total, future.empty], [0, true]);
  });

  it("refuses a malformed billPeriod with 400 Invalid request parameters, and no token with 401", async () => {
    for (const billPeriod of ['"202611"', "202613", "2026", "202611.5", "null"]) {
      const response = await postBill(
        `{"billPeriod":${billPeriod},"merchantId":${merchant.merchantId}}`,
        yes.token,
      );
      assert.equal(response.status, 400, billPeriod);
      assert.deepEqual(response.json, {
        code: 400,
        msg: "Invalid request parameters",
        data: { errorCode: 400, field: "billPeriod", reason: "must be a number YYYYMM" },
      });
    }
    const noMerchant = await postBill(`{"billPeriod":${period}}`, yes.token);
    assert.equal(noMerchant.status, 400);
    const anonymous = await postBill(
      `{"billPeriod":${period},"merchantId":${merchant.merchantId}}`,
      undefined,
    );
    assert.equal(anonymous.status, 401);
    assert.equal((anonymous.json as { msg: string }).msg, "invalid token / token has expired");
    assert.deepEqual(await refusal(yes.getMonthlyBill({ billPeriod: period, merchantId: 999_999 })), [
      404,
      404,
      "Merchant not found",
    ]);
  });
});

describe("GET /api/order/openapi/bill/query-detail", () => {
  it("lists the user's trades with every field of spec 001", async () => {
    const noUser = no;
    const detail = await yes.getBillDetail({
      merchantId: Number(merchant.merchantId),
      merchantUserId: await merchantUserIdOf(noUser),
    });
    assert.equal(detail.total, 1);
    assert.deepEqual(detail.records[0], {
      userId: String(no.userId),
      merchantUserId: await merchantUserIdOf(no),
      marketId: market.marketId,
      outcomeId: market.outcomeId,
      optionId: market.no,
      optionTitle: "No",
      currency: "USDT",
      merchantId: Number(merchant.merchantId),
      optionIndex: 1,
      type: "BUY",
      shares: 10,
      tranDate: detail.records[0]!.tranDate,
      amount: "4",
    });
    assert.match(detail.records[0]!.tranDate!, /^\d{4}-\d{2}-\d{2}T/);
  });

  it("answers missing parameters with 400, an unknown user with 404, no token with 401", async () => {
    const base = "/api/order/openapi/bill/query-detail";
    // null: no Authorization header at all.
    const get = (query: string, token: string | null = yes.token ?? null) =>
      platform.raw("legacy", {
        path: `${base}${query}`,
        ...(token === null ? {} : { headers: { authorization: `Bearer ${token}` } }),
      });
    assert.equal((await get(`?merchantUserId=x`)).status, 400);
    assert.equal((await get(`?merchantId=${merchant.merchantId}`)).status, 400);
    assert.deepEqual(
      await refusal(
        yes.getBillDetail({ merchantId: Number(merchant.merchantId), merchantUserId: "nobody-here" }),
      ),
      [404, 3005, "User not found"],
    );
    assert.equal((await get(`?merchantId=${merchant.merchantId}&merchantUserId=x`, null)).status, 401);
  });
});

/** The marchantUserId the fixture gave the client's user. */
async function merchantUserIdOf(client: LegacyClient): Promise<string> {
  const user = await platform.platform.deps.identity.findUser(client.userId!);
  return user!.marchantUserId;
}
