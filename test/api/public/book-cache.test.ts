// The served book of GET /book: for any sequence of orders, the cached answer at a journal sequence
// is exactly what a fresh build gives (only the timestamp is written per request), both tokens list
// each side best last, and the hash is /ws/market's over the levels best first.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { BookCache } from "../../../src/api/public/polymarket/book-cache.js";
import { orderBookSummary } from "../../../src/api/public/polymarket/book-summary.js";
import { PolymarketFailure } from "../../../src/api/public/polymarket/errors.js";
import { lastTradePriceText, tokenBook } from "../../../src/api/public/polymarket/token-quotes.js";
import { bookHash } from "../../../src/realtime/book-hash.js";
import { Exchange } from "../../core/exchange-harness.js";

const order = fc.record({
  user: fc.constantFrom(1, 2),
  buysYes: fc.boolean(),
  priceCents: fc.integer({ min: 1, max: 99 }),
  shares: fc.integer({ min: 1, max: 20 }),
});

describe("the served book cache", () => {
  it("answers at every sequence what a fresh build answers", () => {
    fc.assert(
      fc.property(fc.array(order, { minLength: 1, maxLength: 40 }), (orders) => {
        const exchange = new Exchange("fast");
        const market = exchange.openMarket();
        exchange.deposit(1, "100000");
        exchange.deposit(2, "100000");
        const assets = [market.yes, market.no].map(
          (optionId) => exchange.state.options.get(optionId)!.assetId,
        );
        const cache = new BookCache();
        let sequence = 0n;
        for (const { user, buysYes, priceCents, shares } of orders) {
          const optionId = buysYes ? market.yes : market.no;
          const price = (priceCents / 100).toFixed(2);
          if (exchange.run(exchange.limit(user, market, optionId, "BUY", price, String(shares))).ok)
            sequence += 1n;
          for (const assetId of assets) {
            const timeMs = 1_700_000_000_000 + Number(sequence);
            const served = cache.serialized(exchange.state, sequence, assetId, timeMs);
            assert.ok(!(served instanceof PolymarketFailure));
            const read = tokenBook(exchange.state, assetId);
            assert.ok(read.ok);
            const fresh = orderBookSummary(
              read.value.token,
              read.value.book,
              lastTradePriceText(exchange.state, read.value.token),
              timeMs,
            );
            const answer = JSON.parse(served);
            assert.deepEqual(answer, fresh);
            assert.equal(cache.serialized(exchange.state, sequence, assetId, timeMs), served);
            const prices = (levels: { price: string }[]) => levels.map((level) => Number(level.price));
            assert.deepEqual(
              prices(answer.bids),
              [...prices(answer.bids)].sort((a, b) => a - b),
            );
            assert.deepEqual(
              prices(answer.asks),
              [...prices(answer.asks)].sort((a, b) => b - a),
            );
            assert.equal(answer.hash, bookHash([...answer.bids].reverse(), [...answer.asks].reverse()));
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it("an unknown token is no book, and is not kept", () => {
    const exchange = new Exchange("fast");
    exchange.openMarket();
    const served = new BookCache().serialized(exchange.state, 1n, "12345", 0);
    assert.ok(served instanceof PolymarketFailure);
    assert.deepEqual(
      [served.status, served.message],
      [404, "No orderbook exists for the requested token id"],
    );
  });
});
