// GET /neg-risk, Polymarket-compatible: `{neg_risk}` of a token's market: true for the tokens of an
// exclusive market, whose No shares convert into the other outcomes' Yes (DESIGN §10), as in
// Polymarket's neg-risk markets; false for every other market.

import { isExclusiveMarket } from "../../../core/exchange.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import {
  handlePolymarketError,
  invalidTokenId,
  PolymarketFailure,
  sendPolymarketError,
} from "../polymarket/errors.js";
import { readMarketParameter } from "../polymarket/market-parameters.js";
import { NegRisk, TokenQuery, tag, tokenReadErrors } from "../polymarket/schemas.js";

export default defineRoutes((app, deps) => {
  app.setErrorHandler(handlePolymarketError);
  app.get(
    "/neg-risk",
    {
      schema: {
        summary: "Whether a token's market is a neg-risk market (an exclusive event)",
        tags: [tag],
        querystring: TokenQuery,
        response: { 200: NegRisk, ...tokenReadErrors },
      },
    },
    async (request, reply) => {
      const assetId = request.query.token_id.trim();
      if (assetId === "") return sendPolymarketError(reply, invalidTokenId);
      const answer = await readMarketParameter(deps, assetId, (token, state) => ({
        neg_risk: isExclusiveMarket(state, token.market.marketId),
      }));
      if (answer instanceof PolymarketFailure) return sendPolymarketError(reply, answer);
      return answer;
    },
  );
});
