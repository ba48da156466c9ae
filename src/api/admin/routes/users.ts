// POST /admin/users/{id}/revoke-sessions: ends every session of a user (a compromised device, an
// offboarded account). The user's partner recovers by registering the user again.

import { Type } from "typebox";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import { sendRejection } from "../../partner/errors.js";
import { defineRoutes } from "../../shared/typebox-app.js";

export default defineRoutes((app, deps) => {
  app.post(
    "/admin/users/:id/revoke-sessions",
    {
      schema: {
        summary: "Revoke every session of a user",
        tags: ["Users"],
        params: Type.Object({ id: Type.String({ maxLength: 32 }) }),
        response: partnerResponses(Type.Object({ userId: Type.String(), revoked: Type.Integer() })),
      },
    },
    async (request, reply) => {
      const userId = parseId(request.params.id);
      if (userId === undefined) return sendRejection(reply, reject("USER_NOT_FOUND"));
      const result = await deps.identity.revokeSessions(userId);
      if (!result.ok) return sendRejection(reply, result.rejection);
      return ok({ userId: String(userId), revoked: result.value.revoked });
    },
  );
});
