// GET /markets/{marketId}/live-volume (spec 000): `{marketId, volume}`, the USDT traded so far,
// as the decimal string the market record carries.

import { reject } from "../../../core/errors.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { parseId } from "../../shared/wire-format.js";
import { ok, partnerResponses } from "../envelope.js";
import { sendRejection } from "../errors.js";
import { LiveVolume } from "../schemas/catalogue.js";
import { MarketIdParams } from "../schemas/market-detail.js";

export default defineRoutes((app, deps) => {
  app.get(
    "/markets/:marketId/live-volume",
    {
      schema: {
        summary: "The USDT a market has traded so far",
        tags: ["Markets"],
        params: MarketIdParams,
        response: partnerResponses(LiveVolume),
      },
    },
    async (request, reply) => {
      const marketId = parseId(request.params.marketId);
      const volume = marketId === undefined ? undefined : await deps.catalogue.liveVolume(marketId);
      if (volume === undefined) return sendRejection(reply, reject("MARKET_NOT_FOUND"));
      return ok(volume);
    },
  );
});
