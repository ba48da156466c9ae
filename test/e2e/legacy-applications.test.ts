// Market applications and challenges (spec 001 point 7) through the legacy SDK: who is a creator,
// every code of an application (4011, 400, 4035, 4039, 4041, 4010, 4013, 3020), the operator's
// review into a real draft market, and a challenge posting its bond (4014 when not allowed).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { MarketApplicationRequest } from "../../src/contract/legacy/applications.js";
import type { LegacyClient } from "../../src/sdk/legacy/client.js";
import { type LegacyPlatform, type Merchant, refusal, startLegacyPlatform } from "../legacy/fixtures.js";
import { isoAt } from "./trading-fixtures.js";

let platform: LegacyPlatform;
let merchant: Merchant;
let creator: LegacyClient;
let categoryId: number;
const dayMs = 86_400_000;

before(async () => {
  platform = await startLegacyPlatform();
  merchant = await platform.createMerchant();
  creator = await platform.fundedLegacyUser(merchant, "0");
  const granted = await platform.admin("POST", `/admin/creators/${creator.userId}`);
  assert.equal(granted.status, 200);
  categoryId = Number((await platform.operator.createCategory({ name: "Applications" })).id);
});
after(() => platform.close());

function application(overrides: Partial<MarketApplicationRequest> = {}): MarketApplicationRequest {
  return {
    title: "Will the Seine freeze this winter?",
    description: "Resolves Yes if the Seine freezes over in Paris.",
    categoryId,
    modelType: "orderbook",
    marketType: "BINARY",
    liquidity: 100,
    outcomeOptionsVoList: [
      { optionTitle: "Yes", weight: 0.3 },
      { optionTitle: "No", weight: 0.7 },
    ],
    startTime: isoAt(Date.now()),
    endTime: isoAt(Date.now() + 30 * dayMs),
    ...overrides,
  };
}

