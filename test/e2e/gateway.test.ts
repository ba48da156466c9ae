// Every gateway rejection cause spec 000 lists ("Common mismatch causes"), plus unknown keys,
// nonce replay and the diagnostics a partner uses to fix a signature. The SDK makes the requests
// wherever it can; raw fetch only where a correct SDK cannot produce the mistake.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { computeContentMd5, computeSignature } from "../../src/contract/signing/gateway-signature.js";
import { buildStringToSign, formatGatewayDate } from "../../src/contract/signing/string-to-sign.js";
import { GatewayError, PredexApiError } from "../../src/sdk/errors.js";
import { signRequest } from "../../src/sdk/signer.js";
import { type PartnerCredentials, startTestPlatform, type TestPlatform } from "./harness.js";

let platform: TestPlatform;
let partner: PartnerCredentials;
let userId: string;

before(async () => {
  platform = await startTestPlatform();
  const registered = await platform.registeredUser();
  partner = registered.partner;
  userId = registered.user.userId;
});
after(() => platform.close());

/** Signs a string-to-sign built by hand, as a partner with a mistake in its signer would. */
function handSigned(lines: string[], extraHeaders: Record<string, string> = {}) {
  const stringToSign = lines.join("\n");
  return {
    accept: "application/json",
    date: lines[4] ?? "",
    "x-ca-key": partner.appKey,
    "x-ca-signature-headers": "x-api-key",
    "x-api-key": partner.apiKey,
    "x-ca-signature": computeSignature(partner.appSecret, stringToSign),
    ...extraHeaders,
  };
}

function now(): string {
  return formatGatewayDate(new Date());
}

async function assertInvalidSignature(
  response: { status: number; text: string; headers: Headers },
  reason: string,
): Promise<void> {
  assert.equal(response.status, 400);
  assert.equal(response.text, "Invalid Signature");
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain/);
  assert.match(
    response.headers.get("x-ca-error-message") ?? "",
    /^Invalid Signature, Server StringToSign:`.*`$/,
  );
  assert.equal(response.headers.get("x-ca-error-reason"), reason);
}

describe("a correctly signed request", () => {
  it("passes the gateway through the SDK", async () => {
    const user = await platform.client(partner).getUser(userId);
    assert.equal(user.userId, userId);
  });

  it("passes with the extra x-ca-* headers that Alibaba client libraries sign", async () => {
    const date = now();
    const nonce = randomUUID();
    const timestamp = String(Date.now());
    const lines = [
      "GET",
      "application/json",
      "",
      "",
      date,
      `x-api-key:${partner.apiKey}`,
      `x-ca-key:${partner.appKey}`,
      `x-ca-nonce:${nonce}`,
      `x-ca-stage:RELEASE`,
      `x-ca-timestamp:${timestamp}`,
      `/user/${userId}`,
    ];
    const response = await platform.raw("gateway", {
      path: `/user/${userId}`,
      headers: handSigned(lines, {
        "x-ca-signature-headers": "x-ca-timestamp,x-ca-key,x-ca-nonce,x-ca-stage,x-api-key",
        "x-ca-nonce": nonce,
        "x-ca-stage": "RELEASE",
        "x-ca-timestamp": timestamp,
      }),
    });
    assert.equal(response.status, 200, response.text);
  });

  it("accepts listed header names in any case, because HTTP header names are case-insensitive", async () => {
    const signed = signRequest(partner, { method: "GET", path: `/user/${userId}`, nonce: false });
    const response = await platform.raw("gateway", {
      path: signed.pathAndQuery,
      headers: { ...signed.headers, "x-ca-signature-headers": "X-Api-Key" },
    });
    assert.equal(response.status, 200, response.text);
  });
});

