// GET /price, POST /prices and GET /prices, Polymarket-compatible: a token's best price on one side
// (BUY → best bid, SELL → best ask; polymarket/sides.ts), GET /orderbook/price's bestBid and bestAsk.

import { Type } from "typebox";
import { formatAtoms } from "../../../core/money.js";
import type { PlatformDeps } from "../../deps.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { parseBookParams, parseTokenIds } from "../polymarket/batch.js";
import {
  emptySide,
  handlePolymarketError,
  invalidSide,
  invalidTokenId,
  PolymarketError,
  PolymarketFailure,
  sendPolymarketError,
} from "../polymarket/errors.js";
import { BookParams, Price, PriceQuery, PricesByToken, tag, tokenReadErrors } from "../polymarket/schemas.js";
import { parseSide, priceOnSide, type QuoteSide } from "../polymarket/sides.js";
import { tokenQuote } from "../polymarket/token-quotes.js";

/** Token id → {side: price} for the pairs asked; a token or side without a price is left out. */
function prices(deps: PlatformDeps, pairs: readonly { tokenId: string; side: QuoteSide }[]) {
  return deps.engine.read((state) => {
    const answer: Record<string, Record<string, string>> = {};
    for (const { tokenId, side } of pairs) {
      const quote = tokenQuote(state, tokenId);
      if (!quote.ok) continue;
      const price = priceOnSide(quote.value, side);
      if (price === null) continue;
      answer[tokenId] ??= {};
      answer[tokenId][side] = formatAtoms(price);
    }
    return answer;
  });
}

const PricesQuery = Type.Object(
  {
    token_ids: Type.String({ minLength: 1, description: "Comma-separated token ids" }),
    sides: Type.String({ description: "Comma-separated BUY or SELL, one per token id" }),
  },
  { additionalProperties: true },
);

const batchResponses = { 200: PricesByToken, 400: PolymarketError, 503: PolymarketError };

export default defineRoutes((app, deps) => {
  app.setErrorHandler(handlePolymarketError);

  app.get(
    "/price",
    {
      schema: {
        summary: "Best price of one token on one side",
        description:
          "`side` BUY answers the best bid, SELL the best ask, as Polymarket's CLOB does. A side with no orders has no price (404).",
        tags: [tag],
        querystring: PriceQuery,
        response: { 200: Price, ...tokenReadErrors },
      },
    },
    async (request, reply) => {
      const assetId = request.query.token_id.trim();
      if (assetId === "") return sendPolymarketError(reply, invalidTokenId);
      const side = parseSide(request.query.side);
      if (side === null) return sendPolymarketError(reply, invalidSide);
      const answer = await deps.engine.read((state) => {
        const quote = tokenQuote(state, assetId);
        if (!quote.ok) return quote.failure;
        const price = priceOnSide(quote.value, side);
        if (price === null) return emptySide(side === "BUY" ? "bids" : "asks");
        return { price: formatAtoms(price) };
      });
      if (answer instanceof PolymarketFailure) return sendPolymarketError(reply, answer);
      return answer;
    },
  );

  app.post(
    "/prices",
    {
      schema: {
        summary: "Best prices of many tokens",
        description:
          "Body `[{token_id, side}]` (clob-client's BookParams), at most 500; answers `{token_id: {BUY|SELL: price}}`, leaving out what has no price.",
        tags: [tag],
        body: BookParams,
        response: batchResponses,
      },
    },
    async (request, reply) => {
      const parsed = parseBookParams(request.body);
      if (!parsed.ok) return sendPolymarketError(reply, parsed.failure);
      const pairs: { tokenId: string; side: QuoteSide }[] = [];
      for (const entry of parsed.value) {
        const side = parseSide(entry.side);
        if (side === null) return sendPolymarketError(reply, invalidSide);
        pairs.push({ tokenId: entry.token_id, side });
      }
      return prices(deps, pairs);
    },
  );

  app.get(
    "/prices",
    {
      schema: {
        summary: "Best prices of many tokens",
        description: "`token_ids` and `sides` comma-separated, pairwise; the same answer as POST /prices.",
        tags: [tag],
        querystring: PricesQuery,
        response: batchResponses,
      },
    },
    async (request, reply) => {
      const tokenIds = parseTokenIds(request.query.token_ids);
      if (!tokenIds.ok) return sendPolymarketError(reply, tokenIds.failure);
      const sides = request.query.sides.split(",").map(parseSide);
      if (sides.length !== tokenIds.value.length || sides.some((side) => side === null)) {
        return sendPolymarketError(reply, invalidSide);
      }
      return prices(
        deps,
        tokenIds.value.map((tokenId, index) => ({ tokenId, side: sides[index] as QuoteSide })),
      );
    },
  );
});
