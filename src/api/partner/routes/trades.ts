// GET /trades (DESIGN §8): the session user's side of each trade, newest first, with the
// pagination fields beside `data`.

import { pagedResponses, Trade, TradesQuery } from "../../../contract/partner/trading.js";
import { parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { sendRejection, sendServiceError } from "../errors.js";
import { pageFields, resolvePage } from "../pagination.js";
import { requireSession } from "../session.js";
import { tradeView } from "../views/order-view.js";

export default defineRoutes((app, deps) => {
  app.get(
    "/trades",
    {
      schema: {
        summary: "The session user's trades, newest first",
        description:
          "Each fill appears once per side the user took (MAKER or TAKER). Pagination beside `data`.",
        tags: ["Trades"],
        querystring: TradesQuery,
        response: pagedResponses(Trade),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const page = resolvePage(request.query.page, request.query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      let marketId: number | undefined;
      if (request.query.marketId !== undefined && request.query.marketId !== "") {
        marketId = parseId(request.query.marketId);
        if (marketId === undefined) return sendRejection(reply, reject("MARKET_NOT_FOUND"));
      }
      const found = await deps.exchangeReadModels.trades(
        { userId: request.user.userId, marketId },
        page.value,
      );
      return {
        code: 0,
        message: "ok",
        data: found.records.map(tradeView),
        ...pageFields(page.value, found.total),
      };
    },
  );
});
