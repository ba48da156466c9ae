// Polymarket's `side` of /price and /prices: BUY answers the best bid, SELL the best ask (its API
// reference: "Returns the best bid price for BUY side or best ask price for SELL side", which its
// live service does). Either case is accepted, as py-clob-client's examples send "buy".

import type { TokenQuote } from "./token-quotes.js";

export type QuoteSide = "BUY" | "SELL";

export function parseSide(text: unknown): QuoteSide | null {
  if (typeof text !== "string") return null;
  const side = text.trim().toUpperCase();
  return side === "BUY" || side === "SELL" ? side : null;
}

export function priceOnSide(quote: TokenQuote, side: QuoteSide): bigint | null {
  return side === "BUY" ? quote.bid : quote.ask;
}
