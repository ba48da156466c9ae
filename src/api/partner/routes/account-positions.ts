// GET /account/positions (DESIGN §8): the session user's positions, by position id, filtered by
// market and status (open | settled | claimed), with the pagination fields inside `data`.

import { PositionsPage, PositionsQuery } from "../../../contract/partner/claims.js";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { parseId } from "../../../contract/wire-format.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { sendServiceError } from "../errors.js";
import { pageFields, resolvePage } from "../pagination.js";
import { requireSession } from "../session.js";
import { positionView } from "../views/position-view.js";

export default defineRoutes((app, deps) => {
  app.get(
    "/account/positions",
    {
      schema: {
        summary: "The session user's positions",
        description:
          "`status`: open (market not finished), settled (settled or void, not claimed yet) or claimed. `claimable` is what `/ordering/claim` would pay now. Pagination inside `data`.",
        tags: ["Account"],
        querystring: PositionsQuery,
        response: partnerResponses(PositionsPage),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const { query } = request;
      const page = resolvePage(query.page, query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      const found = await deps.exchangeReadModels.positions(
        {
          userId: request.user.userId,
          marketId: query.marketId === undefined ? undefined : (parseId(query.marketId) ?? 0),
          status: query.status,
        },
        page.value,
      );
      return ok({ ...pageFields(page.value, found.total), records: found.records.map(positionView) });
    },
  );
});