describe("signature mismatch causes (HTTP 400, text/plain Invalid Signature)", () => {
  it("refuses uppercase header names in the signed lines", async () => {
    const lines = [
      "GET",
      "application/json",
      "",
      "",
      now(),
      `X-Api-Key:${partner.apiKey}`,
      `/user/${userId}`,
    ];
    const response = await platform.raw("gateway", {
      path: `/user/${userId}`,
      headers: handSigned(lines, { "x-ca-signature-headers": "X-Api-Key" }),
    });
    await assertInvalidSignature(response, "signature");
  });

  it("refuses a bodyless request signed without its two empty lines", async () => {
    const lines = ["GET", "application/json", now(), `x-api-key:${partner.apiKey}`, `/user/${userId}`];
    const date = lines[2]!;
    const response = await platform.raw("gateway", {
      path: `/user/${userId}`,
      headers: { ...handSigned(lines), date },
    });
    await assertInvalidSignature(response, "signature");
  });

  it("refuses unsorted query parameters in the signed path", async () => {
    const lines = [
      "GET",
      "application/json",
      "",
      "",
      now(),
      `x-api-key:${partner.apiKey}`,
      `/user/${userId}?b=2&a=1`,
    ];
    const response = await platform.raw("gateway", {
      path: `/user/${userId}?b=2&a=1`,
      headers: handSigned(lines),
    });
    await assertInvalidSignature(response, "signature");
    const serverLine = response.headers.get("x-ca-error-message") ?? "";
    assert.ok(serverLine.includes(`/user/${userId}?a=1&b=2\``), serverLine);
  });

  it("refuses URL-encoded query parameters in the signed path", async () => {
    const target = `/user/${userId}?q=a%20b`;
    const lines = ["GET", "application/json", "", "", now(), `x-api-key:${partner.apiKey}`, target];
    const response = await platform.raw("gateway", { path: target, headers: handSigned(lines) });
    await assertInvalidSignature(response, "signature");
  });

  it("refuses a date more than 15 minutes behind or ahead of the server, and says so", async () => {
    for (const skewMs of [-16 * 60_000, 16 * 60_000]) {
      const client = platform.client(partner, { now: () => new Date(Date.now() + skewMs) });
      const error = await client.getUser(userId).then(
        () => assert.fail("expected a gateway error"),
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof GatewayError);
      assert.equal(error.status, 400);
      assert.equal(error.message, "Invalid Signature");
      assert.equal(error.reason, "date-skew");
      // The signature itself was right, so the server's string-to-sign is the client's own.
      assert.ok(error.serverStringToSign?.startsWith("GET\napplication/json\n\n\n"));
    }
  });

  it("accepts a clock 14 minutes off", async () => {
    const client = platform.client(partner, { now: () => new Date(Date.now() - 14 * 60_000) });
    assert.equal((await client.getUser(userId)).userId, userId);
  });

  it("refuses a date that is not YYYY-MM-DD HH:mm:ss UTC, or no date at all", async () => {
    const rfcDate = new Date().toUTCString();
    const lines = [
      "GET",
      "application/json",
      "",
      "",
      rfcDate,
      `x-api-key:${partner.apiKey}`,
      `/user/${userId}`,
    ];
    await assertInvalidSignature(
      await platform.raw("gateway", { path: `/user/${userId}`, headers: handSigned(lines) }),
      "date-format",
    );
    const { date: _date, ...withoutDate } = signRequest(partner, {
      method: "GET",
      path: `/user/${userId}`,
    }).headers;
    await assertInvalidSignature(
      await platform.raw("gateway", { path: `/user/${userId}`, headers: withoutDate }),
      "date-missing",
    );
  });

  it("refuses a body that differs from the hashed body, even only in key order", async () => {
    const signedBody = Buffer.from('{"userEmail":"a@example.com","merchantId":"1","marchantUserId":"x"}');
    const sentBody = '{"merchantId":"1","userEmail":"a@example.com","marchantUserId":"x"}';
    const signed = signRequest(partner, { method: "POST", path: "/user/register", body: signedBody });
    await assertInvalidSignature(
      await platform.raw("gateway", {
        method: "POST",
        path: "/user/register",
        headers: signed.headers,
        body: sentBody,
      }),
      "content-md5",
    );
    // Without content-md5 the body's own hash goes into the server's string-to-sign: still a mismatch.
    const { "content-md5": _md5, ...withoutMd5 } = signed.headers;
    await assertInvalidSignature(
      await platform.raw("gateway", {
        method: "POST",
        path: "/user/register",
        headers: withoutMd5,
        body: sentBody,
      }),
      "signature",
    );
  });

  it("refuses a request signed with the API key instead of the APP Secret", async () => {
    const client = platform.client({ ...partner, appSecret: partner.apiKey });
    const error = await client.getUser(userId).catch((caught: unknown) => caught);
    assert.ok(error instanceof GatewayError);
    assert.equal(error.status, 400);
    assert.equal(error.reason, "signature");
  });

  it("refuses a request without x-ca-signature", async () => {
    const { "x-ca-signature": _signature, ...unsigned } = signRequest(partner, {
      method: "GET",
      path: `/user/${userId}`,
    }).headers;
    await assertInvalidSignature(
      await platform.raw("gateway", { path: `/user/${userId}`, headers: unsigned }),
      "signature-missing",
    );
  });

  it("refuses a listed signed header that was not sent", async () => {
    const signed = signRequest(partner, { method: "GET", path: `/user/${userId}`, nonce: randomUUID() });
    const { "x-ca-nonce": _nonce, ...headers } = signed.headers;
    await assertInvalidSignature(
      await platform.raw("gateway", { path: `/user/${userId}`, headers }),
      "signed-header-missing",
    );
  });

  it("shows the server's string-to-sign with newlines as #", async () => {
    const signed = signRequest(
      { ...partner, appSecret: "wrong" },
      { method: "GET", path: `/user/${userId}` },
    );
    const response = await platform.raw("gateway", { path: signed.pathAndQuery, headers: signed.headers });
    assert.equal(
      response.headers.get("x-ca-error-message"),
      `Invalid Signature, Server StringToSign:\`${signed.stringToSign.replaceAll("\n", "#")}\``,
    );
  });
});

