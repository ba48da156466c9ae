// GET /markets/{marketId}/detail (spec 000): the market detail, G only (no session needed). Each
// answer counts as one click of the market (src/catalog/catalogue.ts). A draft is not listed but is
// readable by its id, with status "draft" and isOnline false (as its book answers 4054, not 404).

import { reject } from "../../../core/errors.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { parseId } from "../../shared/wire-format.js";
import { ok, partnerResponses } from "../envelope.js";
import { sendRejection } from "../errors.js";
import { MarketDetail, MarketIdParams } from "../schemas/market-detail.js";

export default defineRoutes((app, deps) => {
  app.get(
    "/markets/:marketId/detail",
    {
      schema: {
        summary: "One market, its outcomes and options with live prices",
        tags: ["Markets"],
        params: MarketIdParams,
        response: partnerResponses(MarketDetail),
      },
    },
    async (request, reply) => {
      const marketId = parseId(request.params.marketId);
      const detail = marketId === undefined ? undefined : await deps.catalogue.viewDetail(marketId);
      if (detail === undefined) return sendRejection(reply, reject("MARKET_NOT_FOUND"));
      return ok(detail);
    },
  );
});
