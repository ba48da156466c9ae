// GET /markets/{marketId}/live-volume (spec 000): `{marketId, volume}`, the USDT traded so far,
// as the decimal string the market record carries.

import { LiveVolume } from "../../../contract/partner/catalogue.js";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { MarketIdParams } from "../../../contract/partner/market-detail.js";
import { parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { sendRejection } from "../errors.js";

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