describe("POST /api/market/openapi/market/apply", () => {
  it("refuses a non-creator with 403 4011, before looking at the body", async () => {
    const someone = await platform.fundedLegacyUser(merchant, "0");
    assert.deepEqual(await refusal(someone.applyForMarket(application({ liquidity: 1 }))), [
      403,
      4011,
      "Non-creators cannot create markets",
    ]);
  });

  it("checks title length, liquidity, weights and category", async () => {
    assert.deepEqual(await refusal(creator.applyForMarket(application({ title: "x".repeat(201) }))), [
      400,
      400,
      "parameter error",
    ]);
    assert.deepEqual(await refusal(creator.applyForMarket(application({ liquidity: 99.99 }))), [
      400,
      4035,
      "Liquidity cannot be less than 100",
    ]);
    const weights = [
      { optionTitle: "Yes", weight: 0.3 },
      { optionTitle: "No", weight: 0.6 },
    ];
    assert.deepEqual(await refusal(creator.applyForMarket(application({ outcomeOptionsVoList: weights }))), [
      400,
      4039,
      "The weights must add up to 1",
    ]);
    assert.deepEqual(await refusal(creator.applyForMarket(application({ categoryId: 999_999 }))), [
      404,
      3020,
      "category is not exist",
    ]);
  });

  it("stores a PENDING application; a duplicate is 4010, a similar title 4013, an existing market's title 4041", async () => {
    const stored = await creator.applyForMarket(application());
    assert.equal(stored.status, "PENDING");
    assert.equal(stored.userId, creator.userId);
    assert.deepEqual(stored.outcomeOptionsVoList, [
      { optionTitle: "Yes", weight: 0.3 },
      { optionTitle: "No", weight: 0.7 },
    ]);
    assert.deepEqual(
      await refusal(creator.applyForMarket(application({ title: "  will the SEINE freeze this winter  " }))),
      [400, 4010, "Please do not submit duplicate applications"],
    );
    const other = await platform.fundedLegacyUser(merchant, "0");
    await platform.admin("POST", `/admin/creators/${other.userId}`);
    assert.deepEqual(
      await refusal(
        other.applyForMarket(application({ title: "Will the Seine freeze this winter? (Paris)" })),
      ),
      [400, 4013, "There is similar market information"],
    );
    await platform.createMarket({ title: "Will the Loire flood in spring?" });
    assert.deepEqual(
      await refusal(other.applyForMarket(application({ title: "will the loire  flood in spring?" }))),
      [400, 4041, "A market with this title already exists"],
    );
  });

  it("is approved by the operator into a draft market created by the applicant, or rejected", async () => {
    const applied = await creator.applyForMarket(
      application({ title: "Will Mont Blanc lose a metre by 2030?" }),
    );
    const listed = await platform.admin("GET", "/admin/applications?status=PENDING");
    const records = (listed.json as { data: { records: { applicationId: string }[] } }).data.records;
    assert.ok(records.some((record) => record.applicationId === String(applied.applicationId)));
    const approved = await platform.admin("POST", `/admin/applications/${applied.applicationId}/approve`);
    assert.equal(approved.status, 200, approved.text);
    const { marketId, status } = (approved.json as { data: { marketId: string; status: string } }).data;
    assert.equal(status, "APPROVED");
    const detail = await creator.getMarketOutcome(Number(marketId));
    assert.equal(detail.status, "draft");
    assert.equal(detail.creatorId, creator.userId);
    assert.equal(detail.title, "Will Mont Blanc lose a metre by 2030?");
    assert.deepEqual(
      detail.outcomes[0]!.options.map((option) => option.title),
      ["Yes", "No"],
    );
    const again = await platform.admin("POST", `/admin/applications/${applied.applicationId}/approve`);
    assert.equal(again.status, 400);

    const second = await creator.applyForMarket(application({ title: "Will the Rhone dry up by August?" }));
    const rejected = await platform.admin("POST", `/admin/applications/${second.applicationId}/reject`, {
      reason: "Too vague",
    });
    assert.deepEqual(
      [
        (rejected.json as { data: { status: string; rejectReason: string } }).data.status,
        (rejected.json as { data: { rejectReason: string } }).data.rejectReason,
      ],
      ["REJECTED", "Too vague"],
    );
    assert.equal((await platform.admin("POST", "/admin/applications/999999/approve")).status, 404);
  });

  it("needs a JWT (401)", async () => {
    const response = await platform.raw("legacy", {
      method: "POST",
      path: "/api/market/openapi/market/apply",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(application()),
    });
    assert.equal(response.status, 401);
  });
});

describe("POST /api/market/openapi/challenge", () => {
  it("posts the bond while the market is resolving (data null), and answers 4014 otherwise", async () => {
    const market = await platform.openMarket({ title: "Challenge market" });
    const challenger = await platform.fundedLegacyUser(merchant, "50");
    const body = { marketId: Number(market.marketId), reason: "The source says otherwise." };
    assert.deepEqual(await refusal(challenger.challenge(body)), [
      422,
      4014,
      "market status does not allow launching a challenge",
    ]);
    await platform.operator.closeMarket(market.marketId);
    await platform.operator.resolveMarket(market.marketId, {
      outcomes: [{ outcomeId: market.outcomeId, winningOptionId: market.yes }],
    });
    const poor = await platform.fundedLegacyUser(merchant, "1");
    assert.deepEqual(await refusal(poor.challenge(body)), [422, 2002, "Available balance is insufficient"]);
    assert.equal(await challenger.challenge(body), null);
    const detail = await challenger.getMarketOutcome(Number(market.marketId));
    assert.equal(detail.ifHasChallenged, true);
    // One challenge per market.
    assert.deepEqual(await refusal(challenger.challenge(body)), [
      422,
      4014,
      "market status does not allow launching a challenge",
    ]);
    assert.deepEqual(await refusal(challenger.challenge({ ...body, marketId: 999_999 })), [
      404,
      3009,
      "market does not exist",
    ]);
    assert.deepEqual(await refusal(challenger.challenge({ ...body, reason: "x".repeat(1001) })), [
      400,
      400,
      "parameter error",
    ]);
  });
});
