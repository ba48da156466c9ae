// GET /markets/list (spec 000): listed markets (every status but draft), hottest first, with the
// pagination fields inside `data` (`current, size, total, pages, records, totalRow: null, empty`).

import { defineRoutes } from "../../shared/typebox-app.js";
import { ok, partnerResponses } from "../envelope.js";
import { sendServiceError } from "../errors.js";
import { pageFields, resolvePage } from "../pagination.js";
import { MarketListPage, MarketListQuery } from "../schemas/catalogue.js";

export default defineRoutes((app, deps) => {
  app.get(
    "/markets/list",
    {
      schema: {
        summary: "Markets, hottest first",
        description:
          "Every market but drafts, by hotScore (decayed recent volume and views), then newest first. `pageSize` above 100 is truncated to 100.",
        tags: ["Markets"],
        querystring: MarketListQuery,
        response: partnerResponses(MarketListPage),
      },
    },
    async (request, reply) => {
      const page = resolvePage(request.query.page, request.query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      const { categoryId, status } = request.query;
      const found = await deps.catalogue.list({ categoryId, status }, page.value);
      return ok({
        ...pageFields(page.value, found.total),
        records: found.records,
        totalRow: null,
        empty: found.records.length === 0,
      });
    },
  );
});
