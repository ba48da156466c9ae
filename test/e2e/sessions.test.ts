// The session state table of spec 000: no session → register → valid → expired or revoked →
// invalid (1401) → register again → valid; plus the cookie's attributes and its partner binding.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { PredexApiError } from "../../src/sdk/errors.js";
import { signRequest } from "../../src/sdk/signer.js";
import { startTestPlatform, type TestPlatform } from "./harness.js";

const invalidSession = "unauthorized: Invalid or expired session";

async function sessionError(promise: Promise<unknown>): Promise<PredexApiError> {
  const error = await promise.then(
    () => assert.fail("expected a session error"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof PredexApiError);
  assert.equal(error.status, 401);
  assert.equal(error.code, 1401);
  return error;
}

describe("sessions on a platform with the default lifetime", () => {
  let platform: TestPlatform;
  before(async () => {
    platform = await startTestPlatform();
  });
  after(() => platform.close());

  it("issues predex_session as HttpOnly, SameSite=Lax, Max-Age 86400, not Secure without TLS", async () => {
    const partner = await platform.createPartner();
    const body = Buffer.from(
      JSON.stringify({
        userEmail: "c@example.com",
        merchantId: partner.merchantId,
        marchantUserId: "cookie",
      }),
    );
    const signed = signRequest(partner, { method: "POST", path: "/user/register", body });
    const response = await platform.raw("gateway", {
      method: "POST",
      path: "/user/register",
      headers: signed.headers,
      body,
    });
    assert.equal(response.status, 200);
    const [setCookie] = response.headers.getSetCookie();
    assert.match(setCookie ?? "", /^predex_session=[A-Za-z0-9_-]{43}; /);
    for (const attribute of ["Max-Age=86400", "Path=/", "HttpOnly", "SameSite=Lax"]) {
      assert.ok(setCookie?.includes(attribute), `${attribute} in ${setCookie}`);
    }
    assert.ok(!setCookie?.includes("Secure"));
  });

  it("returns the same user and a fresh cookie when the user registers again", async () => {
    const { client, user, partner } = await platform.registeredUser({ marchantUserId: "again" });
    const firstCookie = client.sessionCookie;
    const second = await client.register({
      userEmail: "new@example.com",
      merchantId: partner.merchantId,
      marchantUserId: "again",
    });
    assert.equal(second.userId, user.userId);
    assert.equal(second.email, "new@example.com");
    assert.notEqual(client.sessionCookie, firstCookie);
  });

  it("moves valid → revoked (1401) → registered again → valid", async () => {
    const { client, user, partner } = await platform.registeredUser();
    assert.equal((await client.getProfile()).userId, user.userId);

    await platform.revokeSessions(user.userId);

    // A client that never registered this user cannot recover by itself: it sees the 1401.
    const stale = platform.client(partner);
    stale.sessionCookie = client.sessionCookie;
    assert.equal((await sessionError(stale.getProfile())).message, invalidSession);

    // The SDK that registered the user follows the spec's recovery: register again, retry once.
    const cookieBefore = client.sessionCookie;
    assert.equal((await client.getProfile()).userId, user.userId);
    assert.notEqual(client.sessionCookie, cookieBefore);
  });

  it("treats another partner's session as invalid", async () => {
    const { client } = await platform.registeredUser();
    const otherPartner = platform.client(await platform.createPartner());
    otherPartner.sessionCookie = client.sessionCookie;
    assert.equal((await sessionError(otherPartner.getProfile())).message, invalidSession);
  });

  it("keeps only a hash of the session token", async () => {
    const { client } = await platform.registeredUser();
    const token = client.sessionCookie!.split("=")[1]!;
    const files = ["predex.db", "predex.db-wal"].map((name) => {
      try {
        return readFileSync(join(platform.dataDir, name)).toString("latin1");
      } catch {
        return "";
      }
    });
    assert.ok(files.every((bytes) => !bytes.includes(token)));
  });

  it("answers an unknown admin user id with 404/1404", async () => {
    const response = await platform.admin("POST", "/admin/users/999999/revoke-sessions");
    assert.equal(response.status, 404);
    assert.deepEqual(response.json, {
      code: 1404,
      message: "resource not found: User not found",
      data: null,
    });
  });
});

describe("sessions on a platform with a one-second lifetime", () => {
  /** Added to the real clock: the test moves the platform's time instead of sleeping. */
  let clockOffsetMs = 0;
  let platform: TestPlatform;
  before(async () => {
    platform = await startTestPlatform({
      env: { PREDEX_SESSION_TTL_SECONDS: "1" },
      platform: { nowMs: () => Date.now() + clockOffsetMs },
    });
  });
  after(() => platform.close());

  it("moves no session → valid → expired (1401) → registered again → valid", async () => {
    const partner = await platform.createPartner();
    const client = platform.client(partner);
    const registration = {
      userEmail: "t@example.com",
      merchantId: partner.merchantId,
      marchantUserId: "ttl",
    };

    const user = await client.register(registration);
    assert.equal((await client.getProfile()).userId, user.userId);

    // The platform's clock moves on past the one-second TTL; nothing sleeps.
    clockOffsetMs += 1_100;
    const stale = platform.client(partner);
    stale.sessionCookie = client.sessionCookie;
    assert.equal((await sessionError(stale.getProfile())).message, invalidSession);

    const again = await stale.register(registration);
    assert.equal(again.userId, user.userId);
    assert.equal((await stale.getProfile()).userId, user.userId);
  });
});
