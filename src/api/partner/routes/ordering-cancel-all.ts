// POST /ordering/cancel-all (DESIGN §9): every resting order of the session user, or those in one
// market, or on one book of it, cancelled by one CancelAllOrders command (core/mass-cancel.ts): one
// journal entry, one OrderCancelled event per order, so the channels see ordinary cancels.

import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { CancelAllRequest, CancelAllResult } from "../../../contract/partner/market-making.js";
import { reject } from "../../../core/errors.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { badRequest, sendRejection, sendServiceError } from "../errors.js";
import { requestId } from "../order-command.js";
import { requireSession } from "../session.js";

export default defineRoutes((app, deps) => {
  app.post(
    "/ordering/cancel-all",
    {
      schema: {
        summary: "Cancel every open order of the session user, in one market, or on one book",
        description:
          "`{}` cancels all of the user's open orders; `{marketId}` those in one market; `{marketId, outcomeId}` those on one book (`outcomeId` without `marketId` is 400/1001). Answers `{cancelled: [orderId, …], count}`, oldest first. One engine command: the orders are cancelled together, at one point in the journal.",
        tags: ["Ordering", "Market makers"],
        body: CancelAllRequest,
        response: partnerResponses(CancelAllResult),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const body = request.body ?? {};
      if (body.outcomeId !== undefined && body.marketId === undefined)
        return sendServiceError(reply, badRequest("outcomeId needs marketId"));
      let marketId: number | null = null;
      if (body.marketId !== undefined) {
        marketId = requestId(body.marketId) ?? null;
        if (marketId === null) return sendRejection(reply, reject("MARKET_NOT_FOUND"));
      }
      let outcomeId: number | null = null;
      if (body.outcomeId !== undefined) {
        outcomeId = requestId(body.outcomeId) ?? null;
        if (outcomeId === null) return sendRejection(reply, reject("OUTCOME_NOT_FOUND"));
      }
      const result = await deps.engine.submit({
        type: "CancelAllOrders",
        userId: request.user.userId,
        marketId,
        outcomeId,
      });
      if (!result.ok) return sendRejection(reply, result.rejection);
      const cancelled = result.events.flatMap((event) =>
        event.type === "OrderCancelled" ? [String(event.orderId)] : [],
      );
      return ok({ cancelled, count: cancelled.length });
    },
  );
});
