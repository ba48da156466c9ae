// The service layer's answers (spec 000 "Errors"): the envelope, the API key, cookies, unknown
// users and routes, media types and body validation. Each is a JSON envelope with data null.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { computeSignature } from "../../src/contract/signing/gateway-signature.js";
import { formatGatewayDate } from "../../src/contract/signing/string-to-sign.js";
import { PredexApiError } from "../../src/sdk/errors.js";
import { type PartnerCredentials, startTestPlatform, type TestPlatform } from "./harness.js";

let platform: TestPlatform;
let partner: PartnerCredentials;

before(async () => {
  platform = await startTestPlatform();
  partner = await platform.createPartner();
});
after(() => platform.close());

async function apiError(promise: Promise<unknown>): Promise<PredexApiError> {
  const error = await promise.then(
    () => assert.fail("expected a service error"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof PredexApiError, String(error));
  return error;
}

function assertError(error: PredexApiError, status: number, code: number, message: string): void {
  assert.deepEqual(
    { status: error.status, code: error.code, message: error.message },
    { status, code, message },
  );
}

function registration(marchantUserId: string) {
  return { userEmail: `${marchantUserId}@example.com`, merchantId: partner.merchantId, marchantUserId };
}

describe("x-api-key", () => {
  it("is required: 401/1401 Missing X-API-KEY header", async () => {
    // Signed correctly, but with no x-api-key header at all (so none in the signed lines).
    const date = formatGatewayDate(new Date());
    const stringToSign = ["GET", "application/json", "", "", date, "/user/1"].join("\n");
    const response = await platform.raw("gateway", {
      path: "/user/1",
      headers: {
        accept: "application/json",
        date,
        "x-ca-key": partner.appKey,
        "x-ca-signature": computeSignature(partner.appSecret, stringToSign),
      },
    });
    assert.equal(response.status, 401);
    assert.deepEqual(response.json, {
      code: 1401,
      message: "unauthorized: Missing X-API-KEY header",
      data: null,
    });
  });

  it("must be the API key of the APP Key's partner: 401/1401 Invalid X-API-KEY", async () => {
    const other = await platform.createPartner();
    for (const apiKey of ["pdx_wrong", other.apiKey]) {
      const error = await apiError(platform.client({ ...partner, apiKey }).getUser("1"));
      assertError(error, 401, 1401, "unauthorized: Invalid X-API-KEY");
    }
  });
});

describe("session cookie", () => {
  it("is required on user-scoped routes: 401/1401 Missing Cookie header", async () => {
    const error = await apiError(platform.client(partner).getProfile());
    assertError(error, 401, 1401, "unauthorized: Missing Cookie header");
  });

  it("must be a live session: 401/1401 Invalid or expired session", async () => {
    for (const cookie of ["predex_session=not-a-session", "other=1"]) {
      const client = platform.client(partner);
      client.sessionCookie = cookie;
      const error = await apiError(client.getProfile());
      assertError(error, 401, 1401, "unauthorized: Invalid or expired session");
    }
  });
});

describe("unknown things", () => {
  it("answers an unknown user with 404/1404 User not found", async () => {
    for (const id of ["999999", "abc", "0"]) {
      const error = await apiError(platform.client(partner).getUser(id));
      assertError(error, 404, 1404, "resource not found: User not found");
    }
  });

  it("answers an unknown route with 404/1404, after the gateway", async () => {
    const error = await apiError(platform.client(partner).request("GET", "/no/such/route"));
    assertError(error, 404, 1404, "resource not found: Route not found");
  });
});

describe("request bodies", () => {
  it("names the empty, missing or mistyped field: 400/1001", async () => {
    const client = platform.client(partner);
    const cases: Array<[unknown, string]> = [
      [{ ...registration("e1"), userEmail: "" }, "bad request: userEmail must be a non-empty string"],
      [
        { ...registration("e2"), marchantUserId: "   " },
        "bad request: marchantUserId must be a non-empty string",
      ],
      [
        { userEmail: "x@example.com", merchantId: partner.merchantId },
        "bad request: Missing required field marchantUserId",
      ],
      [
        { ...registration("e3"), merchantId: Number(partner.merchantId) },
        "bad request: merchantId must be string",
      ],
      [[1, 2], "bad request: Request body must be a JSON object"],
    ];
    for (const [body, message] of cases) {
      const error = await apiError(client.request("POST", "/user/register", { body }));
      assertError(error, 400, 1001, message);
    }
  });

  it("refuses a POST without a body as a missing object", async () => {
    const error = await apiError(platform.client(partner).request("POST", "/user/register"));
    assertError(error, 400, 1001, "bad request: Request body must be a JSON object");
  });

  it("refuses a body that is not JSON: 400/1001", async () => {
    const response = await platform.signed(partner, {
      method: "POST",
      path: "/user/register",
      body: "{not json",
    });
    assert.equal(response.status, 400);
    assert.deepEqual(response.json, {
      code: 1001,
      message: "bad request: Request body is not valid JSON",
      data: null,
    });
  });

  it("does not even read the JSON of a request that fails the gateway", async () => {
    const response = await platform.signed(
      { ...partner, appSecret: "wrong" },
      { method: "POST", path: "/user/register", body: "{not json" },
    );
    assert.equal(response.status, 400);
    assert.equal(response.text, "Invalid Signature");
  });

  it("refuses a body over 1 MiB: 400/1001", async () => {
    const body = { ...registration("big"), padding: "x".repeat(1024 * 1024) };
    const error = await apiError(platform.client(partner).request("POST", "/user/register", { body }));
    assertError(error, 400, 1001, "bad request: Request body exceeds 1048576 bytes");
  });

  it("refuses registering under another partner's merchantId: 400/1001", async () => {
    const other = await platform.createPartner();
    const error = await apiError(
      platform.client(partner).register({ ...registration("cross"), merchantId: other.merchantId }),
    );
    assertError(error, 400, 1001, "bad request: merchantId does not belong to the partner of this API key");
  });

  it("ignores unknown JSON fields", async () => {
    const user = await platform.client(partner).request<{ userId: string }>("POST", "/user/register", {
      body: { ...registration("extra"), favouriteColour: "green" },
    });
    assert.match(user.userId, /^[0-9]+$/);
  });
});

describe("success envelope", () => {
  it("is {code: 0, message: ok, data} with string ids", async () => {
    const client = platform.client(partner);
    await client.register(registration("envelope"));
    const envelope = await client.requestEnvelope("GET", "/user/profile");
    assert.equal(envelope.code, 0);
    assert.equal(envelope.message, "ok");
    const profile = envelope.data as Record<string, unknown>;
    assert.deepEqual(Object.keys(profile).sort(), [
      "avatarUrl",
      "createdAt",
      "email",
      "marchantUserId",
      "merchantId",
      "mfaEnabled",
      "userId",
      "userName",
    ]);
    assert.equal(profile.merchantId, partner.merchantId);
    assert.equal(profile.mfaEnabled, false);
    assert.match(String(profile.createdAt), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });
});
