// GET /api/user/notification/list (spec 001 step 11): the token user's order results and the
// settlements of markets it held, newest first. `userId` is required and must be the token's own
// user: another user's list is 403, never shown.

import { legacyResponses } from "../../../contract/legacy/envelope.js";
import { Notification, NotificationQuery } from "../../../contract/legacy/notifications.js";
import { PagedEnvelope } from "../../../contract/legacy/portfolio.js";
import type { NotificationRecord } from "../../../store/legacy-notifications.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { requireLegacyToken } from "../authentication.js";
import { legacyErrors, parameterError, sendLegacyError } from "../errors.js";
import { pagedSuccess, resolveLegacyPage } from "../pagination.js";

export const notificationListPath = "/api/user/notification/list";

export default defineRoutes((app) => {
  const services = app.legacyServices;
  app.get(
    notificationListPath,
    {
      schema: {
        summary: "The user's notifications: order results and settlements",
        description:
          "`userId` is required and must be the token's user (another user's id is 404, as a missing user).",
        tags: ["User"],
        querystring: NotificationQuery,
        response: { ...legacyResponses(Notification), 200: PagedEnvelope(Notification) },
      },
      preValidation: requireLegacyToken,
    },
    async (request, reply) => {
      const { userId, page, pageSize } = request.query;
      if (userId === undefined || userId.trim() === "") {
        return sendLegacyError(reply, parameterError("userId", "is required"));
      }
      if (!/^[0-9]{1,15}$/.test(userId.trim()))
        return sendLegacyError(reply, parameterError("userId", "must be a number"));
      // Another user is as missing as one that never existed (never 403: nothing is revealed).
      if (Number(userId) !== request.legacyToken!.userId)
        return sendLegacyError(reply, legacyErrors.userNotFound);
      const resolved = resolveLegacyPage(page, pageSize);
      if (!resolved.ok) return sendLegacyError(reply, resolved.error);
      const found = await services.notifications.list(Number(userId), resolved.value);
      return pagedSuccess(resolved.value, found, notificationView);
    },
  );
});

function notificationView(record: NotificationRecord) {
  return {
    id: record.id,
    userId: record.userId,
    type: record.type,
    refId: record.refId,
    marketId: record.marketId,
    title: record.title,
    content: record.content,
    createTime: new Date(record.createTimeMs).toISOString(),
  };
}
