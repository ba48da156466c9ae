// The one place where the current interface turns problems into HTTP answers: core rejections
// (src/core/errors.ts) by their kind, authentication failures, and Fastify's own errors. No stack
// trace or internal message ever leaves this module.

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ListenerLimits } from "../../config.js";
import { type Rejection, rejectionKind, rejectionMessage } from "../../core/errors.js";
import type { ClientErrorAnswer, ClientErrorKind } from "../shared/listener-limits.js";
import type { RouteMethods } from "../shared/method-not-allowed.js";
import {
  answeredOutcome,
  isReadMethod,
  noteTryAgainLater,
  tryAgainLaterOf,
} from "../shared/try-again-later.js";
import { describeValidationError } from "../shared/validation-message.js";

export interface ServiceError {
  readonly status: 200 | 400 | 401 | 403 | 404 | 405 | 408 | 415 | 500 | 502 | 504;
  readonly code: 1001 | 1401 | 1403 | 1404 | 1405 | 1408 | 1415 | 2001 | 2002 | 4054 | 9999;
  readonly message: string;
}

export const bodyBytesMax = 1024 * 1024;

export function badRequest(detail: string): ServiceError {
  return { status: 400, code: 1001, message: `bad request: ${detail}` };
}

export function unauthorized(detail: string): ServiceError {
  return { status: 401, code: 1401, message: `unauthorized: ${detail}` };
}

export function notFound(detail: string): ServiceError {
  return { status: 404, code: 1404, message: `resource not found: ${detail}` };
}

export const unsupportedMediaType: ServiceError = {
  status: 415,
  code: 1415,
  message: "unsupported media type: Content-Type must be application/json",
};

/**
 * The path has routes, none with this method (src/api/shared/method-not-allowed.ts); sent with
 * `Allow`. Like 1408, 1405 follows the spec's 14xx codes that carry the HTTP status.
 */
export function methodNotAllowed(method: string, allowed: readonly string[]): ServiceError {
  return {
    status: 405,
    code: 1405,
    message: `method not allowed: ${method} (allowed: ${allowed.join(", ")})`,
  };
}

/**
 * The request was not received in time (src/api/shared/listener-limits.ts). Spec 000 has no code
 * for it; 1408 follows its 14xx codes, which carry the HTTP status (1401, 1404, 1415).
 */
export function requestTimeout(receiveMsMax: number): ServiceError {
  return {
    status: 408,
    code: 1408,
    message: `request timeout: the request was not received within ${receiveMsMax} ms`,
  };
}

/** A connection's problem with HTTP itself, answered in this envelope on the raw socket. */
export function partnerClientError(kind: ClientErrorKind, limits: ListenerLimits): ClientErrorAnswer {
  const error =
    kind === "timeout"
      ? requestTimeout(limits.requestReceiveMsMax)
      : badRequest(kind === "headers_too_large" ? "Request headers are too large" : "Malformed request");
  return {
    status: error.status,
    contentType: "application/json; charset=utf-8",
    body: JSON.stringify({ code: error.code, message: error.message, data: null }),
  };
}

export const internalError: ServiceError = { status: 500, code: 9999, message: "internal error" };

/**
 * Nothing was done; try again later (the engine is overloaded or stopping, the database is away and
 * nothing was written). The spec's 502/2002, which its recovery table retries; the message is that
 * code's meaning in the spec's table.
 */
export const upstreamUnreachable: ServiceError = {
  status: 502,
  code: 2002,
  message: "upstream could not be reached",
};

/**
 * The request may or may not have taken effect: the engine took it and no answer came in time, or
 * the database went away while its commit was in flight. The spec's 504/2001 (its recovery table:
 * reconcile before retrying a mutation; a create-order with the same clientOrderId is safe to send
 * again); the message is that code's meaning in the spec's table.
 */
export const upstreamTimedOut: ServiceError = {
  status: 504,
  code: 2001,
  message: "upstream request timed out",
};

