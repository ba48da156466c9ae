// The seven MFA operations under /user/mfa/ (spec 000; DESIGN §4). Each handler is a call into the
// MFA service and a reshaping of its answer; refusals keep `{code, message, data: null}` with the
// MFA codes and statuses of src/mfa/errors.ts.

import type { FastifyReply } from "fastify";
import { ok } from "../../../contract/partner/envelope.js";
import {
  CodeProofRequest,
  EmailCodeSent,
  MfaStatus,
  MfaTicket,
  mfaResponses,
  RecoveryCodes,
  TotpDisabled,
  TotpEnabled,
  TotpEnableRequest,
  TotpSetup,
  VerifyRequest,
} from "../../../contract/partner/mfa.js";
import { isoSeconds } from "../../../contract/wire-format.js";
import { type MfaRejection, mfaErrorResponse } from "../../../mfa/errors.js";
import { defaultTicketPurpose, totpDigits, totpIssuer, totpPeriodSeconds } from "../../../mfa/policy.js";
import type { CodeProof } from "../../../mfa/service.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { requireSession } from "../session.js";

const tags = ["MFA"];

export default defineRoutes((app, deps) => {
  app.get(
    "/user/mfa/status",
    {
      schema: { summary: "The session user's MFA state", tags, response: mfaResponses(MfaStatus) },
      preHandler: requireSession,
    },
    async (request) => {
      const status = await deps.mfa.status(request.user.userId, deps.nowMs());
      return ok({
        mfaEnabled: status.mfaEnabled,
        totpEnabled: status.totpEnabled,
        totpEnabledAt: isoOrNull(status.totpEnabledAtMs),
        totpSetupPending: status.totpSetupPending,
        email: status.maskedEmail,
        recoveryCodesRemaining: status.recoveryCodesRemaining,
        availableMethods: [...status.availableMethods],
        attemptsRemaining: status.attemptsRemaining,
        lockedUntil: isoOrNull(status.lockedUntilMs),
      });
    },
  );

  app.post(
    "/user/mfa/totp/setup",
    {
      schema: {
        summary: "Start TOTP enrolment: a new secret and its otpauth URI",
        description:
          "Send no body. Confirm with /user/mfa/totp/enable; a new setup replaces an unconfirmed one.",
        tags,
        response: mfaResponses(TotpSetup),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const nowMs = deps.nowMs();
      const result = await deps.mfa.setupTotp(request.user.userId, nowMs);
      if (!result.ok) return sendMfaRejection(reply, result.rejection, nowMs);
      return ok({
        secret: result.value.secret,
        otpauthUri: result.value.otpauthUri,
        issuer: totpIssuer,
        algorithm: "SHA1" as const,
        digits: totpDigits,
        period: totpPeriodSeconds,
        expiresAt: isoSeconds(result.value.expiresAtMs),
      });
    },
  );

  app.post(
    "/user/mfa/totp/enable",
    {
      schema: {
        summary: "Confirm the TOTP setup with a code; returns the first recovery codes",
        tags,
        body: TotpEnableRequest,
        response: mfaResponses(TotpEnabled),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const nowMs = deps.nowMs();
      const result = await deps.mfa.enableTotp(request.user.userId, request.body.code, nowMs);
      if (!result.ok) return sendMfaRejection(reply, result.rejection, nowMs);
      return ok({
        mfaEnabled: true,
        enabledAt: isoSeconds(result.value.enabledAtMs),
        recoveryCodes: result.value.recoveryCodes,
      });
    },
  );

  app.post(
    "/user/mfa/totp/disable",
    {
      schema: {
        summary: "Turn TOTP off with a TOTP or recovery code; the recovery codes are deleted",
        tags,
        body: CodeProofRequest,
        response: mfaResponses(TotpDisabled),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const nowMs = deps.nowMs();
      const result = await deps.mfa.disableTotp(request.user.userId, proofOf(request.body), nowMs);
      if (!result.ok) return sendMfaRejection(reply, result.rejection, nowMs);
      return ok({ mfaEnabled: false, disabledAt: isoSeconds(result.value.disabledAtMs) });
    },
  );

  app.post(
    "/user/mfa/email/send",
    {
      schema: {
        summary: "Email a 6-digit code to the user's address",
        description:
          "Send no body. The code expires after 10 minutes and works once; a new code replaces it.",
        tags,
        response: mfaResponses(EmailCodeSent),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const nowMs = deps.nowMs();
      const result = await deps.mfa.sendEmailCode(request.user.userId, nowMs);
      if (!result.ok) return sendMfaRejection(reply, result.rejection, nowMs);
      return ok({
        email: result.value.maskedEmail,
        expiresAt: isoSeconds(result.value.expiresAtMs),
        nextSendAt: isoSeconds(result.value.nextSendAtMs),
      });
    },
  );

  app.post(
    "/user/mfa/verify",
    {
      schema: {
        summary: "Check a code and get a single-use MFA ticket for a sensitive operation",
        tags,
        body: VerifyRequest,
        response: mfaResponses(MfaTicket),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const nowMs = deps.nowMs();
      const { method, code, purpose = defaultTicketPurpose } = request.body;
      const result = await deps.mfa.verify(request.user.userId, { method, code, purpose }, nowMs);
      if (!result.ok) return sendMfaRejection(reply, result.rejection, nowMs);
      return ok({
        ticket: result.value.ticket,
        purpose: result.value.purpose,
        method: result.value.method,
        expiresAt: isoSeconds(result.value.expiresAtMs),
      });
    },
  );

  app.post(
    "/user/mfa/recovery-codes",
    {
      schema: {
        summary: "Replace the recovery codes with a fresh set, shown once",
        tags,
        body: CodeProofRequest,
        response: mfaResponses(RecoveryCodes),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const nowMs = deps.nowMs();
      const result = await deps.mfa.regenerateRecoveryCodes(
        request.user.userId,
        proofOf(request.body),
        nowMs,
      );
      if (!result.ok) return sendMfaRejection(reply, result.rejection, nowMs);
      return ok({ recoveryCodes: result.value.recoveryCodes, createdAt: isoSeconds(nowMs) });
    },
  );
});

/**
 * Answers an MFA refusal: its status, `{code, message, data: null}`, and `Retry-After` for a lock or
 * a send limit. Other routes that consume tickets (POST /withdraw/apply) answer with this too.
 */
export function sendMfaRejection(reply: FastifyReply, rejection: MfaRejection, nowMs: number): FastifyReply {
  const response = mfaErrorResponse(rejection, nowMs);
  return reply
    .code(response.status)
    .headers(response.headers)
    .type("application/json; charset=utf-8")
    .send(response.body);
}

/** A code proof as the service takes it: a request that names no method means a TOTP code. */
function proofOf(body: CodeProofRequest): CodeProof {
  return { method: body.method ?? "totp", code: body.code };
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : isoSeconds(ms);
}
