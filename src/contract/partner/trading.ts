// Schemas of the trading operations (DESIGN §8): order book, ordering, trades, assets. Ids are
// decimal strings, prices and sizes decimal strings, times ISO 8601 UTC at second precision.

import { type Static, type TSchema, Type } from "typebox";
import { ErrorEnvelope, partnerResponses } from "./envelope.js";
import { PageFields, PageFieldsSchema } from "./pagination.js";

const Decimal = (description: string) => Type.String({ description: `${description} (decimal string)` });
const NullableDecimal = (description: string) => Type.Union([Decimal(description), Type.Null()]);
const Time = Type.String({ description: "ISO 8601 UTC, e.g. 2026-11-22T10:00:00Z" });
const Id = Type.String({ description: "Numeric id as a string" });
/** Ids in requests: the strings the API hands out, or numbers. Anything not a positive integer is "not found". */
const RequestId = Type.Union([Type.String({ maxLength: 32 }), Type.Number()], {
  description: "Numeric id, as a string (as returned) or a number",
});

export const BookQuery = Type.Object({
  marketId: Type.String({ maxLength: 32 }),
  outcomeId: Type.String({ maxLength: 32 }),
  optionId: Type.Optional(
    Type.String({ maxLength: 32, description: "The No option shows the book in No prices" }),
  ),
});
export type BookQuery = Static<typeof BookQuery>;

const Level = Type.Object({ price: Decimal("Price"), size: Decimal("Shares at this price") });

export const Book = Type.Object({
  marketId: Id,
  outcomeId: Id,
  optionId: Id,
  assetId: Type.String(),
  tickSize: Decimal("Tick size"),
  minOrderSize: Decimal("Smallest order in shares"),
  seq: Type.Integer({ description: "Last journal sequence applied; WebSocket deltas continue from it" }),
  hash: Type.String({ description: "FNV-1a 64 of the levels, to check a locally maintained book" }),
  timestamp: Time,
  bids: Type.Array(Level, { description: "High to low" }),
  asks: Type.Array(Level, { description: "Low to high" }),
});
export type Book = Static<typeof Book>;

export const BestPrice = Type.Object({
  bestBid: NullableDecimal("Best bid"),
  bestAsk: NullableDecimal("Best ask"),
  midPrice: NullableDecimal("Midpoint of best bid and ask"),
  spread: NullableDecimal("Best ask − best bid"),
  lastTradePrice: NullableDecimal("Price of the last trade"),
});
export type BestPrice = Static<typeof BestPrice>;

export const CreateOrderRequest = Type.Object({
  marketId: RequestId,
  outcomeId: RequestId,
  optionId: RequestId,
  side: Type.Enum(["BUY", "SELL"]),
  orderType: Type.Enum(["LIMIT", "MARKET"]),
  // Checked by the handler, so that a string gets the spec's own message.
  limitPrice: Type.Optional(Type.Unknown({ description: "LIMIT: a JSON number, on the market's tick" })),
  shares: Type.Optional(Type.Number({ description: "LIMIT and MARKET SELL: shares (JSON number)" })),
  amount: Type.Optional(
    Type.Number({ description: "MARKET BUY: USDT to spend, fee included (JSON number)" }),
  ),
  timeInForce: Type.Optional(
    Type.Enum(["GTC", "GTD", "FOK", "FAK"], { description: "Default GTC; MARKET is FAK" }),
  ),
  expiresAt: Type.Optional(Type.String({ maxLength: 40, description: "GTD only: ISO 8601 time" })),
  clientOrderId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: "Idempotency key: the same one again within 24 hours returns the first order",
    }),
  ),
  postOnly: Type.Optional(
    Type.Boolean({
      description:
        "LIMIT GTC or GTD only: the order must rest without trading. One that would trade at once is refused (400/1001 `bad request: Post-only order would trade at once`) and nothing is placed. Kept by amend-order.",
    }),
  ),
});
export type CreateOrderRequest = Static<typeof CreateOrderRequest>;

export const Trade = Type.Object({
  tradeId: Id,
  orderId: Id,
  marketId: Id,
  outcomeId: Id,
  optionId: Id,
  side: Type.String(),
  price: Decimal("Price in this order's option terms"),
  shares: Decimal("Shares"),
  fee: Decimal("Fee paid on this side, USDT"),
  role: Type.String({ description: "MAKER or TAKER" }),
  time: Time,
});
export type Trade = Static<typeof Trade>;

export const Order = Type.Object({
  orderId: Id,
  clientOrderId: Type.Union([Type.String(), Type.Null()]),
  marketId: Id,
  outcomeId: Id,
  optionId: Id,
  status: Type.String({ description: "OPEN, PARTIALLY_FILLED, FILLED, CANCELLED or EXPIRED" }),
  side: Type.String(),
  orderType: Type.String(),
  timeInForce: Type.String(),
  limitPrice: NullableDecimal("LIMIT price; null for MARKET"),
  shares: NullableDecimal("Shares asked for; null for a MARKET BUY"),
  amount: NullableDecimal("MARKET BUY budget; null otherwise"),
  filledShares: Decimal("Shares filled"),
  avgPrice: NullableDecimal("Average fill price; null before the first fill"),
  fee: Decimal("Fees paid by this order, USDT"),
  expiresAt: Type.Union([Time, Type.Null()]),
  createdAt: Time,
  trades: Type.Array(Trade),
});
export type Order = Static<typeof Order>;

export const OpenOrdersRequest = Type.Object({
  marketId: Type.Optional(RequestId),
  ...PageFields,
});
export type OpenOrdersRequest = Static<typeof OpenOrdersRequest>;

export const CancelOrderRequest = Type.Object({ orderId: RequestId });
export type CancelOrderRequest = Static<typeof CancelOrderRequest>;

export const TradesQuery = Type.Object({
  marketId: Type.Optional(Type.String({ maxLength: 32 })),
  ...PageFields,
});
export type TradesQuery = Static<typeof TradesQuery>;

export const Asset = Type.Object({
  coinId: Type.String(),
  symbol: Type.String(),
  available: Decimal("Free to trade or withdraw"),
  frozen: Decimal("Reserved by resting orders and pending withdrawals"),
  total: Decimal("available + frozen"),
});
export type Asset = Static<typeof Asset>;

/** A success whose pagination fields sit beside `data` (spec 000: trades, open orders, search). */
export function PagedEnvelope<Item extends TSchema>(item: Item) {
  return Type.Object({
    code: Type.Integer(),
    message: Type.String(),
    data: Type.Array(item),
    ...PageFieldsSchema,
  });
}

export function pagedResponses<Item extends TSchema>(item: Item) {
  return {
    200: PagedEnvelope(item),
    400: ErrorEnvelope,
    401: ErrorEnvelope,
    404: ErrorEnvelope,
    415: ErrorEnvelope,
    500: ErrorEnvelope,
  };
}

/**
 * Responses of the book operations: a draft market's book answers HTTP 200 with code 4054 and
 * `data: null`, so the 200 schema must let null through (an object schema would print `{}`).
 */
export function bookResponses<Data extends TSchema>(data: Data) {
  return partnerResponses(Type.Union([data, Type.Null()]));
}
