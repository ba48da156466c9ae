// Cookie sessions of the current interface (DESIGN §4). Routes that need a user add
// `preHandler: requireSession` and then read `request.user`.

import type { FastifyReply, FastifyRequest } from "fastify";
import type { SessionUser } from "../../identity/service.js";
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
 * and a token of another partner are all 401/1401, with the spec's two messages.
 */
export async function requireSession(
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | undefined> {
  if (request.headers.cookie === undefined) return sendServiceError(reply, authErrors.missingCookie);
  const token = request.cookies[sessionCookieName];
  const user =
    token === undefined || token === ""
      ? undefined
      : await request.server.platform.identity.resolveSession(token, request.partner.partnerId);
  if (user === undefined) return sendServiceError(reply, authErrors.invalidSession);
  request.user = user;
  return undefined;
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
