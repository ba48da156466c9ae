// GET /api/market/openapi/category, /market/list, /{marketId}/outcome and /top-holders (spec 001
// steps 2–4, DESIGN §8): the catalogue read through the earlier interface, with numeric ids.
// Categories need no credentials; the other three take a JWT or none.

import { Type } from "typebox";
import { defaultLanguage } from "../../../catalog/languages.js";
import {
  Category,
  LegacyMarketDetail,
  LegacyMarketRecord,
  MarketIdParams,
  MarketListQuery,
  TopHolders,
  TopHoldersQuery,
} from "../../../contract/legacy/catalogue.js";
import { legacyResponses, success } from "../../../contract/legacy/envelope.js";
import { PagedEnvelope } from "../../../contract/legacy/portfolio.js";
import {
  listedMarketStatuses,
  listLegacyMarkets,
  viewLegacyMarket,
} from "../../../legacy/market-list-query.js";
import { legacyCategories, legacyMarketDetail, legacyTopHolders } from "../../../legacy/market-views.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { optionalLegacyToken } from "../authentication.js";
import { legacyErrors, parameterError, sendLegacyError } from "../errors.js";
import { pagedSuccess, resolveLegacyPage } from "../pagination.js";

export const categoryPath = "/api/market/openapi/category";
export const marketListPath = "/api/market/openapi/market/list";
export const marketOutcomePath = "/api/market/openapi/:marketId/outcome";
export const topHoldersPath = "/api/market/openapi/top-holders";

const idPattern = /^[1-9][0-9]{0,14}$/;

export default defineRoutes((app, deps) => {
  app.get(
    categoryPath,
    {
      schema: {
        summary: "Every category a market may be filed under",
        description:
          "The online tree, flattened depth first (a parent before its children); `name` in en-US.",
        tags: ["Market"],
        response: legacyResponses(Type.Array(Category)),
      },
    },
    async () => success(legacyCategories(await deps.categories.tree(defaultLanguage))),
  );

  app.get(
    marketListPath,
    {
      schema: {
        summary: "Markets, hottest first (every status but draft)",
        description: "Filters `categoryId`, `status`, `keyword` (full text, best match first). JWT optional.",
        tags: ["Market"],
        querystring: MarketListQuery,
        response: { ...legacyResponses(LegacyMarketRecord), 200: PagedEnvelope(LegacyMarketRecord) },
      },
      preValidation: optionalLegacyToken,
    },
    async (request, reply) => {
      const { page, pageSize, categoryId, status, keyword } = request.query;
      const resolved = resolveLegacyPage(page, pageSize);
      if (!resolved.ok) return sendLegacyError(reply, resolved.error);
      if (status !== undefined && !(listedMarketStatuses as readonly string[]).includes(status)) {
        return sendLegacyError(
          reply,
          parameterError("status", `must be one of ${listedMarketStatuses.join(", ")}`),
        );
      }
      const found = await listLegacyMarkets(deps, { categoryId, status, keyword }, resolved.value);
      return pagedSuccess(resolved.value, found, (record) => record);
    },
  );

  app.get(
    marketOutcomePath,
    {
      schema: {
        summary: "A market's details: outcomes, options and prices",
        description: "Unknown market: 404 (3009). JWT optional.",
        tags: ["Market"],
        params: MarketIdParams,
        response: legacyResponses(LegacyMarketDetail),
      },
      preValidation: optionalLegacyToken,
    },
    async (request, reply) => {
      const { marketId } = request.params;
      if (!idPattern.test(marketId))
        return sendLegacyError(reply, parameterError("marketId", "must be a number"));
      const viewed = await viewLegacyMarket(deps, Number(marketId));
      if (viewed === undefined) return sendLegacyError(reply, legacyErrors.marketNotFound);
      return success(legacyMarketDetail(viewed.detail, viewed.categoryId));
    },
  );

  app.get(
    topHoldersPath,
    {
      schema: {
        summary: "The largest holders of each option of a market",
        description: "`marketId` in the query string (required). JWT optional.",
        tags: ["Market"],
        querystring: TopHoldersQuery,
        response: legacyResponses(TopHolders),
      },
      preValidation: optionalLegacyToken,
    },
    async (request, reply) => {
      const { marketId } = request.query;
      if (marketId === undefined) return sendLegacyError(reply, parameterError("marketId", "is required"));
      if (!idPattern.test(marketId))
        return sendLegacyError(reply, parameterError("marketId", "must be a number"));
      const holders = await deps.catalogue.holders(Number(marketId));
      if (holders === undefined) return sendLegacyError(reply, legacyErrors.marketNotFound);
      return success(legacyTopHolders(holders));
    },
  );
});
