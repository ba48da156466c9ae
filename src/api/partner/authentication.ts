// The checks every request of the signed host passes before its route runs, in the order a partner
// debugs them: the gateway signature (plain-text 400/401), then the service layer's `x-api-key`
// (401/1401), then the body's media type and JSON (415/1415, 400/1001), then the partner's own
// request limit if the operator set one (502/2002, ./rate-limit.ts).
//
// One callback-style preValidation hook for all of them: every request passes it, and a request
// whose checks need no I/O (a cached key, an in-memory answer for the nonce and the limit) then
// goes through without a promise or a microtask (docs/performance.md, issue #31 request path).

import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { type GatewayVerdict, gatewayRejectionResponse } from "../../gateway/verifier.js";
import { type AuthenticatedPartner, apiKeyMatches } from "../../identity/service.js";
import type { PlatformDeps } from "../deps.js";
import { isDocsRequest } from "../shared/docs.js";
import { continueHookAfter } from "../shared/hook-continuation.js";
import { decodeJsonBody } from "../shared/raw-body.js";
import type { TypeBoxApp } from "../shared/typebox-app.js";
import { authErrors, badRequest, sendServiceError, unsupportedMediaType } from "./errors.js";
import type { PartnerRateLimitCheck } from "./rate-limit.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The partner whose APP Key signed the request and whose API key came with it. */
    partner: AuthenticatedPartner;
  }
}

/**
 * Every request passes deps.gatewayVerifier; no option turns it off. (The gateway benchmark builds
 * its own unsigned baseline in bench/, with a verifier of its own, outside production code.)
 */
export function installPartnerAuthentication(
  app: TypeBoxApp,
  deps: PlatformDeps,
  rateLimitCheck: PartnerRateLimitCheck,
) {
  app.decorateRequest("partner", undefined as unknown as AuthenticatedPartner);
  app.addHook("preValidation", (request, reply, done) => {
    if (isDocsRequest(request.url)) {
      done();
      return;
    }
    const verdict = deps.gatewayVerifier.verify({
      method: request.method,
      url: request.url,
      headers: request.headers,
      rawBody: request.rawBody,
    });
    if (verdict instanceof Promise) {
      continueHookAfter(
        request,
        verdict,
        (settled, next) => admit(settled, request, reply, rateLimitCheck, next),
        done,
      );
    } else {
      admit(verdict, request, reply, rateLimitCheck, done);
    }
  });
}

/**
 * Goes on with the lifecycle (`done`) when every check passes; otherwise sends the refusal and
 * does not call `done`, which ends a callback-style hook's chain (Fastify's "respond from a hook").
 */
function admit(
  verdict: GatewayVerdict<AuthenticatedPartner>,
  request: FastifyRequest,
  reply: FastifyReply,
  rateLimitCheck: PartnerRateLimitCheck,
  done: HookHandlerDoneFunction,
): void {
  if (!verdict.ok) {
    // Debug only: under a flood of forged requests, info-level lines would cost more than the check.
    request.log.debug({ gatewayRejection: verdict.rejection.kind }, "gateway refused the request");
    const response = gatewayRejectionResponse(verdict.rejection);
    reply.code(response.status).headers(response.headers).send(response.body);
    return;
  }
  request.partner = verdict.appKey;
  if (checkServiceLayer(request, reply) !== undefined) return;
  const limited = rateLimitCheck(request, reply);
  if (limited === undefined) {
    done();
    return;
  }
  continueHookAfter(
    request,
    limited,
    (_, next) => {
      if (!reply.sent) next();
    },
    done,
  );
}

function checkServiceLayer(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  const apiKey = request.headers["x-api-key"];
  if (apiKey === undefined || apiKey === "") return sendServiceError(reply, authErrors.missingApiKey);
  if (typeof apiKey !== "string" || !apiKeyMatches(request.partner, apiKey)) {
    return sendServiceError(reply, authErrors.invalidApiKey);
  }
  if (request.bodyProblem === "unsupported_media_type") return sendServiceError(reply, unsupportedMediaType);
  decodeJsonBody(request);
  if (request.bodyProblem === "invalid_json")
    return sendServiceError(reply, badRequest("Request body is not valid JSON"));
  return undefined;
}
