// The MFA service's rules, on a clock the tests move: TOTP enrolment, replay, the ±1 step window,
// lockout and unlock, email codes and their send limit, recovery codes, and tickets. Written once as
// the MfaStore contract and run on every adapter (SQLite: test/mfa/service.test.ts; PostgreSQL:
// test/store/postgres-services.test.ts): the concurrency cases (a code twice at once, five wrong
// codes at once, a ticket used twice at once) are where the adapters' atomicity shows.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { MfaRejection, MfaResult } from "../../src/mfa/errors.js";
import {
  emailCodeTtlMs,
  emailSendIntervalMs,
  emailSendsPerWindowMax,
  emailSendWindowMs,
  failedAttemptsMax,
  lockDurationMs,
  type TicketPurpose,
  ticketTtlMs,
  totpSetupTtlMs,
} from "../../src/mfa/policy.js";
import { totpCodeAt } from "../../src/mfa/totp.js";
import { mfaFixture as fixtureOn, type MfaFixture, type MfaStores, startMs } from "./fixture.js";

const stepMs = 30_000;

function value<Value>(result: MfaResult<Value>): Value {
  if (!result.ok) assert.fail(`expected success, got ${result.rejection.code} ${result.rejection.message}`);
  return result.value;
}

function rejection<Value>(result: MfaResult<Value>, code: MfaRejection["code"]): MfaRejection {
  if (result.ok) assert.fail(`expected ${code}, got success`);
  assert.equal(result.rejection.code, code, result.rejection.message);
  return result.rejection;
}

/** A wrong code that is still six digits: one more than the right one. */
function wrongCode(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, "0");
}

