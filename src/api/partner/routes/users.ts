// POST /user/register, GET /user/profile, GET /user/{id} (spec 000, DESIGN §4 and §8).

import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import {
  PublicUser,
  RegisteredUser,
  RegisterRequest,
  UserIdParams,
  UserProfile,
} from "../../../contract/partner/users.js";
import { isoSeconds, parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import type { UserRecord } from "../../../store/identity.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { sendRejection } from "../errors.js";
import { requireSession, setSessionCookie } from "../session.js";

export default defineRoutes((app, deps) => {
  app.post(
    "/user/register",
    {
      schema: {
        summary: "Register a user (or find it again) and open a session",
        description: "The session is returned in the `Set-Cookie` header (`predex_session`).",
        tags: ["User"],
        body: RegisterRequest,
        response: partnerResponses(RegisteredUser),
      },
    },
    async (request, reply) => {
      const result = await deps.identity.register(request.partner, request.body);
      if (!result.ok) return sendRejection(reply, result.rejection);
      const { user, sessionToken, sessionTtlSeconds } = result.value;
      setSessionCookie(reply, sessionToken, sessionTtlSeconds);
      return ok({ userId: String(user.userId), userName: user.userName, email: user.email });
    },
  );

  app.get(
    "/user/profile",
    {
      schema: {
        summary: "The session user's profile",
        tags: ["User"],
        response: partnerResponses(UserProfile),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const user = await deps.identity.findUser(request.user.userId);
      if (user === undefined) return sendRejection(reply, reject("USER_NOT_FOUND"));
      return ok(profileOf(user, await deps.mfa.isMfaEnabled(user.userId)));
    },
  );

  app.get(
    "/user/:id",
    {
      schema: {
        summary: "A user's public profile",
        tags: ["User"],
        params: UserIdParams,
        response: partnerResponses(PublicUser),
      },
    },
    async (request, reply) => {
      const userId = parseId(request.params.id);
      const user = userId === undefined ? undefined : await deps.identity.findUser(userId);
      if (user === undefined) return sendRejection(reply, reject("USER_NOT_FOUND"));
      return ok({ userId: String(user.userId), userName: user.userName, avatarUrl: user.avatarUrl });
    },
  );
});

function profileOf(user: UserRecord, mfaEnabled: boolean) {
  return {
    userId: String(user.userId),
    userName: user.userName,
    email: user.email,
    merchantId: String(user.partnerId),
    marchantUserId: user.marchantUserId,
    avatarUrl: user.avatarUrl,
    mfaEnabled,
    createdAt: isoSeconds(user.createdAtMs),
  };
}
