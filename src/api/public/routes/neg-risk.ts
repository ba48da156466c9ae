// GET /neg-risk, Polymarket-compatible: `{neg_risk}` of a token's market. Always false: the
// outcomes of a predex market are separate binary books with their own collateral, with no
// conversion between them, which is what Polymarket's neg-risk markets add (docs/decisions.md).

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
        summary: "Whether a token's market is a neg-risk market (never, on predex)",
        tags: [tag],
        querystring: TokenQuery,
        response: { 200: NegRisk, ...tokenReadErrors },
      },
    },
    async (request, reply) => {
      const assetId = request.query.token_id.trim();
      if (assetId === "") return sendPolymarketError(reply, invalidTokenId);
      const answer = await readMarketParameter(deps, assetId, () => ({ neg_risk: false }));
      if (answer instanceof PolymarketFailure) return sendPolymarketError(reply, answer);
      return answer;
    },
  );
});
