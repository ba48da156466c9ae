// The checks every request of the signed host passes before its route runs, in the order a partner
// debugs them: the gateway signature (plain-text 400/401), then the service layer's `x-api-key`
// (401/1401), then the body's media type and JSON (415/1415, 400/1001).

import type { FastifyReply, FastifyRequest } from "fastify";
import { gatewayRejectionResponse } from "../../gateway/verifier.js";
import { type AuthenticatedPartner, apiKeyMatches } from "../../identity/service.js";
import type { PlatformDeps } from "../deps.js";
import { isDocsRequest } from "../shared/docs.js";
import { decodeJsonBody } from "../shared/raw-body.js";
import type { TypeBoxApp } from "../shared/typebox-app.js";
import { authErrors, badRequest, sendServiceError, unsupportedMediaType } from "./errors.js";

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
export function installPartnerAuthentication(app: TypeBoxApp, deps: PlatformDeps) {
  app.decorateRequest("partner", undefined as unknown as AuthenticatedPartner);
  app.addHook("preValidation", async (request, reply) => {
    if (isDocsRequest(request.url)) return;
    const verdict = await deps.gatewayVerifier.verify({
      method: request.method,
      url: request.url,
      headers: request.headers,
      rawBody: request.rawBody,
    });
    if (!verdict.ok) {
      // Debug only: under a flood of forged requests, info-level lines would cost more than the check.
      request.log.debug({ gatewayRejection: verdict.rejection.kind }, "gateway refused the request");
      const response = gatewayRejectionResponse(verdict.rejection);
      return reply.code(response.status).headers(response.headers).send(response.body);
    }
    request.partner = verdict.appKey;
    return checkServiceLayer(request, reply);
  });
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
