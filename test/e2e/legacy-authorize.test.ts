// The legacy authorize call and bearer tokens (spec 001 "Authentication", DESIGN §8), through the
// legacy SDK client and hand-made requests against a real server.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SignJWT } from "jose";
import { legacyPaths } from "../../src/contract/legacy/paths.js";
import { authorizeSignedContent } from "../../src/contract/signing/authorize-signature.js";
import { LegacyApiError } from "../../src/sdk/legacy/errors.js";
import { newNonce, signAuthorizeRequest } from "../../src/sdk/legacy/signer.js";
import { startPlatform } from "../../src/server.js";
import { type LegacyPlatform, type Merchant, rsaKeyPair, startLegacyPlatform } from "../legacy/fixtures.js";
import { testPlatformConfig } from "./harness.js";

let platform: LegacyPlatform;
let merchant: Merchant;
before(async () => {
  platform = await startLegacyPlatform();
  merchant = await platform.createMerchant();
});
after(() => platform.close());

function authorizeBody(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({ marchantUserId: "alice", merchantId: merchant.merchantId, ...overrides });
}

/** A signed authorize request; `headers` replace or remove (undefined) signed headers afterwards. */
async function authorize(
  options: {
    body?: string;
    signer?: Merchant;
    timestampMs?: number;
    nonce?: string;
    headers?: Record<string, string | undefined>;
  } = {},
) {
  const signer = options.signer ?? merchant;
  const body = options.body ?? authorizeBody();
  const signed = signAuthorizeRequest({
    apiKey: signer.apiKey,
    privateKey: signer.privateKey,
    method: "POST",
    pathAndQuery: legacyPaths.authorize,
    body,
    ...(options.timestampMs === undefined ? {} : { timestampMs: options.timestampMs }),
    ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
  });
  const headers: Record<string, string> = { ...signed.headers };
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  return platform.raw("legacy", { method: "POST", path: legacyPaths.authorize, headers, body });
}

