// An exclusive market on the Polymarket-compatible reads, through Polymarket's own
// @polymarket/clob-client, unchanged: every token of the event is neg-risk (GET /neg-risk, the book
// summary, /markets and /markets/{condition_id}), its questions share one neg_risk_market_id, and a
// plain market's tokens stay not neg-risk (DESIGN §10).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ClobClient } from "@polymarket/clob-client";
import { startTradingPlatform, type TradingPlatform } from "./trading-fixtures.js";

/** The fields of Polymarket's market object this test reads. */
interface ListedQuestion {
  readonly condition_id: string;
  readonly question_id: string;
  readonly question: string;
  readonly neg_risk: boolean;
  readonly neg_risk_market_id: string;
  readonly neg_risk_request_id: string;
  readonly tokens: readonly { readonly token_id: string }[];
}

let platform: TradingPlatform;
let clob: ClobClient;
let exclusiveAssets: string[][];
let plainAssets: string[];

async function assetsOf(optionIds: readonly string[]): Promise<string[]> {
  return platform.platform.deps.engine.read((state) =>
    optionIds.map((optionId) => state.options.get(Number(optionId))!.assetId),
  );
}

before(async () => {
  platform = await startTradingPlatform();
  clob = new ClobClient(platform.addresses.public, 137);
  const created = await platform.createMarket({
    title: "Who wins the league?",
    outcomes: ["Ada", "Brook", "Cyd"].map((name) => ({ name, options: [{ title: "Yes" }, { title: "No" }] })),
    exclusive: true,
  });
  const exclusive = await platform.operator.openMarket(created.marketId);
  exclusiveAssets = await Promise.all(
    exclusive.outcomes.map((outcome) => assetsOf(outcome.options.map((option) => option.optionId))),
  );
  const plain = await platform.openMarket({ title: "Will it snow?" });
  plainAssets = await assetsOf([plain.yes, plain.no]);
});
after(() => platform.close());

describe("an exclusive market through @polymarket/clob-client", () => {
  it("getNegRisk and getOrderBook say neg_risk for every token of the event, and not for a plain market", async () => {
    for (const assetId of exclusiveAssets.flat()) {
      assert.equal(await clob.getNegRisk(assetId), true, assetId);
      assert.equal((await clob.getOrderBook(assetId)).neg_risk, true, assetId);
    }
    for (const assetId of plainAssets) {
      assert.equal(await clob.getNegRisk(assetId), false);
      assert.equal((await clob.getOrderBook(assetId)).neg_risk, false);
    }
  });

  it("getMarkets and getMarket list each question neg-risk, with the event's one neg_risk_market_id", async () => {
    const seen: ListedQuestion[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10 && cursor !== "LTE="; page++) {
      const payload = await clob.getMarkets(cursor);
      seen.push(...payload.data);
      cursor = payload.next_cursor;
    }
    const questionOf = (assetId: string) =>
      seen.find((entry) => entry.tokens.some((token) => token.token_id === assetId))!;
    const questions = exclusiveAssets.map(([yes]) => questionOf(yes!));
    assert.deepEqual(
      questions.map((question) => [question.question, question.neg_risk]),
      [
        ["Who wins the league?: Ada", true],
        ["Who wins the league?: Brook", true],
        ["Who wins the league?: Cyd", true],
      ],
    );
    const eventIds = new Set(questions.map((question) => question.neg_risk_market_id));
    assert.equal(eventIds.size, 1);
    assert.match([...eventIds][0]!, /^0x[0-9a-f]{64}$/);
    assert.deepEqual(
      questions.map((question) => question.neg_risk_request_id),
      questions.map((question) => question.question_id),
    );
    for (const question of questions) assert.deepEqual(await clob.getMarket(question.condition_id), question);
    const plain = questionOf(plainAssets[0]!);
    assert.deepEqual([plain.neg_risk, plain.neg_risk_market_id, plain.neg_risk_request_id], [false, "", ""]);
  });
});