export const authErrors = {
  missingApiKey: unauthorized("Missing X-API-KEY header"),
  invalidApiKey: unauthorized("Invalid X-API-KEY"),
  missingCookie: unauthorized("Missing Cookie header"),
  invalidSession: unauthorized("Invalid or expired session"),
} as const;

export function fromRejection(rejection: Rejection): ServiceError {
  const message = rejectionMessage(rejection);
  const kind = rejectionKind(rejection);
  switch (kind) {
    case "invalid":
    case "refused":
    case "forbidden":
      return badRequest(message);
    case "not_found":
      return notFound(message);
    case "not_ready":
      return { status: 200, code: 4054, message };
    default: {
      const unreachable: never = kind;
      return unreachable;
    }
  }
}

export function sendServiceError(reply: FastifyReply, error: ServiceError): FastifyReply {
  return reply.code(error.status).type("application/json; charset=utf-8").send({
    code: error.code,
    message: error.message,
    data: null,
  });
}

export function sendRejection(reply: FastifyReply, rejection: Rejection): FastifyReply {
  return sendServiceError(reply, fromRejection(rejection));
}

/** Fastify's error handler for the signed host, and (same envelope and codes) the public and admin hosts. */
export function handlePartnerError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error.validation !== undefined) {
    const { field, missing, problem } = describeValidationError(error.validation);
    if (error.validationContext === "querystring") {
      // The spec: query-string deserialization failures are plain text, not the JSON envelope.
      const detail = missing ? `missing field \`${field}\`` : `invalid value for \`${field}\`: ${problem}`;
      return reply.code(400).type("text/plain; charset=utf-8").send(`Query deserialize error: ${detail}`);
    }
    if (field === "") return sendServiceError(reply, badRequest("Request body must be a JSON object"));
    return sendServiceError(
      reply,
      badRequest(missing ? `Missing required field ${field}` : `${field} ${problem}`),
    );
  }
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return sendServiceError(reply, badRequest(`Request body exceeds ${bodyBytesMax} bytes`));
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return sendServiceError(reply, unsupportedMediaType);
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return sendServiceError(reply, badRequest("Malformed request"));
  }
  const failure = failureAnswer(error, request.server, {
    read: isReadMethod(request.method),
  });
  if (failure.retryAfterSeconds !== undefined) reply.header("retry-after", String(failure.retryAfterSeconds));
  // The logger's `surface` binding names the listener (gateway, public or admin).
  else request.log.error({ err: error }, "unhandled error");
  return sendServiceError(reply, failure.error);
}

/**
 * The answer to a request that failed with `error` (a thrown error, not a refusal): try-again-later
 * (502/2002 nothing was done, 504/2001 outcome unknown, both with Retry-After; noted once per
 * episode when `app` is given) or, for anything else, 500/9999 without a Retry-After (the caller
 * logs it).
 */
export function failureAnswer(
  error: unknown,
  app?: FastifyInstance,
  request: { readonly read: boolean } = { read: false },
): { readonly error: ServiceError; readonly retryAfterSeconds?: number } {
  const tryAgainLater = tryAgainLaterOf(error);
  if (tryAgainLater === undefined) return { error: internalError };
  if (app !== undefined) noteTryAgainLater(app, tryAgainLater);
  const unknown = answeredOutcome(tryAgainLater, request) === "unknown";
  return {
    error: unknown ? upstreamTimedOut : upstreamUnreachable,
    retryAfterSeconds: tryAgainLater.retryAfterSeconds,
  };
}

export function handlePartnerNotFound(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendServiceError(reply, notFound("Route not found"));
}

/** The not-found handler of a listener in this envelope: 405 with `Allow` where the path has routes. */
export function partnerNotFoundHandler(routes: RouteMethods) {
  return (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const allowed = routes.allowedAt(request.url);
    if (allowed.length === 0) return handlePartnerNotFound(request, reply);
    reply.header("allow", allowed.join(", "));
    return sendServiceError(reply, methodNotAllowed(request.method, allowed));
  };
}
