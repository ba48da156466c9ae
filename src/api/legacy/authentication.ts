// Who is calling the legacy listener, and whether they may: the per-merchant rate limit (first,
// on every request), the authorize call's signed headers, and the bearer JWT of every other route.
//
// The authorize checks run in the order DESIGN §8 gives: the headers themselves (400), then the
// API key, signature, timestamp window and nonce reuse (401), then the body (400, by the route's
// schema). The signature is checked before the clock so a stale but genuine request is told apart
// from a forged one, and the nonce last so a forged request cannot burn a partner's nonces.

import type { FastifyReply, FastifyRequest } from "fastify";
import {
  authorizeSignedContent,
  verifyAuthorizeSignature,
} from "../../contract/signing/authorize-signature.js";
import type { LegacyServices } from "../../legacy/services.js";
import type { LegacyTokenClaims } from "../../legacy/tokens.js";
import type { PartnerRecord } from "../../store/identity.js";
import type { PlatformDeps } from "../deps.js";
import { isDocsRequest } from "../shared/docs.js";
import { markSecurity } from "../shared/openapi-operations.js";
import {
  legacyAuthorizeSecurity,
  legacyOptionalTokenSecurity,
  legacyTokenSecurity,
} from "../shared/security-schemes.js";
import type { TypeBoxApp } from "../shared/typebox-app.js";
import { legacyErrors, parameterError, sendLegacyError, withDetails } from "./errors.js";
import { createLegacyRateLimit } from "./rate-limit.js";

/** X-Timestamp may be this far from the server's clock, either way (spec 001: ±5 minutes). */
export const authorizeTimestampSkewMsMax = 5 * 60_000;
/**
 * A nonce is remembered this long: a request is accepted up to 5 minutes after its timestamp, and
 * its timestamp may be 5 minutes ahead of the clock, so 10 minutes covers every accepted replay.
 */
export const authorizeNonceRetentionMs = 2 * authorizeTimestampSkewMsMax;
export const nonceLengthMin = 16;
export const nonceLengthMax = 64;
/** Printable ASCII without spaces: a nonce is one line of the signed content. */
const noncePattern = /^[\x21-\x7e]+$/;
const timestampPattern = /^\d{1,15}$/;

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the rate-limit hook: the partner of a known X-API-KEY (authorize). */
    legacyPartner: PartnerRecord | undefined;
    /** Set by the rate-limit hook: the claims of a valid bearer token. */
    legacyToken: LegacyTokenClaims | undefined;
  }
}

export async function installLegacyCallerHooks(
  app: TypeBoxApp,
  deps: PlatformDeps,
  services: LegacyServices,
): Promise<void> {
  app.decorateRequest("legacyPartner", undefined);
  app.decorateRequest("legacyToken", undefined);
  // Naming the caller also reads its credentials (request.legacyToken, request.legacyPartner).
  const limit = await createLegacyRateLimit(app, deps, (request) =>
    identifyCaller(request, deps, services, deps.nowMs()),
  );
  app.addHook("onRequest", async (request, reply) => {
    if (isDocsRequest(request.url)) return;
    return limit(request, reply);
  });
}

