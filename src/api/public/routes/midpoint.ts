// GET /midpoint, GET /midpoints and POST /midpoints, Polymarket-compatible: the midpoint of a
// token's best bid and ask (an AMM's marginal price; a parimutuel pool's chance), as a decimal
// string. The numbers are GET /orderbook/price's midPrice.

import { formatAtoms } from "../../../core/money.js";
import type { PlatformDeps } from "../../deps.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { parseBookParams, parseTokenIds } from "../polymarket/batch.js";
import {
  handlePolymarketError,
  invalidTokenId,
  oneSidedBook,
  PolymarketError,
  PolymarketFailure,
  sendPolymarketError,
} from "../polymarket/errors.js";
import {
  BookParams,
  ByToken,
  Midpoint,
  TokenIdsQuery,
  TokenQuery,
  tag,
  tokenReadErrors,
} from "../polymarket/schemas.js";
import { tokenQuote } from "../polymarket/token-quotes.js";

/** Token id → midpoint for the tokens that have one; the others are left out. */
function midpoints(deps: PlatformDeps, tokenIds: readonly string[]) {
  return deps.engine.read((state) => {
    const answer: Record<string, string> = {};
    for (const tokenId of tokenIds) {
      const quote = tokenQuote(state, tokenId);
      if (quote.ok && quote.value.mid !== null) answer[tokenId] = formatAtoms(quote.value.mid);
    }
    return answer;
  });
}

const batchResponses = { 200: ByToken, 400: PolymarketError, 503: PolymarketError };

export default defineRoutes((app, deps) => {
  app.setErrorHandler(handlePolymarketError);

  app.get(
    "/midpoint",
    {
      schema: {
        summary: "Midpoint of one token",
        description: "`{mid}`. A book without bids or without asks has no midpoint (404).",
        tags: [tag],
        querystring: TokenQuery,
        response: { 200: Midpoint, ...tokenReadErrors },
      },
    },
    async (request, reply) => {
      const assetId = request.query.token_id.trim();
      if (assetId === "") return sendPolymarketError(reply, invalidTokenId);
      const answer = await deps.engine.read((state) => {
        const quote = tokenQuote(state, assetId);
        if (!quote.ok) return quote.failure;
        if (quote.value.mid === null) return oneSidedBook("midpoint");
        return { mid: formatAtoms(quote.value.mid) };
      });
      if (answer instanceof PolymarketFailure) return sendPolymarketError(reply, answer);
      return answer;
    },
  );

  app.get(
    "/midpoints",
    {
      schema: {
        summary: "Midpoints of many tokens",
        description: "`token_ids` comma-separated, at most 500; tokens without a midpoint are left out.",
        tags: [tag],
        querystring: TokenIdsQuery,
        response: batchResponses,
      },
    },
    async (request, reply) => {
      const parsed = parseTokenIds(request.query.token_ids);
      if (!parsed.ok) return sendPolymarketError(reply, parsed.failure);
      return midpoints(deps, parsed.value);
    },
  );

  app.post(
    "/midpoints",
    {
      schema: {
        summary: "Midpoints of many tokens",
        description: "Body `[{token_id}]`, at most 500; tokens without a midpoint are left out.",
        tags: [tag],
        body: BookParams,
        response: batchResponses,
      },
    },
    async (request, reply) => {
      const parsed = parseBookParams(request.body);
      if (!parsed.ok) return sendPolymarketError(reply, parsed.failure);
      return midpoints(
        deps,
        parsed.value.map((entry) => entry.token_id),
      );
    },
  );
});
