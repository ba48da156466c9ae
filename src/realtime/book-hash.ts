// The book `hash` that GET /orderbook/book, the public `book` event and `price_change` all carry:
// the FNV-1a hash of the levels as the REST snapshot lists them, so a client can compare its copy.

import { fnv1a64 } from "../core/hash.js";
import type { PublicLevel } from "./messages.js";

export function bookHash(bids: readonly PublicLevel[], asks: readonly PublicLevel[]): string {
  const side = (levels: readonly PublicLevel[]) =>
    levels.map((level) => `${level.price}:${level.size}`).join(",");
  return fnv1a64(`${side(bids)}|${side(asks)}`);
}
