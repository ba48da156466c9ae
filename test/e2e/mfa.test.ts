// MFA end to end (spec 000 "/user/mfa/*", DESIGN §4): a real platform on port 0, driven through the
// SDK, with TOTP codes computed here from the secret with otplib and email codes read from the
// outbox file. Errors are read raw, so each one's status, code, message, `data: null` and
// Retry-After are checked as a partner sees them. The platform's clock and the SDK's signing clock
// are the same fake clock, so the lock period can pass without waiting.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { generateSync } from "otplib";
import type { RegisteredUser } from "../../src/contract/partner/users.js";
import type { PredexClient } from "../../src/sdk/client.js";
import { signRequest } from "../../src/sdk/signer.js";
import {
  type PartnerCredentials,
  type RawResponse,
  startTestPlatform,
  type TestPlatform,
} from "./harness.js";

let platform: TestPlatform;
let partner: PartnerCredentials;
/** Mid-step of a 30-second TOTP period, so ±30 s moves exactly one step. */
let clockMs = Date.UTC(2026, 10, 22, 10, 0, 15);
const stepMs = 30_000;

before(async () => {
  platform = await startTestPlatform({ platform: { nowMs: () => clockMs } });
  partner = await platform.createPartner();
});
after(() => platform.close());

interface TestUser {
  readonly client: PredexClient;
  readonly user: RegisteredUser;
}

async function newUser(): Promise<TestUser> {
  const { client, user } = await platform.registeredUser({
    partner,
    client: { now: () => new Date(clockMs) },
  });
  return { client, user };
}

function totpCode(secret: string, atMs = clockMs): string {
  return generateSync({ secret, epoch: Math.floor(atMs / 1000) });
}

/** A six-digit code that is not `code`. */
function wrongCode(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, "0");
}

/** A signed request as the SDK would send it, answered raw. */
async function call(testUser: TestUser, method: string, path: string, body?: unknown): Promise<RawResponse> {
  const bytes = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const signed = signRequest(partner, {
    method,
    path,
    date: new Date(clockMs),
    ...(bytes === undefined ? {} : { body: bytes }),
    ...(testUser.client.sessionCookie === undefined ? {} : { cookie: testUser.client.sessionCookie }),
  });
  return platform.raw("gateway", {
    method,
    path,
    headers: signed.headers,
    ...(bytes === undefined ? {} : { body: bytes }),
  });
}

function assertError(response: RawResponse, status: number, code: number, message: string | RegExp): void {
  assert.equal(response.status, status, response.text);
  const body = response.json as { code: number; message: string; data: unknown };
  assert.deepEqual(Object.keys(body).sort(), ["code", "data", "message"]);
  assert.equal(body.code, code);
  if (typeof message === "string") assert.equal(body.message, message);
  else assert.match(body.message, message);
  assert.equal(body.data, null);
}

async function enrolled(testUser: TestUser): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await testUser.client.setupTotp();
  const enabled = await testUser.client.enableTotp(totpCode(setup.secret));
  return { secret: setup.secret, recoveryCodes: enabled.recoveryCodes };
}

function outbox(): Array<{ to: Array<{ address: string }>; subject: string; text: string }> {
  const path = join(platform.dataDir, "mail", "outbox.jsonl");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));
}

function mailedCode(email: string): string {
  const mail = outbox()
    .filter((message) => message.to[0]?.address === email)
    .at(-1);
  const code = /\b(\d{6})\b/.exec(mail?.text ?? "")?.[1];
  assert.ok(code !== undefined, `no code mailed to ${email}`);
  return code;
}

