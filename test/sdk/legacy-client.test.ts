// The legacy SDK's resend rule for an order submit (spec 001 rule 1: a submission is not retried
// before its result is checked) against a scripted fetch: predex's 503 `service temporarily
// unavailable` and a connection never made mean nothing was queued, so the submit is sent again; a
// 503 `request timed out`, a 500 or a lost answer mean nobody can tell, so it is not.

import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { describe, it } from "node:test";
import { LegacyClient } from "../../src/sdk/legacy/client.js";
import { LegacyApiError, SubmitOutcomeUnknownError } from "../../src/sdk/legacy/errors.js";

type Scripted = { status: number; body: unknown } | Error;

const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const order = {
  marketId: 1,
  outcomeId: 2,
  optionId: 3,
  side: "BUY",
  orderType: "MARKET",
  amount: 5,
} as const;
const unavailable = {
  status: 503,
  body: { code: 503, msg: "service temporarily unavailable", data: { errorCode: 503 } },
};
const timedOut = { status: 503, body: { code: 503, msg: "request timed out", data: { errorCode: 503 } } };
const queued = { status: 200, body: { code: 200, msg: "success", data: { fgRequestId: "r-1" } } };

function scriptedClient(script: Scripted[]) {
  let calls = 0;
  const slept: number[] = [];
  const client = new LegacyClient({
    baseUrl: "http://127.0.0.1:1",
    apiKey: "key",
    privateKey,
    user: { merchantId: 1, marchantUserId: "u" } as never,
    retry: { attemptsMax: 3, delayMsBase: 1, delayMsMax: 1 },
    sleep: async (ms) => {
      slept.push(ms);
    },
    fetch: (async () => {
      calls += 1;
      const next = script.shift();
      if (next === undefined) throw new Error("script exhausted");
      if (next instanceof Error) throw next;
      return new Response(JSON.stringify(next.body), {
        status: next.status,
        headers: { "content-type": "application/json" },
      });
    }) as typeof fetch,
  });
  client.token = "a-token";
  return { client, calls: () => calls, slept };
}

describe("legacy SDK: resending an order submit", () => {
  it("sends it again after 503 'service temporarily unavailable' and a refused connection: nothing was queued", async () => {
    const refused = new TypeError("fetch failed", {
      cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
    });
    const { client, calls } = scriptedClient([unavailable, refused, queued]);
    assert.equal(await client.submitOrder(order as never), "r-1");
    assert.equal(calls(), 3);
  });

  it("sends it again when the host had no route, as the signed host's client does: no connection was made", async () => {
    const unreachable = new TypeError("fetch failed", {
      cause: Object.assign(new Error("connect EHOSTUNREACH"), { code: "EHOSTUNREACH" }),
    });
    const { client, calls } = scriptedClient([unreachable, queued]);
    assert.equal(await client.submitOrder(order as never), "r-1");
    assert.equal(calls(), 2);
  });

  it("does not send it again after 503 'request timed out', a 500 or a lost answer: the outcome is unknown", async () => {
    const lost = new TypeError("fetch failed", {
      cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
    });
    const internal = {
      status: 500,
      body: { code: 500, msg: "Internal server error", data: { errorCode: 500 } },
    };
    for (const answer of [timedOut, internal, lost]) {
      const { client, calls } = scriptedClient([answer, queued]);
      const error = await client.submitOrder(order as never).catch((caught: unknown) => caught);
      assert.ok(error instanceof SubmitOutcomeUnknownError, String(error));
      assert.equal(calls(), 1);
    }
  });

  it("waits out a 429 for the retryAfter it says, then sends it again: it was refused before anything was done", async () => {
    const limited = (retryAfter: number) => ({
      status: 429,
      body: { code: 429, msg: "Too many requests", data: { retryAfter, limit: 50, window: "1s" } },
    });
    const { client, calls, slept } = scriptedClient([limited(3), limited(2), queued]);
    assert.equal(await client.submitOrder(order as never), "r-1");
    assert.equal(calls(), 3);
    assert.deepEqual(slept, [3_000, 2_000]);
  });

  it("retries a read on either 503", async () => {
    const result = { status: 200, body: { code: 200, msg: "success", data: { status: "SUCCESS" } } };
    const { client, calls } = scriptedClient([timedOut, unavailable, result]);
    assert.deepEqual(await client.getRequestResult("r-1"), { status: "SUCCESS" });
    assert.equal(calls(), 3);
    const error = new LegacyApiError(503, 503, "request timed out", { errorCode: 503 });
    assert.ok(error.retryable && !error.nothingWasDone);
  });
});
