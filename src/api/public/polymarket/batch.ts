// The shared shape of the batch reads (POST /midpoints, /spreads, /prices, /last-trades-prices and
// their GET forms with `token_ids`): the token ids asked for, checked once, answered in one engine read.

import type { TSchema } from "typebox";
import type { TypeBoxApp } from "../../shared/typebox-app.js";
import {
  batchTokensMax,
  invalidPayload,
  invalidTokenId,
  PolymarketError,
  type PolymarketFailure,
  payloadTooLarge,
  sendPolymarketError,
} from "./errors.js";
import { BookParams, TokenIdsQuery, tag } from "./schemas.js";

export type ParsedBatch<T> = { ok: true; value: T[] } | { ok: false; failure: PolymarketFailure };

/** A body of clob-client BookParams: an array of objects with a non-empty string token_id. */
export function parseBookParams(body: unknown): ParsedBatch<BookParams[number]> {
  if (!Array.isArray(body)) return { ok: false, failure: invalidPayload };
  if (body.length > batchTokensMax) return { ok: false, failure: payloadTooLarge };
  for (const entry of body as unknown[]) {
    const tokenId =
      typeof entry === "object" && entry !== null ? (entry as { token_id?: unknown }).token_id : undefined;
    if (typeof tokenId !== "string" || tokenId.trim() === "") return { ok: false, failure: invalidPayload };
  }
  return { ok: true, value: body as BookParams };
}

/** `token_ids=a,b,c` of the GET forms. */
export function parseTokenIds(text: string): ParsedBatch<string> {
  const tokenIds = text
    .split(",")
    .map((tokenId) => tokenId.trim())
    .filter((tokenId) => tokenId !== "");
  if (tokenIds.length === 0) return { ok: false, failure: invalidTokenId };
  if (tokenIds.length > batchTokensMax) return { ok: false, failure: payloadTooLarge };
  return { ok: true, value: tokenIds };
}

export interface TokenBatchRoutes {
  /** The one path of both forms (`/midpoints`, `/last-trades-prices`). */
  readonly path: string;
  readonly summary: string;
  readonly queryDescription: string;
  readonly bodyDescription: string;
  /** The 200 answer's schema. */
  readonly response: TSchema;
  /** The answer for the token ids asked, checked and in the order asked. */
  answer(tokenIds: readonly string[]): Promise<unknown>;
}

/** GET `path?token_ids=a,b` and POST `path` with `[{token_id}]`: the same answer for the same tokens. */
export function addTokenBatchRoutes(app: TypeBoxApp, routes: TokenBatchRoutes): void {
  const response = { 200: routes.response, 400: PolymarketError, 503: PolymarketError };
  app.get(
    routes.path,
    {
      schema: {
        summary: routes.summary,
        description: routes.queryDescription,
        tags: [tag],
        querystring: TokenIdsQuery,
        response,
      },
    },
    async (request, reply) => {
      const parsed = parseTokenIds(request.query.token_ids);
      if (!parsed.ok) return sendPolymarketError(reply, parsed.failure);
      return routes.answer(parsed.value);
    },
  );
  app.post(
    routes.path,
    {
      schema: {
        summary: routes.summary,
        description: routes.bodyDescription,
        tags: [tag],
        body: BookParams,
        response,
      },
    },
    async (request, reply) => {
      const parsed = parseBookParams(request.body);
      if (!parsed.ok) return sendPolymarketError(reply, parsed.failure);
      return routes.answer(parsed.value.map((entry) => entry.token_id));
    },
  );
}
