// Overload and shutdown are "nothing was done, try again later" (DESIGN §6), never 500: the signed
// host answers 502/2002 and the legacy host 503, both with Retry-After, and the platform logs one
// line per episode rather than a stack per request. The engine's queue is made tiny so that a burst
// of real requests over real sockets fills it.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import type { PredexClient } from "../../src/sdk/client.js";
import { PredexApiError } from "../../src/sdk/errors.js";
import { LegacyApiError } from "../../src/sdk/legacy/errors.js";
import { signRequest } from "../../src/sdk/signer.js";
import { type LegacyPlatform, startLegacyPlatform } from "../legacy/fixtures.js";
import { sendBurst } from "./socket-burst.js";
import { type BinaryMarket, startTradingPlatform, type TradingPlatform } from "./trading-fixtures.js";

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly err?: unknown;
}

function capturingLogger(lines: LogLine[]) {
  return pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
}

const burstSize = 40;

describe("an overloaded engine (queue of 1 command)", () => {
  const logLines: LogLine[] = [];
  let platform: TradingPlatform;
  let market: BinaryMarket;
  before(async () => {
    platform = await startTradingPlatform({
      platform: { engineLimits: { queueCommandsMax: 1 }, logger: capturingLogger(logLines) },
    });
    market = await platform.openMarket();
  });
  after(() => platform.close());

  it("answers 502/2002 with Retry-After to what it cannot take, changes nothing for them, logs once", async () => {
    const buyer = await platform.fundedUser("1000");
    const session = buyer.client.sessionCookie!;
    const order = (index: number) =>
      JSON.stringify({
        marketId: market.marketId,
        outcomeId: market.outcomeId,
        optionId: market.yes,
        side: "BUY",
        orderType: "LIMIT",
        limitPrice: 0.1,
        shares: 1,
        clientOrderId: `burst-${index}`,
      });
    const answers = (
      await sendBurst(
        platform.platform.apps.gateway.server,
        platform.addresses.gateway,
        Array.from({ length: burstSize }, (_, index) => {
          const body = Buffer.from(order(index), "utf8");
          const signed = signRequest(platform.partner, {
            method: "POST",
            path: "/ordering/create-order",
            body,
            cookie: session,
          });
          return { method: "POST", pathAndQuery: signed.pathAndQuery, headers: signed.headers, body };
        }),
      )
    ).map((answer) => ({ ...answer, json: JSON.parse(answer.body) as unknown }));
    const statuses = answers.map((answer) => answer.status);
    assert.ok(!statuses.includes(500), `no 500 in ${statuses.join(",")}`);
    const refused = answers.filter((answer) => answer.status === 502);
    const placed = answers.filter((answer) => answer.status === 200);
    assert.ok(refused.length > 0, `the burst overflowed a queue of 1 (${statuses.join(",")})`);
    assert.equal(refused.length + placed.length, burstSize);
    for (const answer of refused) {
      assert.deepEqual(answer.json, { code: 2002, message: "upstream could not be reached", data: null });
      assert.match(answer.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/);
    }
    // Nothing was done for a refused request: exactly the 200s rest in the book.
    const open = await buyer.client.getOpenOrders({ pageSize: 100 });
    assert.equal(open.total, placed.length);
    // One warning for the episode, no error (no stack) per request.
    const overloadLines = logLines.filter((line) => /overload/i.test(line.msg));
    assert.equal(overloadLines.length, 1, JSON.stringify(overloadLines));
    assert.equal(logLines.filter((line) => line.level >= 50).length, 0);
  });

  it("the SDK sends a create-order again after 502/2002 (nothing was done) until it is taken", async () => {
    // Registered one at a time: a burst of registrations is not what this test is about.
    const buyers: PredexClient[] = [];
    for (let index = 0; index < 4; index += 1) {
      const { client } = await platform.fundedUser("1000");
      const retrying = platform.client(platform.partner, {
        retry: { attemptsMax: 50, delayMsBase: 2, delayMsMax: 20 },
      });
      retrying.sessionCookie = client.sessionCookie;
      buyers.push(retrying);
    }
    const results = await Promise.all(
      Array.from({ length: burstSize }, (_, index) =>
        buyers[index % buyers.length]!.createOrder({
          marketId: market.marketId,
          outcomeId: market.outcomeId,
          optionId: market.yes,
          side: "BUY",
          orderType: "LIMIT",
          limitPrice: 0.2,
          shares: 1,
          clientOrderId: `sdk-${index}`,
        }),
      ),
    );
    assert.equal(results.length, burstSize);
    assert.equal(new Set(results.map((order) => order.orderId)).size, burstSize);
  });
});

describe("a stopped engine (shutdown in progress)", () => {
  let platform: LegacyPlatform;
  let market: BinaryMarket;
  before(async () => {
    platform = await startLegacyPlatform();
    market = await platform.openMarket();
  });
  after(() => platform.close());

  it("is 502/2002 on the signed host and 503 on the legacy host, both with Retry-After", async () => {
    const merchant = await platform.createMerchant();
    const legacyUser = await platform.fundedLegacyUser(merchant, "10");
    const { client } = await platform.fundedUser("10");
    await platform.platform.deps.engine.close();

    const signed = await client
      .createOrder({
        marketId: market.marketId,
        outcomeId: market.outcomeId,
        optionId: market.yes,
        side: "BUY",
        orderType: "LIMIT",
        limitPrice: 0.5,
        shares: 1,
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    assert.ok(signed instanceof PredexApiError, String(signed));
    assert.deepEqual(
      [signed.status, signed.code, signed.message],
      [502, 2002, "upstream could not be reached"],
    );

    const legacy = await legacyUser.claim(Number(market.marketId)).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(legacy instanceof LegacyApiError, String(legacy));
    assert.deepEqual([legacy.status, legacy.msg], [503, "service temporarily unavailable"]);
  });
});
