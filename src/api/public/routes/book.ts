// GET /book and POST /books, Polymarket-compatible (docs.polymarket.com, "Get order book"): the
// aggregated book of one token, or of many, without credentials. The levels are the signed host's
// GET /orderbook/book at the same moment; see src/api/public/polymarket/book-summary.ts.

import { Type } from "typebox";
import { defineRoutes } from "../../shared/typebox-app.js";
import { parseBookParams } from "../polymarket/batch.js";
import { type OrderBookSummary, orderBookSummary } from "../polymarket/book-summary.js";
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
import { lastTradePriceText, tokenBook } from "../polymarket/token-quotes.js";

export default defineRoutes((app, deps) => {
  app.setErrorHandler(handlePolymarketError);

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
      const summary = await deps.engine.read((state) => {
        const read = tokenBook(state, assetId);
        if (!read.ok) return read.failure;
        const { token, book } = read.value;
        return orderBookSummary(token, book, lastTradePriceText(token), deps.nowMs());
      });
      if (summary instanceof PolymarketFailure) return sendPolymarketError(reply, summary);
      return summary;
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
      const params = parsed.value;
      const nowMs = deps.nowMs();
      return deps.engine.read((state) => {
        const books: OrderBookSummary[] = [];
        for (const { token_id } of params) {
          const read = tokenBook(state, token_id);
          if (!read.ok) continue;
          books.push(
            orderBookSummary(read.value.token, read.value.book, lastTradePriceText(read.value.token), nowMs),
          );
        }
        return books;
      });
    },
  );
});
