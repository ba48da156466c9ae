// GET /search (DESIGN §8): full-text search of the listed markets, best match first, as list market
// records, with `current, size, total, pages` beside `data`.

import { SearchQuery, searchResponses } from "../../../contract/partner/catalogue.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { sendServiceError } from "../errors.js";
import { pageFields, resolvePage } from "../pagination.js";

export default defineRoutes((app, deps) => {
  app.get(
    "/search",
    {
      schema: {
        summary: "Search markets by words, or by creator",
        description:
          "searchBy=Market (default) matches titles (weighted most), tags and descriptions; searchBy=Creator matches the creator's name (`predex` for the platform's own markets). Every word must match, each as a prefix; punctuation is ignored. Drafts are never found. Pagination beside `data`.",
        tags: ["Search"],
        querystring: SearchQuery,
        response: searchResponses,
      },
    },
    async (request, reply) => {
      const page = resolvePage(request.query.page, request.query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      const { keyword, searchBy = "Market" } = request.query;
      const found = await deps.catalogue.search({ keyword, searchBy }, page.value);
      return { code: 0, message: "ok", data: found.records, ...pageFields(page.value, found.total) };
    },
  );
});
