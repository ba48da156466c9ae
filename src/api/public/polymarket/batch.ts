// The shared shape of the batch reads (POST /midpoints, /spreads, /prices, /last-trades-prices and
// their GET forms with `token_ids`): the token ids asked for, checked once, answered in one engine read.

import {
  batchTokensMax,
  invalidPayload,
  invalidTokenId,
  type PolymarketFailure,
  payloadTooLarge,
} from "./errors.js";
import type { BookParams } from "./schemas.js";

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
