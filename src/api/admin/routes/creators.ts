// POST /admin/creators/{userId} and DELETE /admin/creators/{userId}: the operator decides who may
// apply for markets on the legacy interface (spec 001's 4011 "Non-creators cannot create markets").
// A creator is a user with this flag; nothing else makes one.

import { Type } from "typebox";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import { sendRejection } from "../../partner/errors.js";
import { defineRoutes } from "../../shared/typebox-app.js";

const UserIdParams = Type.Object({ userId: Type.String({ maxLength: 32 }) });
const CreatorFlag = Type.Object({ userId: Type.String(), creator: Type.Boolean() });

export default defineRoutes((app, deps) => {
  const applications = deps.legacyStores.applications;
  for (const [method, creator] of [
    ["POST", true],
    ["DELETE", false],
  ] as const) {
    app.route({
      method,
      url: "/admin/creators/:userId",
      schema: {
        summary: creator ? "Let a user apply for markets (creator)" : "Withdraw a user's creator flag",
        tags: ["Creators"],
        params: UserIdParams,
        response: partnerResponses(CreatorFlag),
      },
      handler: async (request, reply) => {
        const userId = parseId(request.params.userId);
        const user = userId === undefined ? undefined : await deps.identity.findUser(userId);
        if (user === undefined) return sendRejection(reply, reject("USER_NOT_FOUND"));
        await applications.setCreator(user.userId, creator, deps.nowMs());
        return ok({ userId: String(user.userId), creator });
      },
    });
  }
});
