// The legacy listener's answer to an overloaded engine, end to end: a burst of real claim requests
// over real sockets against an engine whose queue holds one command. What the queue cannot take is
// 503 "service temporarily unavailable" with Retry-After (spec 001's 503; DESIGN §6: nothing was
// done, try again later), never a 500; the rest reach the engine and get its own answer; the
// platform logs one line for the episode. overload.test.ts does the same on the signed host; the
// legacy host there only meets a stopped engine.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { legacyPaths } from "../../src/contract/legacy/paths.js";
import { type LegacyPlatform, startLegacyPlatform } from "../legacy/fixtures.js";
import { sendBurst } from "./socket-burst.js";
import type { BinaryMarket } from "./trading-fixtures.js";
import { startTradingPlatform } from "./trading-fixtures.js";

interface LogLine {
  readonly level: number;
  readonly msg: string;
}

// Below the legacy listener's 50 requests a second per merchant, so no answer is a 429.
const burstSize = 40;

describe("the legacy listener on an overloaded engine (queue of 1 command)", () => {
  const logLines: LogLine[] = [];
  let platform: LegacyPlatform;
  let market: BinaryMarket;
  before(async () => {
    platform = await startLegacyPlatform(
      startTradingPlatform({
        platform: {
          engineLimits: { queueCommandsMax: 1 },
          logger: pino(
            { level: "info" },
            { write: (line: string) => logLines.push(JSON.parse(line) as LogLine) },
          ),
        },
      }),
    );
    market = await platform.openMarket();
  });
  after(() => platform.close());

  it("answers 503 with Retry-After to what the queue cannot take, the engine's answer to the rest", async () => {
    const merchant = await platform.createMerchant();
    const user = await platform.fundedLegacyUser(merchant, "10");
    const body = Buffer.from(JSON.stringify({ marketId: Number(market.marketId) }), "utf8");
    const answers = (
      await sendBurst(
        platform.platform.apps.legacy.server,
        platform.addresses.legacy,
        Array.from({ length: burstSize }, () => ({
          method: "POST",
          pathAndQuery: legacyPaths.claim,
          headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json" },
          body,
        })),
      )
    ).map((answer) => ({ ...answer, json: JSON.parse(answer.body) as { code: number; msg: string } }));
    const statuses = answers.map((answer) => answer.status);
    assert.ok(!statuses.some((status) => status >= 500 && status !== 503), `no 500 in ${statuses.join(",")}`);
    const refused = answers.filter((answer) => answer.status === 503);
    // The market is open: a claim that reached the engine is its refusal "not settled" (4017).
    const decided = answers.filter((answer) => answer.status === 422);
    assert.ok(refused.length > 0, `the burst overflowed a queue of 1 (${statuses.join(",")})`);
    assert.ok(decided.length > 0, `some claims reached the engine (${statuses.join(",")})`);
    assert.equal(refused.length + decided.length, burstSize, statuses.join(","));
    for (const answer of refused) {
      assert.deepEqual([answer.json.code, answer.json.msg], [503, "service temporarily unavailable"]);
      assert.match(answer.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/);
    }
    for (const answer of decided)
      assert.equal(answer.json.msg, "The current market status does not allow this operation");
    // One warning for the episode, no error (no stack) per request.
    const overloadLines = logLines.filter((line) => /overload/i.test(line.msg));
    assert.equal(overloadLines.length, 1, JSON.stringify(overloadLines));
    assert.equal(logLines.filter((line) => line.level >= 50).length, 0);

    // Once the burst has drained, a claim reaches the engine again: its refusal, not a 503.
    await assert.rejects(user.claim(Number(market.marketId)), { status: 422 });
  });
});