export function describeMfaStoreContract(adapterName: string, stores: () => Promise<MfaStores>): void {
  const mfaFixture = (): Promise<MfaFixture> => fixtureOn(stores());
  describe(`MfaStore contract: ${adapterName}`, { concurrency: false }, () => {
    describe("TOTP enrolment", () => {
      it("sets up, confirms with a code, and then reports MFA as enabled", async () => {
        const { service, user } = await mfaFixture();
        const userId = await user();
        assert.equal(await service.isMfaEnabled(userId), false);
        const setup = value(await service.setupTotp(userId, startMs));
        assert.match(setup.otpauthUri, /^otpauth:\/\/totp\/predex:alice\d+%40example\.com\?secret=/);
        assert.equal(setup.expiresAtMs, startMs + totpSetupTtlMs);
        assert.equal((await service.status(userId, startMs)).totpSetupPending, true);

        const enabled = value(await service.enableTotp(userId, totpCodeAt(setup.secret, startMs), startMs));
        assert.equal(enabled.recoveryCodes.length, 10);
        assert.equal(await service.isMfaEnabled(userId), true);
        const status = await service.status(userId, startMs);
        assert.deepEqual(
          { ...status, maskedEmail: "" },
          {
            mfaEnabled: true,
            totpEnabled: true,
            totpEnabledAtMs: startMs,
            totpSetupPending: false,
            maskedEmail: "",
            recoveryCodesRemaining: 10,
            availableMethods: ["totp", "email", "recovery"],
            attemptsRemaining: failedAttemptsMax,
            lockedUntilMs: null,
          },
        );
        assert.match(status.maskedEmail, /^a\*\*\*@example\.com$/);
      });

      it("keeps the TOTP secret sealed and the recovery codes hashed at rest", async () => {
        const { dumpAtRest, enrolled, user } = await mfaFixture();
        const userId = await user();
        const { secret, recoveryCodes } = await enrolled(userId, startMs);
        const dump = await dumpAtRest();
        assert.ok(!dump.includes(secret));
        for (const code of recoveryCodes) {
          assert.ok(!dump.includes(code) && !dump.includes(code.replace("-", "")));
        }
      });

      it("refuses a wrong confirmation code and stays disabled", async () => {
        const { service, user } = await mfaFixture();
        const userId = await user();
        const setup = value(await service.setupTotp(userId, startMs));
        rejection(
          await service.enableTotp(userId, wrongCode(totpCodeAt(setup.secret, startMs)), startMs),
          6001,
        );
        assert.equal(await service.isMfaEnabled(userId), false);
      });

      it("refuses enable without a setup, after the setup expired, and setup while enabled", async () => {
        const { service, user, enrolled } = await mfaFixture();
        const userId = await user();
        rejection(await service.enableTotp(userId, "123456", startMs), 1001);
        const setup = value(await service.setupTotp(userId, startMs));
        const later = startMs + totpSetupTtlMs;
        rejection(await service.enableTotp(userId, totpCodeAt(setup.secret, later), later), 6002);

        const other = await user();
        await enrolled(other, startMs);
        rejection(await service.setupTotp(other, startMs), 1001);
        rejection(await service.enableTotp(other, "123456", startMs), 1001);
      });

      it("replaces an unconfirmed setup with a new one", async () => {
        const { service, user } = await mfaFixture();
        const userId = await user();
        const first = value(await service.setupTotp(userId, startMs));
        const second = value(await service.setupTotp(userId, startMs));
        assert.notEqual(first.secret, second.secret);
        rejection(await service.enableTotp(userId, totpCodeAt(first.secret, startMs), startMs), 6001);
        value(await service.enableTotp(userId, totpCodeAt(second.secret, startMs), startMs));
      });

      it("disables with a valid code, drops the recovery codes, and then refuses TOTP as disabled (6005)", async () => {
        const { service, user, enrolled } = await mfaFixture();
        const userId = await user();
        const { secret } = await enrolled(userId, startMs);
        const nowMs = startMs + stepMs;
        rejection(
          await service.disableTotp(
            userId,
            { method: "totp", code: wrongCode(totpCodeAt(secret, nowMs)) },
            nowMs,
          ),
          6001,
        );
        assert.equal(await service.isMfaEnabled(userId), true);
        value(await service.disableTotp(userId, { method: "totp", code: totpCodeAt(secret, nowMs) }, nowMs));
        assert.equal(await service.isMfaEnabled(userId), false);
        const status = await service.status(userId, nowMs);
        assert.equal(status.recoveryCodesRemaining, 0);
        assert.deepEqual(status.availableMethods, ["email"]);
        const later = nowMs + stepMs;
        rejection(
          await service.disableTotp(userId, { method: "totp", code: totpCodeAt(secret, later) }, later),
          6005,
        );
        rejection(
          await service.verify(
            userId,
            { method: "totp", code: totpCodeAt(secret, later), purpose: "withdraw" },
            later,
          ),
          6005,
        );
        rejection(
          await service.verify(
            userId,
            { method: "recovery", code: "AAAAA-AAAAA", purpose: "withdraw" },
            later,
          ),
          6005,
        );
        rejection(
          await service.regenerateRecoveryCodes(userId, { method: "totp", code: "123456" }, later),
          6005,
        );
      });
    });

    describe("TOTP codes", () => {
      it("accepts a code once: the same code again in its window is refused (6001)", async () => {
        const { service, user, enrolled } = await mfaFixture();
        const userId = await user();
        const { secret } = await enrolled(userId, startMs);
        const nowMs = startMs + stepMs;
        const code = totpCodeAt(secret, nowMs);
        value(await service.verify(userId, { method: "totp", code, purpose: "withdraw" }, nowMs));
        const replay = rejection(
          await service.verify(userId, { method: "totp", code, purpose: "withdraw" }, nowMs + 5_000),
          6001,
        );
        assert.equal(replay.message, "Verification code has already been used");
      });

      it("refuses the code that confirmed the setup", async () => {
        const { service, user } = await mfaFixture();
        const userId = await user();
        const setup = value(await service.setupTotp(userId, startMs));
        const code = totpCodeAt(setup.secret, startMs);
        value(await service.enableTotp(userId, code, startMs));
        rejection(await service.verify(userId, { method: "totp", code, purpose: "withdraw" }, startMs), 6001);
      });

      it("accepts a code one step early or late, but not two", async () => {
        const { service, user, enrolled } = await mfaFixture();
        const userId = await user();
        const { secret } = await enrolled(userId, startMs);
        const nowMs = startMs + 10 * stepMs;
        value(
          await service.verify(
            userId,
            { method: "totp", code: totpCodeAt(secret, nowMs - stepMs), purpose: "withdraw" },
            nowMs,
          ),
        );
        value(
          await service.verify(
            userId,
            { method: "totp", code: totpCodeAt(secret, nowMs + stepMs), purpose: "withdraw" },
            nowMs,
          ),
        );
        const far = nowMs + 10 * stepMs;
        rejection(
          await service.verify(
            userId,
            { method: "totp", code: totpCodeAt(secret, far - 2 * stepMs), purpose: "withdraw" },
            far,
          ),
          6001,
        );
        rejection(
          await service.verify(
            userId,
            { method: "totp", code: totpCodeAt(secret, far + 2 * stepMs), purpose: "withdraw" },
            far,
          ),
          6001,
        );
      });

      it("gives exactly one ticket when the same code arrives twice at once", async () => {
        const { service, user, enrolled } = await mfaFixture();
        const userId = await user();
        const { secret } = await enrolled(userId, startMs);
        const nowMs = startMs + stepMs;
        const code = totpCodeAt(secret, nowMs);
        const results = await Promise.all(
          Array.from({ length: 4 }, () =>
            service.verify(userId, { method: "totp", code, purpose: "withdraw" }, nowMs),
          ),
        );
        assert.equal(results.filter((result) => result.ok).length, 1);
      });
    });

    describe("lockout", () => {
      it("locks after 5 consecutive wrong codes (6003), even for the right code, and unlocks after the lock period", async () => {
        const { service, user, enrolled } = await mfaFixture();
        const userId = await user();
        const { secret } = await enrolled(userId, startMs);
        const nowMs = startMs + stepMs;
        const wrong = wrongCode(totpCodeAt(secret, nowMs));
        for (let attempt = 1; attempt < failedAttemptsMax; attempt += 1) {
          rejection(
            await service.verify(userId, { method: "totp", code: wrong, purpose: "withdraw" }, nowMs),
            6001,
          );
          assert.equal((await service.status(userId, nowMs)).attemptsRemaining, failedAttemptsMax - attempt);
        }
        const lock = rejection(
          await service.verify(userId, { method: "totp", code: wrong, purpose: "withdraw" }, nowMs),
          6003,
        );
        assert.equal(lock.retryAtMs, nowMs + lockDurationMs);
        assert.equal(lock.message, "Too many failed attempts; MFA is locked until 2026-11-22T10:15:45Z");
        assert.equal((await service.status(userId, nowMs)).lockedUntilMs, nowMs + lockDurationMs);

        const justBefore = nowMs + lockDurationMs - 1;
        const right = totpCodeAt(secret, justBefore);
        rejection(
          await service.verify(userId, { method: "totp", code: right, purpose: "withdraw" }, justBefore),
          6003,
        );
        rejection(await service.disableTotp(userId, { method: "totp", code: right }, justBefore), 6003);
        rejection(await service.sendEmailCode(userId, justBefore), 6003);

        const unlocked = nowMs + lockDurationMs;
        const status = await service.status(userId, unlocked);
        assert.equal(status.lockedUntilMs, null);
        assert.equal(status.attemptsRemaining, failedAttemptsMax);
        value(
          await service.verify(
            userId,
            { method: "totp", code: totpCodeAt(secret, unlocked), purpose: "withdraw" },
            unlocked,
          ),
        );
      });

      it("counts failures across methods, and a success starts the count again", async () => {
        const { service, user, enrolled } = await mfaFixture();
        const userId = await user();
        const { secret } = await enrolled(userId, startMs);
        let nowMs = startMs;
        for (let round = 0; round < 3; round += 1) {
          nowMs += stepMs;
          const wrong = wrongCode(totpCodeAt(secret, nowMs));
          rejection(
            await service.verify(userId, { method: "totp", code: wrong, purpose: "withdraw" }, nowMs),
            6001,
          );
          rejection(
            await service.verify(
              userId,
              { method: "recovery", code: "AAAAA-AAAAA", purpose: "withdraw" },
              nowMs,
            ),
            6001,
          );
          rejection(
            await service.verify(userId, { method: "email", code: "000000", purpose: "withdraw" }, nowMs),
            6001,
          );
          value(
            await service.verify(
              userId,
              { method: "totp", code: totpCodeAt(secret, nowMs), purpose: "withdraw" },
              nowMs,
            ),
          );
        }
        assert.equal((await service.status(userId, nowMs)).attemptsRemaining, failedAttemptsMax);
      });

      it("lets no more than 5 wrong codes be checked when they arrive all at once", async () => {
        const { service, user, enrolled } = await mfaFixture();
        const userId = await user();
        const { secret } = await enrolled(userId, startMs);
        const nowMs = startMs + stepMs;
        const wrong = wrongCode(totpCodeAt(secret, nowMs));
        const results = await Promise.all(
          Array.from({ length: 20 }, () =>
            service.verify(userId, { method: "totp", code: wrong, purpose: "withdraw" }, nowMs),
          ),
        );
        const codes = results.map((result) => (result.ok ? 0 : result.rejection.code));
        assert.ok(codes.filter((code) => code === 6001).length <= failedAttemptsMax - 1, codes.join(","));
        assert.ok(codes.every((code) => code === 6001 || code === 6003));
        rejection(
          await service.verify(
            userId,
            { method: "totp", code: totpCodeAt(secret, nowMs), purpose: "withdraw" },
            nowMs,
          ),
          6003,
        );
      });
    });

    describe("email codes", () => {
      it("mails a 6-digit code to the user's address that verifies once", async () => {
        const { service, user, mailer } = await mfaFixture();
        const userId = await user();
        const sent = value(await service.sendEmailCode(userId, startMs));
        assert.match(sent.maskedEmail, /^a\*\*\*@example\.com$/);
        assert.equal(sent.expiresAtMs, startMs + emailCodeTtlMs);
        assert.equal(sent.nextSendAtMs, startMs + emailSendIntervalMs);
        assert.match(mailer.sent[0]!.to, /^alice\d+@example\.com$/);
        const code = mailer.lastCode();
        const ticket = value(
          await service.verify(userId, { method: "email", code, purpose: "withdraw" }, startMs + 1_000),
        );
        assert.equal(ticket.method, "email");
        rejection(
          await service.verify(userId, { method: "email", code, purpose: "withdraw" }, startMs + 2_000),
          6001,
        );
      });

      it("keeps a code after a wrong guess", async () => {
        const { service, user, mailer } = await mfaFixture();
        const userId = await user();
        value(await service.sendEmailCode(userId, startMs));
        const code = mailer.lastCode();
        rejection(
          await service.verify(
            userId,
            { method: "email", code: wrongCode(code), purpose: "withdraw" },
            startMs,
          ),
          6001,
        );
        value(await service.verify(userId, { method: "email", code, purpose: "withdraw" }, startMs));
      });

      it("refuses an expired code (6002)", async () => {
        const { service, user, mailer } = await mfaFixture();
        const userId = await user();
        value(await service.sendEmailCode(userId, startMs));
        const late = startMs + emailCodeTtlMs;
        const expired = rejection(
          await service.verify(
            userId,
            { method: "email", code: mailer.lastCode(), purpose: "withdraw" },
            late,
          ),
          6002,
        );
        assert.equal(expired.message, "Verification code has expired");
      });

      it("honours only the newest code", async () => {
        const { service, user, mailer } = await mfaFixture();
        const userId = await user();
        value(await service.sendEmailCode(userId, startMs));
        const first = mailer.lastCode();
        const later = startMs + emailSendIntervalMs;
        value(await service.sendEmailCode(userId, later));
        const second = mailer.lastCode();
        if (first !== second) {
          rejection(
            await service.verify(userId, { method: "email", code: first, purpose: "withdraw" }, later),
            6001,
          );
        }
        value(await service.verify(userId, { method: "email", code: second, purpose: "withdraw" }, later));
      });

      it("sends at most one code a minute and five an hour (6004), and says when to retry", async () => {
        const { service, user, mailer } = await mfaFixture();
        const userId = await user();
        value(await service.sendEmailCode(userId, startMs));
        const tooSoon = rejection(
          await service.sendEmailCode(userId, startMs + emailSendIntervalMs - 1),
          6004,
        );
        assert.equal(tooSoon.retryAtMs, startMs + emailSendIntervalMs);
        assert.equal(mailer.sent.length, 1);
        for (let send = 1; send < emailSendsPerWindowMax; send += 1) {
          value(await service.sendEmailCode(userId, startMs + send * emailSendIntervalMs));
        }
        const hourly = rejection(
          await service.sendEmailCode(userId, startMs + 10 * emailSendIntervalMs),
          6004,
        );
        assert.equal(hourly.retryAtMs, startMs + emailSendWindowMs);
        assert.equal(mailer.sent.length, emailSendsPerWindowMax);
        value(await service.sendEmailCode(userId, startMs + emailSendWindowMs));
      });

      it("answers 2002 when the mail cannot be sent, and the failed send costs nothing", async () => {
        const { service, user, mailer } = await mfaFixture();
        const userId = await user();
        mailer.failing = true;
        rejection(await service.sendEmailCode(userId, startMs), 2002);
        rejection(
          await service.verify(userId, { method: "email", code: "123456", purpose: "withdraw" }, startMs),
          6001,
        );
        mailer.failing = false;
        value(await service.sendEmailCode(userId, startMs));
      });
    });

    describe("recovery codes", () => {
      it("each works once, in any case and without the hyphen", async () => {
        const { service, user, enrolled } = await mfaFixture();
        const userId = await user();
        const { recoveryCodes } = await enrolled(userId, startMs);
        const [first, second] = recoveryCodes as [string, string];
        value(
          await service.verify(userId, { method: "recovery", code: first, purpose: "withdraw" }, startMs),
        );
        const reuse = rejection(
          await service.verify(userId, { method: "recovery", code: first, purpose: "withdraw" }, startMs),
          6001,
        );
        assert.equal(reuse.message, "Verification code has already been used");
        value(
          await service.verify(
            userId,
            { method: "recovery", code: second.toLowerCase().replace("-", ""), purpose: "withdraw" },
            startMs,
          ),
        );
        assert.equal((await service.status(userId, startMs)).recoveryCodesRemaining, 8);
      });

      it("regenerates a fresh set, proven with a TOTP code; the old set stops working", async () => {
        const { service, user, enrolled } = await mfaFixture();
        const userId = await user();
        const { secret, recoveryCodes } = await enrolled(userId, startMs);
        const nowMs = startMs + stepMs;
        rejection(
          await service.regenerateRecoveryCodes(
            userId,
            { method: "totp", code: wrongCode(totpCodeAt(secret, nowMs)) },
            nowMs,
          ),
          6001,
        );
        const fresh = value(
          await service.regenerateRecoveryCodes(
            userId,
            { method: "totp", code: totpCodeAt(secret, nowMs) },
            nowMs,
          ),
        );
        assert.equal(fresh.recoveryCodes.length, 10);
        rejection(
          await service.verify(
            userId,
            { method: "recovery", code: recoveryCodes[0]!, purpose: "withdraw" },
            nowMs,
          ),
          6001,
        );
        value(
          await service.verify(
            userId,
            { method: "recovery", code: fresh.recoveryCodes[0]!, purpose: "withdraw" },
            nowMs,
          ),
        );
      });

      it("disables TOTP with a recovery code when the authenticator is lost", async () => {
        const { service, user, enrolled } = await mfaFixture();
        const userId = await user();
        const { recoveryCodes } = await enrolled(userId, startMs);
        value(await service.disableTotp(userId, { method: "recovery", code: recoveryCodes[3]! }, startMs));
        assert.equal(await service.isMfaEnabled(userId), false);
      });
    });

    describe("tickets", () => {
      async function issued() {
        const fixture = await mfaFixture();
        const userId = await fixture.user();
        const { recoveryCodes } = await fixture.enrolled(userId, startMs);
        const ticket = value(
          await fixture.service.verify(
            userId,
            { method: "recovery", code: recoveryCodes[0]!, purpose: "withdraw" },
            startMs,
          ),
        );
        return { ...fixture, userId, ticket };
      }

      it("is issued for a purpose with a 5-minute life and works once", async () => {
        const { service, userId, ticket } = await issued();
        assert.deepEqual(
          { ...ticket, ticket: "" },
          { ticket: "", purpose: "withdraw", method: "recovery", expiresAtMs: startMs + ticketTtlMs },
        );
        assert.deepEqual(
          value(await service.consumeMfaTicket(userId, ticket.ticket, "withdraw", startMs + 1_000)),
          { method: "recovery" },
        );
        const again = rejection(
          await service.consumeMfaTicket(userId, ticket.ticket, "withdraw", startMs + 2_000),
          6001,
        );
        assert.equal(again.message, "MFA ticket has already been used");
      });

      it("expires (6002)", async () => {
        const { service, userId, ticket } = await issued();
        const expired = rejection(
          await service.consumeMfaTicket(userId, ticket.ticket, "withdraw", startMs + ticketTtlMs),
          6002,
        );
        assert.equal(expired.message, "MFA ticket has expired");
      });

      it("is bound to its user and purpose; a refused use consumes nothing", async () => {
        const { service, user, userId, ticket } = await issued();
        const stranger = await user();
        rejection(await service.consumeMfaTicket(stranger, ticket.ticket, "withdraw", startMs), 6001);
        rejection(
          await service.consumeMfaTicket(userId, ticket.ticket, "change-password" as TicketPurpose, startMs),
          6001,
        );
        rejection(await service.consumeMfaTicket(userId, "mfat_forged", "withdraw", startMs), 6001);
        rejection(await service.consumeMfaTicket(userId, "", "withdraw", startMs), 6001);
        rejection(await service.consumeMfaTicket(userId, "x".repeat(10_000), "withdraw", startMs), 6001);
        value(await service.consumeMfaTicket(userId, ticket.ticket, "withdraw", startMs));
      });

      it("is consumed by only one of two simultaneous uses", async () => {
        const { service, userId, ticket } = await issued();
        const results = await Promise.all([
          service.consumeMfaTicket(userId, ticket.ticket, "withdraw", startMs),
          service.consumeMfaTicket(userId, ticket.ticket, "withdraw", startMs),
        ]);
        assert.equal(results.filter((result) => result.ok).length, 1);
      });
    });
  });
}
