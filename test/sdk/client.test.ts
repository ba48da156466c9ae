// The SDK's recovery rules (spec 000 "Recovery") against a scripted fetch: which answers are
// retried, how often, and when a session is renewed.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PredexClient } from "../../src/sdk/client.js";
import {
  GatewayError,
  NetworkError,
  PredexApiError,
  PredexNothingDoneError,
  PredexOutcomeUnknownError,
} from "../../src/sdk/errors.js";

type Scripted = { status: number; body: string; headers?: Record<string, string> } | Error;

function scriptedClient(script: Scripted[]) {
  const calls: Array<{
    method: string;
    url: string;
    headers: Record<string, string>;
    body: string | undefined;
  }> = [];
  const sleeps: number[] = [];
  const fetchStub = (async (input: URL, init: RequestInit) => {
    const headers = init.headers as Record<string, string>;
    const body = init.body === undefined ? undefined : Buffer.from(init.body as Uint8Array).toString("utf8");
    calls.push({ method: String(init.method), url: String(input), headers, body });
    const next = script.shift();
    if (next === undefined) throw new Error("script exhausted");
    if (next instanceof Error) throw next;
    return new Response(next.body, {
      status: next.status,
      headers: { "content-type": "application/json", ...next.headers },
    });
  }) as typeof fetch;
  const client = new PredexClient({
    baseUrl: "http://127.0.0.1:1",
    credentials: { appKey: "k", appSecret: "s", apiKey: "a" },
    retry: { attemptsMax: 3, delayMsBase: 100, delayMsMax: 150 },
    fetch: fetchStub,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return { client, calls, sleeps };
}

const okBody = (data: unknown) => JSON.stringify({ code: 0, message: "ok", data });
const errorBody = (code: number, message: string) => JSON.stringify({ code, message, data: null });

describe("retries", () => {
  it("retries a GET on 500, 502 and 504 with capped exponential backoff", async () => {
    const { client, calls, sleeps } = scriptedClient([
      { status: 502, body: errorBody(2002, "upstream unavailable") },
      { status: 504, body: errorBody(2001, "upstream timeout") },
      { status: 200, body: okBody({ userId: "1", userName: "u", avatarUrl: "" }) },
    ]);
    assert.equal((await client.getUser("1")).userId, "1");
    assert.equal(calls.length, 3);
    assert.equal(sleeps.length, 2);
    assert.ok(sleeps[0]! >= 50 && sleeps[0]! <= 100, `first delay ${sleeps[0]}`);
    assert.ok(sleeps[1]! >= 75 && sleeps[1]! <= 150, `second delay capped, ${sleeps[1]}`);
    // Every attempt is signed afresh.
    assert.ok(calls.every((call) => call.headers["x-ca-signature"] !== undefined));
  });

  it("gives up after the attempt limit with the last error", async () => {
    const { client, calls } = scriptedClient([
      { status: 500, body: errorBody(9999, "internal error") },
      { status: 500, body: errorBody(9999, "internal error") },
      { status: 500, body: errorBody(9999, "internal error") },
    ]);
    const error = await client.getUser("1").catch((caught: unknown) => caught);
    assert.ok(error instanceof PredexApiError && error.retryable && error.code === 9999);
    assert.equal(calls.length, 3);
  });

  it("retries a GET after a network failure, as a NetworkError when it persists", async () => {
    const { client, calls } = scriptedClient([
      new TypeError("fetch failed"),
      new TypeError("fetch failed"),
      new TypeError("x"),
    ]);
    const error = await client.getUser("1").catch((caught: unknown) => caught);
    assert.ok(error instanceof NetworkError && error.retryable);
    assert.equal(calls.length, 3);
  });

  it("never retries a POST after a 500, 502/2003 or 504, which may have changed state", async () => {
    for (const [status, code] of [
      [500, 9999],
      [502, 2003],
      [504, 2001],
    ] as const) {
      const { client, calls } = scriptedClient([{ status, body: errorBody(code, "upstream trouble") }]);
      const error = await client
        .request("POST", "/ordering/create-order", { body: {} })
        .catch((caught: unknown) => caught);
      assert.ok(error instanceof PredexApiError && error.status === status);
      assert.equal(calls.length, 1);
    }
  });

  it("retries a POST after 502/2002: the server says nothing was done", async () => {
    const { client, calls, sleeps } = scriptedClient([
      {
        status: 502,
        body: errorBody(2002, "upstream could not be reached"),
        headers: { "retry-after": "1" },
      },
      { status: 200, body: JSON.stringify({ code: 0, message: "ok", data: { orderId: "7" } }) },
    ]);
    const answer = await client.request("POST", "/ordering/create-order", { body: {} });
    assert.deepEqual(answer, { orderId: "7" });
    assert.equal(calls.length, 2);
    // Retry-After (1 s) is honoured up to the policy's ceiling (150 ms).
    assert.deepEqual(sleeps, [150]);
  });

  const order = {
    marketId: "1",
    outcomeId: "2",
    optionId: "3",
    side: "BUY",
    orderType: "LIMIT",
    limitPrice: 0.5,
    shares: 10,
  } as const;
  const placed = (clientOrderId: string) => ({
    status: 200,
    body: okBody({ orderId: "7", clientOrderId }),
  });

  it("gives every order a clientOrderId, and resends it unchanged after 504/2001 or a lost answer", async () => {
    const { client, calls } = scriptedClient([
      { status: 504, body: errorBody(2001, "upstream request timed out"), headers: { "retry-after": "5" } },
      new TypeError("fetch failed", {
        cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
      }),
      placed("from-the-body"),
    ]);
    await client.createOrder(order);
    assert.equal(calls.length, 3);
    const sent = calls.map((call) => JSON.parse(call.body!) as { clientOrderId?: string });
    assert.match(sent[0]!.clientOrderId ?? "", /^[0-9a-f-]{36}$/);
    assert.ok(
      sent.every((body) => body.clientOrderId === sent[0]!.clientOrderId),
      "the same key every time",
    );
  });

  it("keeps the caller's clientOrderId, and gives two orders two different ones", async () => {
    const { client, calls } = scriptedClient([placed("mine"), placed("a"), placed("b")]);
    await client.createOrder({ ...order, clientOrderId: "mine" });
    await client.createOrder(order);
    await client.createOrder(order);
    const ids = calls.map((call) => (JSON.parse(call.body!) as { clientOrderId: string }).clientOrderId);
    assert.equal(ids[0], "mine");
    assert.notEqual(ids[1], ids[2]);
  });

  it("gives every item of a batch a clientOrderId, and resends the batch unchanged after 504/2001", async () => {
    const { client, calls } = scriptedClient([
      { status: 504, body: errorBody(2001, "upstream request timed out"), headers: { "retry-after": "5" } },
      { status: 200, body: okBody({ results: [] }) },
    ]);
    await client.createOrders([order, { ...order, clientOrderId: "mine" }, order]);
    assert.equal(calls.length, 2);
    const sent = calls.map(
      (call) => (JSON.parse(call.body!) as { orders: { clientOrderId?: string }[] }).orders,
    );
    const ids = sent[0]!.map((item) => item.clientOrderId ?? "");
    assert.match(ids[0]!, /^[0-9a-f-]{36}$/);
    assert.equal(ids[1], "mine");
    assert.notEqual(ids[0], ids[2]);
    assert.deepEqual(
      sent[1]!.map((item) => item.clientOrderId),
      ids,
      "the resent batch names the same orders",
    );
  });

  it("throws an unknown outcome as PredexOutcomeUnknownError once the retries run out", async () => {
    const timedOut = { status: 504, body: errorBody(2001, "upstream request timed out") };
    const { client, calls } = scriptedClient([timedOut, timedOut, timedOut]);
    const error = await client.createOrder(order).catch((caught: unknown) => caught);
    assert.ok(error instanceof PredexOutcomeUnknownError, String(error));
    assert.ok(error.outcomeUnknown && !error.nothingWasDone);
    assert.equal(calls.length, 3);
  });

  it("types 502/2002 as nothing done, and a refused connection too: both resent, POST included", async () => {
    const refused = new TypeError("fetch failed", {
      cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }),
    });
    const { client, calls } = scriptedClient([
      refused,
      { status: 502, body: errorBody(2002, "upstream could not be reached") },
      { status: 502, body: errorBody(2002, "upstream could not be reached") },
    ]);
    const error = await client
      .request("POST", "/withdraw/apply", { body: { amount: 1 } })
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof PredexNothingDoneError && error.nothingWasDone && !error.outcomeUnknown);
    assert.equal(calls.length, 3);
    const lost = new NetworkError("reset", {
      cause: new TypeError("fetch failed", {
        cause: Object.assign(new Error("reset"), { code: "ECONNRESET" }),
      }),
    });
    assert.ok(lost.outcomeUnknown && !lost.nothingWasDone);
  });

  it("does not retry 400s, 404s or gateway errors", async () => {
    const { client, calls } = scriptedClient([
      {
        status: 400,
        body: "Invalid Signature",
        headers: {
          "content-type": "text/plain",
          "x-ca-error-message":
            "Invalid Signature, Server StringToSign:`GET#application/json###d#x-api-key:a#/user/1`",
          "x-ca-error-reason": "signature",
        },
      },
    ]);
    const error = await client.getUser("1").catch((caught: unknown) => caught);
    assert.ok(error instanceof GatewayError);
    assert.equal(error.serverStringToSign, "GET\napplication/json\n\n\nd\nx-api-key:a\n/user/1");
    assert.equal(error.reason, "signature");
    assert.equal(calls.length, 1);
  });

  it("reports a plain-text query error with code null", async () => {
    const { client } = scriptedClient([
      {
        status: 400,
        body: "Query deserialize error: missing field `marketId`",
        headers: { "content-type": "text/plain" },
      },
    ]);
    const error = await client.request("GET", "/orderbook/book").catch((caught: unknown) => caught);
    assert.ok(error instanceof PredexApiError);
    assert.equal(error.code, null);
    assert.equal(error.message, "Query deserialize error: missing field `marketId`");
  });

  it("treats 200 with a business code (4054) as an error", async () => {
    const { client } = scriptedClient([
      { status: 200, body: errorBody(4054, "CLOB order book is not initialized") },
    ]);
    const error = await client.request("GET", "/orderbook/book").catch((caught: unknown) => caught);
    assert.ok(error instanceof PredexApiError && error.code === 4054 && !error.retryable);
  });
});

