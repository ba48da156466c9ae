// GET /markets/{marketId}/holders (spec 000 "Holders"): outcome, then option, then its largest
// holders by shares, from the positions of real trades.

import { MarketHolders } from "../../../contract/partner/catalogue.js";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { MarketIdParams } from "../../../contract/partner/market-detail.js";
import { parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { sendRejection } from "../errors.js";

export default defineRoutes((app, deps) => {
  app.get(
    "/markets/:marketId/holders",
    {
      schema: {
        summary: "The largest holders of every option of a market",
        description: "At most 10 holders per option, by shares held (free and in resting SELL orders).",
        tags: ["Markets"],
        params: MarketIdParams,
        response: partnerResponses(MarketHolders),
      },
    },
    async (request, reply) => {
      const marketId = parseId(request.params.marketId);
      const holders = marketId === undefined ? undefined : await deps.catalogue.holders(marketId);
      if (holders === undefined) return sendRejection(reply, reject("MARKET_NOT_FOUND"));
      return ok(holders);
    },
  );
});
