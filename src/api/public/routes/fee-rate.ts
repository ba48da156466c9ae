// GET /fee-rate, Polymarket-compatible: `{base_fee}` in basis points, what a taker pays on the
// token's market (polymarket/market-parameters.ts baseFeeBpsOf).

import { defineRoutes } from "../../shared/typebox-app.js";
import {
  handlePolymarketError,
  invalidTokenId,
  PolymarketFailure,
  sendPolymarketError,
} from "../polymarket/errors.js";
import { baseFeeBpsOf, readMarketParameter } from "../polymarket/market-parameters.js";
import { FeeRate, TokenQuery, tag, tokenReadErrors } from "../polymarket/schemas.js";

export default defineRoutes((app, deps) => {
  app.setErrorHandler(handlePolymarketError);
  app.get(
    "/fee-rate",
    {
      schema: {
        summary: "Fee rate of a token's market, basis points",
        description:
          "The taker fee of a book, the buy fee of an AMM pool, the settlement fee of a parimutuel pool.",
        tags: [tag],
        querystring: TokenQuery,
        response: { 200: FeeRate, ...tokenReadErrors },
      },
    },
    async (request, reply) => {
      const assetId = request.query.token_id.trim();
      if (assetId === "") return sendPolymarketError(reply, invalidTokenId);
      const answer = await readMarketParameter(deps, assetId, (token, state) => ({
        base_fee: baseFeeBpsOf(token, state),
      }));
      if (answer instanceof PolymarketFailure) return sendPolymarketError(reply, answer);
      return answer;
    },
  );
});
