// Cookie sessions of the current interface (DESIGN §4). Routes that need a user add
// `preHandler: requireSession` and then read `request.user`.

import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import type { SessionUser } from "../../identity/service.js";
import { continueHookAfter } from "../shared/hook-continuation.js";
import { markSecurity } from "../shared/openapi-operations.js";
import { sessionSecurity } from "../shared/security-schemes.js";
import { authErrors, sendServiceError } from "./errors.js";

export const sessionCookieName = "predex_session";

declare module "fastify" {
  interface FastifyRequest {
    /** The session's user; set by requireSession, so only present on routes that use it. */
    user: SessionUser;
  }
}

/**
 * preHandler for user-scoped routes. A missing Cookie header, an unknown, expired or revoked token,
 * and a token of another partner are all 401/1401, with the spec's two messages. Callback-style: a
 * session the store keeps in memory (the common case) is resolved without a promise.
 */
export function requireSession(
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  if (request.headers.cookie === undefined) {
    sendServiceError(reply, authErrors.missingCookie);
    return;
  }
  const token = request.cookies[sessionCookieName];
  if (token === undefined || token === "") {
    sendServiceError(reply, authErrors.invalidSession);
    return;
  }
  const found = request.server.platform.identity.resolveSession(token, request.partner.partnerId);
  if (found instanceof Promise)
    continueHookAfter(request, found, (user, next) => admitUser(user, request, reply, next), done);
  else admitUser(found, request, reply, done);
}

/** Goes on (`done`) with the session's user; else answers 401 and ends the hook chain there. */
function admitUser(
  user: SessionUser | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  if (user === undefined) {
    sendServiceError(reply, authErrors.invalidSession);
    return;
  }
  request.user = user;
  done();
}
markSecurity(requireSession, sessionSecurity);

export function setSessionCookie(reply: FastifyReply, token: string, maxAgeSeconds: number): void {
  reply.setCookie(sessionCookieName, token, {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    maxAge: maxAgeSeconds,
    secure: reply.server.platform.config.tls !== undefined,
  });
}
