// GET /orderbook/book and GET /orderbook/price (DESIGN §8): the live book from the engine's committed
// state. A draft market has no book yet: HTTP 200, code 4054 (spec 000).

import { ok } from "../../../contract/partner/envelope.js";
import { BestPrice, Book, BookQuery, bookResponses } from "../../../contract/partner/trading.js";
import { isoSeconds, parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import { type BookSnapshot, bestPrices, bookSnapshot } from "../../../core/exchange.js";
import { fnv1a64 } from "../../../core/hash.js";
import { formatAtoms } from "../../../core/money.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { sendRejection } from "../errors.js";
import { requireSession } from "../session.js";

type BookAddress = { marketId: number; outcomeId: number; optionId: number | null };

/** Ids that are not positive integers name nothing: the same 404 as an unknown id. */
function bookAddress(
  query: BookQuery,
):
  | { ok: true; value: BookAddress }
  | { ok: false; code: "MARKET_NOT_FOUND" | "OUTCOME_NOT_FOUND" | "OPTION_NOT_FOUND" } {
  const marketId = parseId(query.marketId);
  if (marketId === undefined) return { ok: false, code: "MARKET_NOT_FOUND" };
  const outcomeId = parseId(query.outcomeId);
  if (outcomeId === undefined) return { ok: false, code: "OUTCOME_NOT_FOUND" };
  if (query.optionId === undefined || query.optionId === "")
    return { ok: true, value: { marketId, outcomeId, optionId: null } };
  const optionId = parseId(query.optionId);
  if (optionId === undefined) return { ok: false, code: "OPTION_NOT_FOUND" };
  return { ok: true, value: { marketId, outcomeId, optionId } };
}

function bookView(snapshot: BookSnapshot, sequence: bigint, nowMs: number) {
  const bids = snapshot.bids.map((level) => ({
    price: formatAtoms(level.price),
    size: formatAtoms(level.size),
  }));
  const asks = snapshot.asks.map((level) => ({
    price: formatAtoms(level.price),
    size: formatAtoms(level.size),
  }));
  const levelsText = `${bids.map((level) => `${level.price}:${level.size}`).join(",")}|${asks
    .map((level) => `${level.price}:${level.size}`)
    .join(",")}`;
  return {
    marketId: String(snapshot.marketId),
    outcomeId: String(snapshot.outcomeId),
    optionId: String(snapshot.optionId),
    assetId: snapshot.assetId,
    tickSize: formatAtoms(snapshot.tickSize),
    minOrderSize: formatAtoms(snapshot.minOrderSize),
    seq: Number(sequence),
    hash: fnv1a64(levelsText),
    timestamp: isoSeconds(nowMs),
    bids,
    asks,
  };
}

const decimalOrNull = (atoms: bigint | null): string | null => (atoms === null ? null : formatAtoms(atoms));

export default defineRoutes((app, deps) => {
  app.get(
    "/orderbook/book",
    {
      schema: {
        summary: "The order book of one outcome, aggregated by price",
        description:
          "In Yes prices, or No prices when `optionId` is the No option. `seq` is the last journal sequence applied. A draft market answers code 4054.",
        tags: ["Order book"],
        querystring: BookQuery,
        response: bookResponses(Book),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const address = bookAddress(request.query);
      if (!address.ok) return sendRejection(reply, reject(address.code));
      const read = await deps.engine.read((state, position) => ({
        snapshot: bookSnapshot(state, address.value),
        sequence: position.sequence,
      }));
      if (!read.snapshot.ok) return sendRejection(reply, read.snapshot.rejection);
      return ok(bookView(read.snapshot.value, read.sequence, deps.nowMs()));
    },
  );

  app.get(
    "/orderbook/price",
    {
      schema: {
        summary: "Best bid and ask, midpoint, spread and last trade price of one outcome",
        tags: ["Order book"],
        querystring: BookQuery,
        response: bookResponses(BestPrice),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const address = bookAddress(request.query);
      if (!address.ok) return sendRejection(reply, reject(address.code));
      const prices = await deps.engine.read((state) => bestPrices(state, address.value));
      if (!prices.ok) return sendRejection(reply, prices.rejection);
      const { bestBid, bestAsk, midPrice, spread, lastTradePrice } = prices.value;
      return ok({
        bestBid: decimalOrNull(bestBid),
        bestAsk: decimalOrNull(bestAsk),
        midPrice: decimalOrNull(midPrice),
        spread: decimalOrNull(spread),
        lastTradePrice: decimalOrNull(lastTradePrice),
      });
    },
  );
});
