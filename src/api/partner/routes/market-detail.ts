// GET /markets/{marketId}/detail (spec 000): the market detail, G only (no session needed). Each
// answer counts as one click of the market (src/catalog/catalogue.ts). A draft is not listed but is
// readable by its id, with status "draft" and isOnline false (as its book answers 4054, not 404).

import type { FastifyReply } from "fastify";
import type { MarketActivity } from "../../../catalog/catalogue.js";
import type { MarketDetail as Detail } from "../../../catalog/market-detail.js";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { MarketDetail, MarketIdParams } from "../../../contract/partner/market-detail.js";
import { parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { sendRejection } from "../errors.js";

/**
 * The answer's JSON around its two per-request numbers. The catalogue hands back the same cached
 * detail object until the market changes, so its JSON (written by the route's own response
 * serializer, which keeps only the schema's fields) is split once around `hotScore` and `clicks`
 * and each answer only writes those two numbers into it.
 */
interface DetailTemplate {
  readonly beforeHotScore: string;
  readonly beforeClicks: string;
  readonly rest: string;
}

const templates = new WeakMap<Detail, DetailTemplate | null>();

function templateOf(serialized: string): DetailTemplate | null {
  const hotScoreAt = serialized.indexOf('"hotScore":0,');
  const clicksAt = serialized.indexOf('"clicks":0,');
  // Each key occurs once in a detail; if the layout were ever different, answer without a template.
  if (hotScoreAt < 0 || clicksAt < hotScoreAt || serialized.indexOf('"clicks":', clicksAt + 1) >= 0)
    return null;
  return {
    beforeHotScore: serialized.slice(0, hotScoreAt + '"hotScore":'.length),
    beforeClicks: serialized.slice(hotScoreAt + '"hotScore":0'.length, clicksAt + '"clicks":'.length),
    rest: serialized.slice(clicksAt + '"clicks":0'.length),
  };
}

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
      const view = marketId === undefined ? undefined : await deps.catalogue.viewDetail(marketId);
      if (view === undefined) return sendRejection(reply, reject("MARKET_NOT_FOUND"));
      const { base, activity } = view;
      let template = templates.get(base);
      if (template === undefined) {
        const serialize = reply.getSerializationFunction("200");
        template =
          serialize === undefined
            ? null
            : templateOf(serialize({ ...ok({ ...base, hotScore: 0, clicks: 0 }) }));
        templates.set(base, template);
      }
      if (template === null) return ok({ ...base, ...activity });
      // Already serialized by the route's schema: sent as is (the typed reply expects the object).
      return (reply as FastifyReply).type("application/json; charset=utf-8").send(bodyOf(template, activity));
    },
  );
});

function bodyOf(template: DetailTemplate, activity: MarketActivity): string {
  return `${template.beforeHotScore}${activity.hotScore}${template.beforeClicks}${activity.clicks}${template.rest}`;
}
