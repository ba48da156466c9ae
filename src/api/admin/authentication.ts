// The operator surface is guarded by one bearer token (DESIGN §5).

import type { FastifyReply, FastifyRequest } from "fastify";
import { constantTimeEqual } from "../../contract/signing/gateway-signature.js";
import { sha256Hex } from "../../identity/credentials.js";
import { badRequest, sendServiceError, unauthorized, unsupportedMediaType } from "../partner/errors.js";
import { isConsoleRequest } from "../shared/console-pages.js";
import { isDocsRequest } from "../shared/docs.js";
import { decodeJsonBody } from "../shared/raw-body.js";
import { probePaths } from "./routes/health.js";

export function createAdminGuard(adminToken: string) {
  // Comparing digests keeps the comparison constant-time whatever length the caller sends.
  const expectedDigest = sha256Hex(adminToken);
  return async function requireAdminToken(request: FastifyRequest, reply: FastifyReply) {
    // Liveness and readiness probes carry no credentials (Kubernetes, load balancers); the console's
    // page and assets load before the operator signs in.
    if (
      isDocsRequest(request.url) ||
      isConsoleRequest(request.url) ||
      probePaths.has(request.routeOptions.url ?? "")
    )
      return undefined;
    const header = request.headers.authorization;
    if (header === undefined) return sendServiceError(reply, unauthorized("Missing Authorization header"));
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match === null || !constantTimeEqual(expectedDigest, sha256Hex(match[1]!))) {
      return sendServiceError(reply, unauthorized("Invalid admin token"));
    }
    if (request.bodyProblem === "unsupported_media_type")
      return sendServiceError(reply, unsupportedMediaType);
    decodeJsonBody(request);
    if (request.bodyProblem === "invalid_json")
      return sendServiceError(reply, badRequest("Request body is not valid JSON"));
    return undefined;
  };
}