describe("sessions", () => {
  const registration = { userEmail: "a@example.com", merchantId: "1", marchantUserId: "u" };
  const registered = (token: string) => ({
    status: 200,
    body: okBody({ userId: "1", userName: "user1", email: "a@example.com" }),
    headers: { "set-cookie": `predex_session=${token}; Max-Age=86400; Path=/; HttpOnly; SameSite=Lax` },
  });

  it("captures the cookie at registration and sends it, unsigned, afterwards", async () => {
    const { client, calls } = scriptedClient([registered("t1"), { status: 200, body: okBody({}) }]);
    await client.register(registration);
    assert.equal(client.sessionCookie, "predex_session=t1");
    await client.getProfile();
    assert.equal(calls[1]?.headers.cookie, "predex_session=t1");
    assert.equal(calls[1]?.headers["x-ca-signature-headers"], "x-api-key,x-ca-nonce", "not the cookie");
  });

  it("sends exactly the bytes it hashed", async () => {
    const { client, calls } = scriptedClient([registered("t1")]);
    await client.register(registration);
    const { createHash } = await import("node:crypto");
    const md5 = createHash("md5").update(calls[0]!.body!).digest("base64");
    assert.equal(calls[0]?.headers["content-md5"], md5);
  });

  it("registers again and retries once on a 1401 session error", async () => {
    const { client, calls } = scriptedClient([
      registered("t1"),
      { status: 401, body: errorBody(1401, "unauthorized: Invalid or expired session") },
      registered("t2"),
      { status: 200, body: okBody({ userId: "1" }) },
    ]);
    await client.register(registration);
    await client.getProfile();
    assert.deepEqual(
      calls.map((call) => new URL(call.url).pathname),
      ["/user/register", "/user/profile", "/user/register", "/user/profile"],
    );
    assert.equal(calls[3]?.headers.cookie, "predex_session=t2");
  });

  it("retries only once: a second session error is the caller's", async () => {
    const { client, calls } = scriptedClient([
      registered("t1"),
      { status: 401, body: errorBody(1401, "unauthorized: Invalid or expired session") },
      registered("t2"),
      { status: 401, body: errorBody(1401, "unauthorized: Invalid or expired session") },
    ]);
    await client.register(registration);
    const error = await client.getProfile().catch((caught: unknown) => caught);
    assert.ok(error instanceof PredexApiError && error.isSessionError);
    assert.equal(calls.length, 4);
  });

  it("renews a dead session once for requests that failed together", async () => {
    const { client, calls } = scriptedClient([
      registered("t1"),
      { status: 401, body: errorBody(1401, "unauthorized: Invalid or expired session") },
      { status: 401, body: errorBody(1401, "unauthorized: Invalid or expired session") },
      registered("t2"),
      { status: 200, body: okBody({ userId: "1" }) },
      { status: 200, body: okBody({ userId: "1" }) },
    ]);
    await client.register(registration);
    await Promise.all([client.getProfile(), client.getProfile()]);
    const registrations = calls.filter((call) => new URL(call.url).pathname === "/user/register");
    assert.equal(registrations.length, 2, "the first registration and one renewal");
    assert.deepEqual(
      calls.slice(-2).map((call) => call.headers.cookie),
      ["predex_session=t2", "predex_session=t2"],
    );
  });

  it("does not renew on an API key error", async () => {
    const { client, calls } = scriptedClient([
      registered("t1"),
      { status: 401, body: errorBody(1401, "unauthorized: Invalid X-API-KEY") },
    ]);
    await client.register(registration);
    await client.getProfile().catch(() => undefined);
    assert.equal(calls.length, 2);
  });
});
