// GET /tick-size, Polymarket-compatible: `{minimum_tick_size}` of a token's market, a JSON number
// (clob-client turns it into its TickSize string "0.1" | "0.01" | "0.001" | "0.0001").

import { defineRoutes } from "../../shared/typebox-app.js";
import {
  handlePolymarketError,
  invalidTokenId,
  PolymarketFailure,
  sendPolymarketError,
} from "../polymarket/errors.js";
import { readMarketParameter, tickSizeOf } from "../polymarket/market-parameters.js";
import { TickSize, TokenQuery, tag, tokenReadErrors } from "../polymarket/schemas.js";

export default defineRoutes((app, deps) => {
  app.setErrorHandler(handlePolymarketError);
  app.get(
    "/tick-size",
    {
      schema: {
        summary: "Tick size of a token's market",
        tags: [tag],
        querystring: TokenQuery,
        response: { 200: TickSize, ...tokenReadErrors },
      },
    },
    async (request, reply) => {
      const assetId = request.query.token_id.trim();
      if (assetId === "") return sendPolymarketError(reply, invalidTokenId);
      const answer = await readMarketParameter(deps, assetId, (token) => ({
        minimum_tick_size: tickSizeOf(token),
      }));
      if (answer instanceof PolymarketFailure) return sendPolymarketError(reply, answer);
      return answer;
    },
  );
});
