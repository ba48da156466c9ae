// The three Polymarket-compatible routes of one figure of a token's quote: GET /<one> for a token,
// GET /<many> (token ids in the query) and POST /<many> (`[{token_id}]` in the body) for several.
// The midpoint and the spread (routes/midpoint.ts, routes/spread.ts) are such figures: each names
// its TokenQuote field, its answer's key and its texts, and this one piece serves both.

import type { TSchema } from "typebox";
import { formatAtoms } from "../../../core/money.js";
import type { PlatformDeps } from "../../deps.js";
import { defineRoutes, type RoutePlugin } from "../../shared/typebox-app.js";
import { addTokenBatchRoutes } from "./batch.js";
import {
  handlePolymarketError,
  invalidTokenId,
  oneSidedBook,
  PolymarketFailure,
  sendPolymarketError,
} from "./errors.js";
import { ByToken, TokenQuery, tag, tokenReadErrors } from "./schemas.js";
import { type TokenQuote, tokenQuote } from "./token-quotes.js";

export interface QuoteFigure {
  /** The TokenQuote field, which is also the one-token answer's key (`{mid}`, `{spread}`). */
  readonly field: "mid" | "spread";
  /** What a book without bids or without asks has none of, in the 404's message. */
  readonly missing: "midpoint" | "spread";
  readonly one: {
    readonly path: string;
    readonly summary: string;
    readonly description: string;
    readonly response: TSchema;
  };
  readonly many: {
    readonly path: string;
    readonly summary: string;
    readonly queryDescription: string;
    readonly bodyDescription: string;
  };
}

export function quoteRoutes(figure: QuoteFigure): RoutePlugin {
  const figureOf = (quote: TokenQuote) => quote[figure.field];

  /** Token id → the figure, for the tokens that have one; the others are left out. */
  const figuresOf = (deps: PlatformDeps, tokenIds: readonly string[]) =>
    deps.engine.read((state) => {
      const answer: Record<string, string> = {};
      for (const tokenId of tokenIds) {
        const quote = tokenQuote(state, tokenId);
        const value = quote.ok ? figureOf(quote.value) : null;
        if (value !== null) answer[tokenId] = formatAtoms(value);
      }
      return answer;
    });

  return defineRoutes((app, deps) => {
    app.setErrorHandler(handlePolymarketError);

    app.get(
      figure.one.path,
      {
        schema: {
          summary: figure.one.summary,
          description: figure.one.description,
          tags: [tag],
          querystring: TokenQuery,
          response: { 200: figure.one.response, ...tokenReadErrors },
        },
      },
      async (request, reply) => {
        const assetId = request.query.token_id.trim();
        if (assetId === "") return sendPolymarketError(reply, invalidTokenId);
        const answer = await deps.engine.read((state) => {
          const quote = tokenQuote(state, assetId);
          if (!quote.ok) return quote.failure;
          const value = figureOf(quote.value);
          if (value === null) return oneSidedBook(figure.missing);
          return { [figure.field]: formatAtoms(value) };
        });
        if (answer instanceof PolymarketFailure) return sendPolymarketError(reply, answer);
        return answer;
      },
    );

    addTokenBatchRoutes(app, {
      ...figure.many,
      response: ByToken,
      answer: (tokenIds) => figuresOf(deps, tokenIds),
    });
  });
}
