// GET /markets/{marketId}/holders (spec 000 "Holders"): outcome, then option, then its largest
// holders by shares, from the positions of real trades.

import { reject } from "../../../core/errors.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { parseId } from "../../shared/wire-format.js";
import { ok, partnerResponses } from "../envelope.js";
import { sendRejection } from "../errors.js";
import { MarketHolders } from "../schemas/catalogue.js";
import { MarketIdParams } from "../schemas/market-detail.js";

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
