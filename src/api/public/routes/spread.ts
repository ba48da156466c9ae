// GET /spread, POST /spreads and GET /spreads, Polymarket-compatible: best ask − best bid of a token
// as a decimal string (GET /orderbook/price's spread; an AMM pool's buy − sell price; 0 for a
// parimutuel pool, whose one price is on both sides).

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
  Spread,
  TokenIdsQuery,
  TokenQuery,
  tag,
  tokenReadErrors,
} from "../polymarket/schemas.js";
import { tokenQuote } from "../polymarket/token-quotes.js";

function spreads(deps: PlatformDeps, tokenIds: readonly string[]) {
  return deps.engine.read((state) => {
    const answer: Record<string, string> = {};
    for (const tokenId of tokenIds) {
      const quote = tokenQuote(state, tokenId);
      if (quote.ok && quote.value.spread !== null) answer[tokenId] = formatAtoms(quote.value.spread);
    }
    return answer;
  });
}

const batchResponses = { 200: ByToken, 400: PolymarketError, 503: PolymarketError };

export default defineRoutes((app, deps) => {
  app.setErrorHandler(handlePolymarketError);

  app.get(
    "/spread",
    {
      schema: {
        summary: "Spread of one token",
        description: "`{spread}`. A book without bids or without asks has no spread (404).",
        tags: [tag],
        querystring: TokenQuery,
        response: { 200: Spread, ...tokenReadErrors },
      },
    },
    async (request, reply) => {
      const assetId = request.query.token_id.trim();
      if (assetId === "") return sendPolymarketError(reply, invalidTokenId);
      const answer = await deps.engine.read((state) => {
        const quote = tokenQuote(state, assetId);
        if (!quote.ok) return quote.failure;
        if (quote.value.spread === null) return oneSidedBook("spread");
        return { spread: formatAtoms(quote.value.spread) };
      });
      if (answer instanceof PolymarketFailure) return sendPolymarketError(reply, answer);
      return answer;
    },
  );

  app.post(
    "/spreads",
    {
      schema: {
        summary: "Spreads of many tokens",
        description: "Body `[{token_id}]`, at most 500; tokens without a spread are left out.",
        tags: [tag],
        body: BookParams,
        response: batchResponses,
      },
    },
    async (request, reply) => {
      const parsed = parseBookParams(request.body);
      if (!parsed.ok) return sendPolymarketError(reply, parsed.failure);
      return spreads(
        deps,
        parsed.value.map((entry) => entry.token_id),
      );
    },
  );

  app.get(
    "/spreads",
    {
      schema: {
        summary: "Spreads of many tokens",
        description: "`token_ids` comma-separated, at most 500; the same answer as POST /spreads.",
        tags: [tag],
        querystring: TokenIdsQuery,
        response: batchResponses,
      },
    },
    async (request, reply) => {
      const parsed = parseTokenIds(request.query.token_ids);
      if (!parsed.ok) return sendPolymarketError(reply, parsed.failure);
      return spreads(deps, parsed.value);
    },
  );
});