/** The rate-limit key: the merchant when the credentials name one, else the client address. */
async function identifyCaller(
  request: FastifyRequest,
  deps: PlatformDeps,
  services: LegacyServices,
  nowMs: number,
): Promise<string> {
  const token = bearerToken(request);
  if (token !== undefined) {
    request.legacyToken = await services.tokens.verify(token, nowMs);
    if (request.legacyToken !== undefined) return `merchant:${request.legacyToken.merchantId}`;
  }
  const apiKey = request.headers["x-api-key"];
  if (typeof apiKey === "string" && apiKey !== "") {
    request.legacyPartner = await deps.identity.findPartnerByApiKey(apiKey);
    if (request.legacyPartner !== undefined) return `merchant:${request.legacyPartner.partnerId}`;
  }
  return `address:${request.ip}`;
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== "string") return undefined;
  const match = /^Bearer +(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** preValidation of every JWT route: 401 unless the rate-limit hook found a valid token (before the body or query is validated, so a caller without a valid token always gets 401, never a 400). */
export async function requireLegacyToken(request: FastifyRequest, reply: FastifyReply) {
  if (request.legacyToken === undefined) return sendLegacyError(reply, legacyErrors.invalidToken);
}
markSecurity(requireLegacyToken, legacyTokenSecurity);

/**
 * preValidation of the reads that take a JWT and also work without one (DESIGN §8: list, outcome,
 * top holders): no Authorization header is anonymous, but a token that is sent must be valid, so a
 * partner with an expired token learns it (401) instead of silently reading as nobody.
 */
export async function optionalLegacyToken(request: FastifyRequest, reply: FastifyReply) {
  if (request.headers.authorization !== undefined && request.legacyToken === undefined) {
    return sendLegacyError(reply, legacyErrors.invalidToken);
  }
}
markSecurity(optionalLegacyToken, legacyOptionalTokenSecurity);

/** preValidation of the authorize route: headers (400), then credentials (401); the body comes after. */
export function verifyAuthorizeRequest(deps: PlatformDeps, services: LegacyServices) {
  return markSecurity(async (request: FastifyRequest, reply: FastifyReply) => {
    const headers = readAuthorizeHeaders(request);
    if (!headers.ok) return sendLegacyError(reply, headers.error);
    const { signature, timestamp, nonce } = headers;

    const partner = request.legacyPartner;
    if (partner === undefined) return sendLegacyError(reply, legacyErrors.invalidApiKey);
    if (partner.rsaPublicKey === null) {
      return sendLegacyError(
        reply,
        withDetails(legacyErrors.invalidApiKey, { reason: "no RSA public key is registered" }),
      );
    }
    const content = authorizeSignedContent({
      method: request.method,
      pathAndQuery: request.url,
      body: request.rawBody?.toString("utf8") ?? "",
      timestamp,
      nonce,
    });
    if (!verifyAuthorizeSignature(partner.rsaPublicKey, content, signature)) {
      return sendLegacyError(reply, legacyErrors.invalidSignature);
    }
    const nowMs = deps.nowMs();
    if (Math.abs(nowMs - Number(timestamp)) > authorizeTimestampSkewMsMax) {
      return sendLegacyError(reply, legacyErrors.timestampOutsideWindow);
    }
    if (
      !(await services.nonces.remember(partner.partnerId, nonce, nowMs, nowMs + authorizeNonceRetentionMs))
    ) {
      return sendLegacyError(reply, legacyErrors.nonceReused);
    }
    if (request.bodyProblem === "invalid_json") {
      return sendLegacyError(reply, parameterError("body", "is not valid JSON"));
    }
  }, legacyAuthorizeSecurity);
}

type AuthorizeHeaders =
  | { ok: true; signature: string; timestamp: string; nonce: string }
  | { ok: false; error: ReturnType<typeof parameterError> };

function readAuthorizeHeaders(request: FastifyRequest): AuthorizeHeaders {
  const contentType = request.headers["content-type"];
  if (contentType === undefined) return { ok: false, error: parameterError("Content-Type", "is required") };
  if (request.bodyProblem === "unsupported_media_type") {
    return { ok: false, error: parameterError("Content-Type", "must be application/json") };
  }
  const values: Record<string, string> = {};
  for (const name of ["x-api-key", "x-signature", "x-timestamp", "x-nonce"]) {
    const value = request.headers[name];
    if (typeof value !== "string" || value.trim() === "") {
      return { ok: false, error: parameterError(headerLabel(name), "is required") };
    }
    values[name] = value;
  }
  const timestamp = values["x-timestamp"]!;
  if (!timestampPattern.test(timestamp)) {
    return { ok: false, error: parameterError("X-Timestamp", "must be milliseconds since the epoch") };
  }
  const nonce = values["x-nonce"]!;
  if (nonce.length < nonceLengthMin || nonce.length > nonceLengthMax || !noncePattern.test(nonce)) {
    return {
      ok: false,
      error: parameterError("X-Nonce", `must be ${nonceLengthMin} to ${nonceLengthMax} printable characters`),
    };
  }
  return { ok: true, signature: values["x-signature"]!, timestamp, nonce };
}

function headerLabel(name: string): string {
  return name === "x-api-key"
    ? "X-API-KEY"
    : name.replace(/(^|-)([a-z])/g, (_m, dash, letter) => `${dash}${letter.toUpperCase()}`);
}