describe("TOTP through the SDK", () => {
  it("sets up, enables with a code from the secret, shows in status and profile, and issues a ticket", async () => {
    const alice = await newUser();
    const setup = await alice.client.setupTotp();
    assert.equal(setup.issuer, "predex");
    assert.deepEqual([setup.algorithm, setup.digits, setup.period], ["SHA1", 6, 30]);
    assert.ok(setup.otpauthUri.startsWith("otpauth://totp/predex:"));
    assert.equal(new URL(setup.otpauthUri).searchParams.get("secret"), setup.secret);
    assert.equal((await alice.client.getProfile()).mfaEnabled, false);

    const enabled = await alice.client.enableTotp(totpCode(setup.secret));
    assert.equal(enabled.mfaEnabled, true);
    assert.equal(enabled.recoveryCodes.length, 10);

    const status = await alice.client.getMfaStatus();
    assert.equal(status.mfaEnabled, true);
    assert.equal(status.totpEnabled, true);
    assert.equal(status.recoveryCodesRemaining, 10);
    assert.deepEqual(status.availableMethods, ["totp", "email", "recovery"]);
    assert.equal((await alice.client.getProfile()).mfaEnabled, true);

    clockMs += stepMs;
    const ticket = await alice.client.verifyMfa({ method: "totp", code: totpCode(setup.secret) });
    assert.match(ticket.ticket, /^mfat_/);
    assert.equal(ticket.purpose, "withdraw");
    assert.equal(ticket.method, "totp");

    // What POST /withdraw/apply will do with it: accepted once, then refused.
    const mfa = platform.platform.deps.mfa;
    const userId = Number(alice.user.userId);
    assert.ok((await mfa.consumeMfaTicket(userId, ticket.ticket, "withdraw", clockMs)).ok);
    const again = await mfa.consumeMfaTicket(userId, ticket.ticket, "withdraw", clockMs);
    assert.ok(!again.ok && again.rejection.code === 6001);
  });

  it("refuses a replayed code (400/6001) and a wrong confirmation code, changing nothing", async () => {
    const bob = await newUser();
    const setup = await bob.client.setupTotp();
    assertError(
      await call(bob, "POST", "/user/mfa/totp/enable", { code: wrongCode(totpCode(setup.secret)) }),
      400,
      6001,
      "Invalid verification code",
    );
    const status = await bob.client.getMfaStatus();
    assert.equal(status.totpEnabled, false);
    assert.equal(status.totpSetupPending, true);

    const code = totpCode(setup.secret);
    await bob.client.enableTotp(code);
    assertError(
      await call(bob, "POST", "/user/mfa/verify", { method: "totp", code }),
      400,
      6001,
      "Verification code has already been used",
    );
    assertError(
      await call(bob, "POST", "/user/mfa/totp/setup"),
      400,
      1001,
      "bad request: TOTP is already enabled",
    );
  });

  it("locks after five wrong codes (423/6003, Retry-After) and unlocks when the lock period has passed", async () => {
    const carol = await newUser();
    const { secret } = await enrolled(carol);
    clockMs += stepMs;
    const wrong = wrongCode(totpCode(secret));
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      assertError(
        await call(carol, "POST", "/user/mfa/verify", { method: "totp", code: wrong }),
        400,
        6001,
        "Invalid verification code",
      );
    }
    const lockedAt = clockMs;
    const lock = await call(carol, "POST", "/user/mfa/verify", { method: "totp", code: wrong });
    assertError(
      lock,
      423,
      6003,
      /^Too many failed attempts; MFA is locked until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
    assert.equal(lock.headers.get("retry-after"), "900");

    clockMs += 60_000;
    assertError(
      await call(carol, "POST", "/user/mfa/verify", { method: "totp", code: totpCode(secret) }),
      423,
      6003,
      /^Too many failed attempts/,
    );
    assertError(await call(carol, "POST", "/user/mfa/email/send"), 423, 6003, /^Too many failed attempts/);
    const lockedStatus = await carol.client.getMfaStatus();
    assert.equal(
      lockedStatus.lockedUntil,
      new Date(lockedAt + 15 * 60_000).toISOString().replace(".000", ""),
    );
    assert.equal(lockedStatus.attemptsRemaining, 0);

    clockMs = lockedAt + 15 * 60_000;
    const ticket = await carol.client.verifyMfa({
      method: "totp",
      code: totpCode(secret),
      purpose: "withdraw",
    });
    assert.equal(ticket.method, "totp");
    assert.equal((await carol.client.getMfaStatus()).attemptsRemaining, 5);
  });

  it("disables with a valid code; then TOTP is refused as disabled (400/6005) and the profile shows it", async () => {
    const dave = await newUser();
    const { secret } = await enrolled(dave);
    clockMs += stepMs;
    assertError(
      await call(dave, "POST", "/user/mfa/totp/disable", { code: wrongCode(totpCode(secret)) }),
      400,
      6001,
      "Invalid verification code",
    );
    assert.equal((await dave.client.getMfaStatus()).totpEnabled, true);
    const disabled = await dave.client.disableTotp({ code: totpCode(secret) });
    assert.equal(disabled.mfaEnabled, false);
    assert.equal((await dave.client.getProfile()).mfaEnabled, false);
    const status = await dave.client.getMfaStatus();
    assert.deepEqual([status.totpEnabled, status.recoveryCodesRemaining], [false, 0]);

    clockMs += stepMs;
    assertError(
      await call(dave, "POST", "/user/mfa/verify", { method: "totp", code: totpCode(secret) }),
      400,
      6005,
      "TOTP is not enabled",
    );
    assertError(
      await call(dave, "POST", "/user/mfa/verify", { method: "recovery", code: "AAAAA-AAAAA" }),
      400,
      6005,
      "No recovery codes: TOTP is not enabled",
    );
    assertError(
      await call(dave, "POST", "/user/mfa/totp/disable", { code: totpCode(secret) }),
      400,
      6005,
      "TOTP is not enabled",
    );
    // A disabled method is refused before any attempt is counted.
    assert.equal((await dave.client.getMfaStatus()).attemptsRemaining, 5);
  });
});

