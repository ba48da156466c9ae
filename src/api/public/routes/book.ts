// GET /book and POST /books, Polymarket-compatible (docs.polymarket.com, "Get order book"): the
// aggregated book of one token, or of many, without credentials. The levels are the signed host's
// GET /orderbook/book at the same moment; see src/api/public/polymarket/book-summary.ts.

import { Type } from "typebox";
import { defineRoutes } from "../../shared/typebox-app.js";
import { parseBookParams } from "../polymarket/batch.js";
import { BookCache, sendSerializedJson } from "../polymarket/book-cache.js";
import {
  handlePolymarketError,
  invalidTokenId,
  PolymarketError,
  PolymarketFailure,
  sendPolymarketError,
} from "../polymarket/errors.js";
import {
  BookParams,
  OrderBookSummary as OrderBookSummarySchema,
  TokenQuery,
  tag,
  tokenReadErrors,
} from "../polymarket/schemas.js";

export default defineRoutes((app, deps) => {
  app.setErrorHandler(handlePolymarketError);
  const books = new BookCache();

  app.get(
    "/book",
    {
      schema: {
        summary: "Order book of one token",
        description:
          "Polymarket's OrderBookSummary: bids low → high and asks high → low (the best of each last), `hash` as /ws/market's book event. An AMM or parimutuel token has no book (404).",
        tags: [tag],
        querystring: TokenQuery,
        response: { 200: OrderBookSummarySchema, ...tokenReadErrors },
      },
    },
    async (request, reply) => {
      const assetId = request.query.token_id.trim();
      if (assetId === "") return sendPolymarketError(reply, invalidTokenId);
      const timeMs = deps.nowMs();
      const answer = await deps.engine.read((state, position) =>
        books.serialized(state, position.sequence, assetId, timeMs),
      );
      if (answer instanceof PolymarketFailure) return sendPolymarketError(reply, answer);
      return sendSerializedJson(reply, answer);
    },
  );

  app.post(
    "/books",
    {
      schema: {
        summary: "Order books of many tokens",
        description:
          "Body `[{token_id}]` (clob-client's BookParams), at most 500. Tokens without a book (unknown, or AMM and parimutuel) are left out of the answer.",
        tags: [tag],
        body: BookParams,
        response: { 200: Type.Array(OrderBookSummarySchema), 400: PolymarketError, 503: PolymarketError },
      },
    },
    async (request, reply) => {
      const parsed = parseBookParams(request.body);
      if (!parsed.ok) return sendPolymarketError(reply, parsed.failure);
      const timeMs = deps.nowMs();
      const serialized = await deps.engine.read((state, position) => {
        const found: string[] = [];
        for (const { token_id } of parsed.value) {
          const book = books.serialized(state, position.sequence, token_id, timeMs);
          if (typeof book === "string") found.push(book);
        }
        return found;
      });
      return sendSerializedJson(reply, `[${serialized.join(",")}]`);
    },
  );
});