describe("unknown keys (HTTP 401, text/plain Invalid Key)", () => {
  it("refuses an APP Key the platform never issued", async () => {
    const error = await platform
      .client({ ...partner, appKey: "no-such-key" })
      .getUser(userId)
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof GatewayError);
    assert.equal(error.status, 401);
    assert.equal(error.message, "Invalid Key");
  });

  it("refuses a request without x-ca-key, on any path", async () => {
    const response = await platform.raw("gateway", { path: "/no/such/route" });
    assert.equal(response.status, 401);
    assert.equal(response.text, "Invalid Key");
    assert.match(response.headers.get("content-type") ?? "", /^text\/plain/);
  });
});

describe("nonce replay", () => {
  it("refuses a signed x-ca-nonce seen before with 401 and code 1401", async () => {
    const signed = signRequest(partner, { method: "GET", path: `/user/${userId}`, nonce: randomUUID() });
    const first = await platform.raw("gateway", { path: signed.pathAndQuery, headers: signed.headers });
    assert.equal(first.status, 200);
    const replay = await platform.raw("gateway", { path: signed.pathAndQuery, headers: signed.headers });
    assert.equal(replay.status, 401);
    assert.deepEqual(replay.json, { code: 1401, message: "unauthorized: Nonce already used", data: null });
  });

  it("lets the SDK sign a fresh nonce into every request (its default)", async () => {
    const client = platform.client(partner);
    await client.getUser(userId);
    await client.getUser(userId);
  });

  it("does not remember a nonce that was not signed", async () => {
    const signed = signRequest(partner, { method: "GET", path: `/user/${userId}`, nonce: false });
    const headers = { ...signed.headers, "x-ca-nonce": "unsigned-nonce" };
    assert.equal((await platform.raw("gateway", { path: signed.pathAndQuery, headers })).status, 200);
    assert.equal((await platform.raw("gateway", { path: signed.pathAndQuery, headers })).status, 200);
  });
});

describe("what passes the gateway reaches the service", () => {
  it("answers a correctly signed POST with another content type with 415/1415", async () => {
    const body = Buffer.from("userEmail=a");
    const signed = signRequest(partner, {
      method: "POST",
      path: "/user/register",
      body,
      contentType: "text/plain",
    });
    const response = await platform.raw("gateway", {
      method: "POST",
      path: "/user/register",
      headers: signed.headers,
      body,
    });
    assert.equal(response.status, 415);
    assert.deepEqual(response.json, {
      code: 1415,
      message: "unsupported media type: Content-Type must be application/json",
      data: null,
    });
  });

  it("checks the hash of the exact raw body", async () => {
    // Extra whitespace is part of the bytes: signed and sent identically, it passes.
    const body = Buffer.from(
      JSON.stringify(
        { userEmail: "ws@example.com", merchantId: partner.merchantId, marchantUserId: "ws" },
        null,
        2,
      ),
    );
    const signed = signRequest(partner, { method: "POST", path: "/user/register", body });
    assert.equal(signed.headers["content-md5"], computeContentMd5(body));
    const response = await platform.raw("gateway", {
      method: "POST",
      path: "/user/register",
      headers: signed.headers,
      body,
    });
    assert.equal(response.status, 200, response.text);
  });

  it("lets the SDK report a service error as PredexApiError, not a gateway error", async () => {
    const error = await platform
      .client(partner)
      .getUser("999999")
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof PredexApiError);
    assert.equal(error.code, 1404);
  });

  it("serves /docs without credentials", async () => {
    const response = await platform.raw("gateway", { path: "/docs/json" });
    assert.equal(response.status, 200);
    assert.ok((response.json as { paths: Record<string, unknown> }).paths["/user/register"]);
  });
});

// Keeps the hand-built vectors above honest: the same parts through the shared builder.
it("builds hand-signed lines the way the shared builder does", () => {
  assert.equal(
    buildStringToSign({
      method: "GET",
      accept: "application/json",
      contentMd5: "",
      contentType: "",
      date: "d",
      signedHeaders: [["x-api-key", "k"]],
      pathAndQuery: "/p",
    }),
    ["GET", "application/json", "", "", "d", "x-api-key:k", "/p"].join("\n"),
  );
});