describe("POST /api/user/openapi/authorize", () => {
  it("returns a 24-hour JWT and the user's numeric id; the same merchant user gets the same id", async () => {
    const first = await authorize();
    assert.equal(first.status, 200);
    const envelope = first.json as {
      code: number;
      msg: string;
      data: { token: string; expiresIn: number; userId: number };
    };
    assert.equal(envelope.code, 200);
    assert.equal(envelope.msg, "success");
    assert.equal(envelope.data.expiresIn, 86_400);
    assert.equal(typeof envelope.data.userId, "number");
    assert.match(envelope.data.token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const again = await authorize();
    assert.equal((again.json as typeof envelope).data.userId, envelope.data.userId);
  });

  it("works through the SDK client, which signs exactly the bytes it sends", async () => {
    const client = platform.legacyClient(merchant);
    const authorized = await client.authorize();
    assert.equal(authorized.expiresIn, 86_400);
    assert.equal(client.userId, authorized.userId);
  });

  it("refuses a missing header with 400 parameter error naming it", async () => {
    for (const header of ["x-api-key", "x-signature", "x-timestamp", "x-nonce", "content-type"]) {
      const response = await authorize({ headers: { [header]: undefined } });
      assert.equal(response.status, 400, header);
      const body = response.json as { code: number; msg: string; data: { errorCode: number; field: string } };
      assert.equal(body.code, 400);
      assert.equal(body.msg, "parameter error");
      assert.equal(body.data.errorCode, 400);
      assert.match(body.data.field.toLowerCase(), new RegExp(header));
    }
  });

  it("refuses a nonce shorter than 16 or longer than 64 characters with 400, before the signature", async () => {
    for (const nonce of ["a".repeat(15), "b".repeat(65)]) {
      const response = await authorize({ nonce });
      assert.equal(response.status, 400);
      assert.deepEqual(response.json, {
        code: 400,
        msg: "parameter error",
        data: { errorCode: 400, field: "X-Nonce", reason: "must be 16 to 64 printable characters" },
      });
    }
    for (const nonce of ["c".repeat(16), "d".repeat(64)]) {
      assert.equal((await authorize({ nonce })).status, 200);
    }
  });

  it("refuses a bad signature with 401", async () => {
    const other = rsaKeyPair();
    const forged = await authorize({ signer: { ...merchant, privateKey: other.privateKey } });
    assert.equal(forged.status, 401);
    assert.deepEqual(forged.json, { code: 401, msg: "invalid signature", data: { errorCode: 401 } });
    // A body changed after signing is a bad signature too.
    const signed = signAuthorizeRequest({
      apiKey: merchant.apiKey,
      privateKey: merchant.privateKey,
      method: "POST",
      pathAndQuery: legacyPaths.authorize,
      body: authorizeBody(),
    });
    const tampered = await platform.raw("legacy", {
      method: "POST",
      path: legacyPaths.authorize,
      headers: signed.headers,
      body: authorizeBody({ marchantUserId: "mallory" }),
    });
    assert.equal(tampered.status, 401);
    const garbage = await authorize({ headers: { "x-signature": "not base64!" } });
    assert.equal(garbage.status, 401);
  });

  it("refuses a timestamp more than 5 minutes from the server's clock with 401", async () => {
    for (const skewMs of [-5 * 60_000 - 5_000, 5 * 60_000 + 5_000]) {
      const response = await authorize({ timestampMs: Date.now() + skewMs });
      assert.equal(response.status, 401);
      assert.deepEqual(response.json, {
        code: 401,
        msg: "timestamp is outside the allowed window",
        data: { errorCode: 401 },
      });
    }
    assert.equal((await authorize({ timestampMs: Date.now() - 4 * 60_000 })).status, 200);
  });

  it("refuses a nonce used before with 401", async () => {
    const nonce = newNonce();
    assert.equal((await authorize({ nonce })).status, 200);
    const replay = await authorize({ nonce });
    assert.equal(replay.status, 401);
    assert.deepEqual(replay.json, {
      code: 401,
      msg: "nonce has already been used",
      data: { errorCode: 401 },
    });
  });

  it("refuses an unknown API key with 401 (402 invalid api key)", async () => {
    const response = await authorize({ signer: { ...merchant, apiKey: "nope" } });
    assert.equal(response.status, 401);
    assert.deepEqual(response.json, { code: 401, msg: "invalid api key", data: { errorCode: 402 } });
  });

  it("refuses an unknown merchant, or another merchant's id, with 401", async () => {
    const other = await platform.createMerchant();
    for (const merchantId of ["999999", other.merchantId]) {
      const response = await authorize({ body: authorizeBody({ merchantId }) });
      assert.equal(response.status, 401);
      assert.deepEqual(response.json, {
        code: 401,
        msg: "merchantId does not belong to this API key",
        data: { errorCode: 402 },
      });
    }
  });

  it("checks the body after the credentials: a missing marchantUserId is 400", async () => {
    const response = await authorize({ body: JSON.stringify({ merchantId: merchant.merchantId }) });
    assert.equal(response.status, 400);
    const body = response.json as { code: number; msg: string; data: { errorCode: number; field: string } };
    assert.deepEqual(
      [body.code, body.msg, body.data.errorCode, body.data.field],
      [400, "parameter error", 400, "marchantUserId"],
    );
    const invalidJson = await authorize({ body: "{not json" });
    assert.equal(invalidJson.status, 400);
    // The same bad body with a bad signature is a 401: credentials are checked first.
    const forged = await authorize({ body: "{not json", headers: { "x-signature": "AAAA" } });
    assert.equal(forged.status, 401);
  });

  it("refuses a merchant that registered no RSA key with 401", async () => {
    const plain = await platform.createPartner();
    const keys = rsaKeyPair();
    const response = await authorize({
      signer: { ...merchant, apiKey: plain.apiKey, privateKey: keys.privateKey },
      body: JSON.stringify({ marchantUserId: "x", merchantId: plain.merchantId }),
    });
    assert.equal(response.status, 401);
  });

  it("signs the six-part content the spec describes", () => {
    assert.equal(
      authorizeSignedContent({
        method: "post",
        pathAndQuery: "/api/user/openapi/authorize?a=1",
        body: '{"x":1}',
        timestamp: "1700000000000",
        nonce: "0123456789abcdef",
      }),
      'POST\napplication/json\n/api/user/openapi/authorize?a=1\n{"x":1}\n1700000000000\n0123456789abcdef',
    );
  });
});

describe("bearer tokens", () => {
  const resultPath = legacyPaths.requestResult("00000000-0000-0000-0000-000000000000");

  it("are required on JWT routes: missing, forged or expired is 401", async () => {
    const missing = await platform.raw("legacy", { path: resultPath });
    assert.equal(missing.status, 401);
    assert.deepEqual(missing.json, {
      code: 401,
      msg: "invalid token / token has expired",
      data: { errorCode: 401 },
    });
    const forged = await platform.raw("legacy", {
      path: resultPath,
      headers: { authorization: "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl" },
    });
    assert.equal(forged.status, 401);
    // A token of the right shape, signed with another key.
    const wrongKey = await new SignJWT({ merchantId: merchant.merchantId })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("1")
      .setIssuer("predex-legacy")
      .setExpirationTime("1h")
      .sign(new Uint8Array(32));
    const refused = await platform.raw("legacy", {
      path: resultPath,
      headers: { authorization: `Bearer ${wrongKey}` },
    });
    assert.equal(refused.status, 401);
  });

  it("expire after 24 hours", async () => {
    const client = platform.legacyClient(merchant);
    const { token } = await client.authorize();
    const valid = await platform.raw("legacy", {
      path: resultPath,
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(valid.status, 404, "a valid token reaches the route");
    const tokens = platform.platform.apps.legacy.legacyServices.tokens;
    assert.equal(await tokens.verify(token, Date.now() + 86_400_000 + 1_000), undefined);
    assert.notEqual(await tokens.verify(token, Date.now() + 86_000_000), undefined);
  });

  it("are renewed by the SDK when refused: it authorizes again and retries", async () => {
    const client = platform.legacyClient(merchant);
    await client.authorize();
    client.token = "expired.or.forged";
    await assert.rejects(
      client.getRequestResult("00000000-0000-0000-0000-000000000000"),
      (error: unknown) =>
        error instanceof LegacyApiError && error.status === 404 && error.msg === "Request not found",
    );
    assert.notEqual(client.token, "expired.or.forged");
  });
});

describe("nonces survive a restart", () => {
  it("refuses, after a restart on the same data dir, a nonce used before it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "predex-legacy-nonce-"));
    const config = testPlatformConfig(dataDir);
    try {
      const keys = rsaKeyPair();
      let running = await startPlatform(config);
      const created = await fetch(`${running.addresses.admin}/admin/partners`, {
        method: "POST",
        headers: { authorization: `Bearer ${running.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ rsaPublicKey: keys.publicKeyPem }),
      });
      const partner = ((await created.json()) as { data: { merchantId: string; apiKey: string } }).data;
      const body = JSON.stringify({ marchantUserId: "bob", merchantId: partner.merchantId });
      const signed = signAuthorizeRequest({
        apiKey: partner.apiKey,
        privateKey: keys.privateKey,
        method: "POST",
        pathAndQuery: legacyPaths.authorize,
        body,
      });
      const send = (base: string) =>
        fetch(`${base}${legacyPaths.authorize}`, { method: "POST", headers: signed.headers, body });
      assert.equal((await send(running.addresses.legacy)).status, 200);
      await running.close();
      running = await startPlatform(config);
      const replay = await send(running.addresses.legacy);
      assert.equal(replay.status, 401);
      assert.equal(((await replay.json()) as { msg: string }).msg, "nonce has already been used");
      await running.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
