// GET /book is the hottest public read, and a book only changes when a command commits. So the
// serialized OrderBookSummary of each token is kept with the journal sequence it was built at and
// reused until the state moves past it; only `timestamp` (the time of the answer) is written per
// request. A sequence names one committed state exactly, so a hit is the answer a fresh build would
// give (bench:public-book, docs/performance.md). Bounded: the oldest entries go first.

import type { FastifyReply } from "fastify";
import { type ExchangeState, isExclusiveMarket } from "../../../core/exchange.js";
import { orderBookSummary } from "./book-summary.js";
import type { PolymarketFailure } from "./errors.js";
import { lastTradePriceText, tokenBook } from "./token-quotes.js";

export const bookCacheEntriesMax = 10_000;

interface Entry {
  readonly sequence: bigint;
  /** The JSON up to the timestamp's digits, and from the closing quote after them. */
  readonly head: string;
  readonly tail: string;
}

export class BookCache {
  readonly #entries = new Map<string, Entry>();

  /** The serialized book of a token at `sequence`, timestamped `timeMs`, or why there is none. */
  serialized(
    state: Readonly<ExchangeState>,
    sequence: bigint,
    assetId: string,
    timeMs: number,
  ): string | PolymarketFailure {
    let entry = this.#entries.get(assetId);
    if (entry === undefined || entry.sequence !== sequence) {
      const read = tokenBook(state, assetId);
      if (!read.ok) {
        this.#entries.delete(assetId);
        return read.failure;
      }
      const { token, book } = read.value;
      const {
        market,
        asset_id,
        timestamp: _timestamp,
        ...rest
      } = {
        ...orderBookSummary(token, book, lastTradePriceText(state, token), 0),
        // An exclusive market's books are neg-risk, as GET /neg-risk says (DESIGN §10).
        neg_risk: isExclusiveMarket(state, token.market.marketId),
      };
      entry = {
        sequence,
        head: `{"market":${JSON.stringify(market)},"asset_id":${JSON.stringify(asset_id)},"timestamp":"`,
        tail: `",${JSON.stringify(rest).slice(1)}`,
      };
      this.#entries.delete(assetId);
      if (this.#entries.size >= bookCacheEntriesMax) {
        const oldest = this.#entries.keys().next();
        if (oldest.done !== true) this.#entries.delete(oldest.value);
      }
      this.#entries.set(assetId, entry);
    }
    return `${entry.head}${timeMs}${entry.tail}`;
  }
}

/** Sends JSON that is already serialized: Fastify sends a string with a JSON content type as it is. */
export function sendSerializedJson(reply: FastifyReply, json: string): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(json);
}