describe("email codes through the outbox", () => {
  it("mails a code that verifies once; a second send within a minute is 429/6004 and mails nothing", async () => {
    const erin = await newUser();
    const sent = await erin.client.sendMfaEmailCode();
    assert.match(sent.email, /^u\*\*\*@example\.com$/);
    const code = mailedCode(erin.user.email);

    const mailsBefore = outbox().length;
    const limited = await call(erin, "POST", "/user/mfa/email/send");
    assertError(limited, 429, 6004, /^Too many email codes requested; try again after /);
    assert.equal(limited.headers.get("retry-after"), "60");
    assert.equal(outbox().length, mailsBefore);

    // A wrong guess leaves the code usable.
    assertError(
      await call(erin, "POST", "/user/mfa/verify", { method: "email", code: wrongCode(code) }),
      400,
      6001,
      "Invalid verification code",
    );
    const ticket = await erin.client.verifyMfa({ method: "email", code });
    assert.equal(ticket.method, "email");
    assertError(
      await call(erin, "POST", "/user/mfa/verify", { method: "email", code }),
      400,
      6001,
      "Verification code has already been used",
    );
  });

  it("refuses a code after ten minutes (400/6002)", async () => {
    const frank = await newUser();
    await frank.client.sendMfaEmailCode();
    const code = mailedCode(frank.user.email);
    clockMs += 10 * 60_000;
    assertError(
      await call(frank, "POST", "/user/mfa/verify", { method: "email", code }),
      400,
      6002,
      "Verification code has expired",
    );
  });
});

describe("recovery codes", () => {
  it("work once each, and a fresh set replaces the old one", async () => {
    const grace = await newUser();
    const { secret, recoveryCodes } = await enrolled(grace);
    const ticket = await grace.client.verifyMfa({ method: "recovery", code: recoveryCodes[0]! });
    assert.equal(ticket.method, "recovery");
    assertError(
      await call(grace, "POST", "/user/mfa/verify", { method: "recovery", code: recoveryCodes[0] }),
      400,
      6001,
      "Verification code has already been used",
    );
    assert.equal((await grace.client.getMfaStatus()).recoveryCodesRemaining, 9);

    clockMs += stepMs;
    const fresh = await grace.client.regenerateRecoveryCodes({ code: totpCode(secret) });
    assert.equal(fresh.recoveryCodes.length, 10);
    assertError(
      await call(grace, "POST", "/user/mfa/verify", { method: "recovery", code: recoveryCodes[1] }),
      400,
      6001,
      "Invalid verification code",
    );
    await grace.client.verifyMfa({ method: "recovery", code: fresh.recoveryCodes[1]! });
  });
});

describe("bad requests to the MFA operations", () => {
  it("are the interface's 400/1001 and 401/1401, with data null", async () => {
    const henry = await newUser();
    assertError(
      await call(henry, "POST", "/user/mfa/verify", { method: "sms", code: "123456" }),
      400,
      1001,
      /^bad request: method /,
    );
    assertError(
      await call(henry, "POST", "/user/mfa/verify", { method: "totp" }),
      400,
      1001,
      "bad request: Missing required field code",
    );
    assertError(
      await call(henry, "POST", "/user/mfa/verify", { method: "email", code: "123456", purpose: "lunch" }),
      400,
      1001,
      /^bad request: purpose /,
    );
    assertError(
      await call(henry, "POST", "/user/mfa/totp/enable", { code: "123456" }),
      400,
      1001,
      "bad request: No TOTP setup to confirm; call /user/mfa/totp/setup",
    );
    const anonymous = {
      client: platform.client(partner, { now: () => new Date(clockMs) }),
      user: henry.user,
    };
    assertError(
      await call(anonymous, "GET", "/user/mfa/status"),
      401,
      1401,
      "unauthorized: Missing Cookie header",
    );
  });
});

describe("expiry and mail failures", () => {
  it("refuses to enable a setup older than 15 minutes (400/6002)", async () => {
    const ivan = await newUser();
    const setup = await ivan.client.setupTotp();
    clockMs += 15 * 60_000;
    assertError(
      await call(ivan, "POST", "/user/mfa/totp/enable", { code: totpCode(setup.secret) }),
      400,
      6002,
      "TOTP setup has expired; start it again",
    );
    assert.equal((await ivan.client.getMfaStatus()).totpEnabled, false);
  });

  it("answers 502/2002 when the SMTP server cannot be reached, and charges no send", async () => {
    // Port 1 on loopback refuses connections at once.
    const unreachable = await startTestPlatform({ env: { PREDEX_SMTP_URL: "smtp://127.0.0.1:1" } });
    try {
      const { client } = await unreachable.registeredUser();
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const error = await client.sendMfaEmailCode().then(
          () => assert.fail("expected 2002"),
          (caught: { status: number; code: number; message: string }) => caught,
        );
        assert.deepEqual(
          { status: error.status, code: error.code, message: error.message },
          { status: 502, code: 2002, message: "upstream unavailable: The mail server could not be reached" },
        );
      }
      assert.ok(!existsSync(join(unreachable.dataDir, "mail", "outbox.jsonl")));
    } finally {
      await unreachable.close();
    }
  });
});
