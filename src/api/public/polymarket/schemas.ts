// The request and response shapes of the Polymarket-compatible reads, field for field as
// Polymarket's CLOB API and @polymarket/clob-client (src/types.ts) name them. Declared once: they
// validate, type the handlers and document the public listener's /docs.

import { Type } from "typebox";
import { batchTokensMax, PolymarketError } from "./errors.js";

const tokenId = Type.String({
  minLength: 1,
  description:
    "The token id: the asset id of one option (the CLOB token id of /ws/market and /prices-history)",
});

export const TokenQuery = Type.Object({ token_id: tokenId }, { additionalProperties: true });
export type TokenQuery = Type.Static<typeof TokenQuery>;

export const PriceQuery = Type.Object(
  {
    token_id: tokenId,
    side: Type.String({
      description:
        "BUY: the best bid (what a seller gets); SELL: the best ask (what a buyer pays). Either case.",
    }),
  },
  { additionalProperties: true },
);
export type PriceQuery = Type.Static<typeof PriceQuery>;

export const TokenIdsQuery = Type.Object(
  { token_ids: Type.String({ minLength: 1, description: "Comma-separated token ids" }) },
  { additionalProperties: true },
);
export type TokenIdsQuery = Type.Static<typeof TokenIdsQuery>;

/** clob-client's BookParams: `side` matters to /prices only. */
export const BookParams = Type.Array(
  Type.Object(
    {
      token_id: Type.String({ description: "The token id" }),
      side: Type.Optional(Type.String({ description: "BUY or SELL (POST /prices only)" })),
    },
    { additionalProperties: true },
  ),
  { maxItems: batchTokensMax, description: `At most ${batchTokensMax} entries` },
);
export type BookParams = Type.Static<typeof BookParams>;

export const OrderSummary = Type.Object({ price: Type.String(), size: Type.String() });

export const OrderBookSummary = Type.Object({
  market: Type.String({ description: "The condition id of the token's outcome" }),
  asset_id: Type.String(),
  timestamp: Type.String({ description: "Unix milliseconds, as a string" }),
  hash: Type.String({ description: "The hash /ws/market's book event carries for the same book" }),
  bids: Type.Array(OrderSummary, {
    description: "Low → high: the best bid is the last entry, as Polymarket lists them",
  }),
  asks: Type.Array(OrderSummary, {
    description: "High → low: the best ask is the last entry, as Polymarket lists them",
  }),
  min_order_size: Type.String(),
  tick_size: Type.String(),
  neg_risk: Type.Boolean(),
  last_trade_price: Type.String(),
});

export const Midpoint = Type.Object({ mid: Type.String() });
export const Price = Type.Object({ price: Type.String() });
export const Spread = Type.Object({ spread: Type.String() });
export const LastTradePrice = Type.Object({
  price: Type.String({ description: '"0.5" before the first trade, as Polymarket answers' }),
  side: Type.String({ description: 'BUY, SELL, or "" when unknown' }),
});
export const TokenLastTradePrice = Type.Object({
  token_id: Type.String(),
  price: Type.String(),
  side: Type.String(),
});
export const ByToken = Type.Record(Type.String(), Type.String(), {
  description: "Token id → decimal string",
});
export const PricesByToken = Type.Record(Type.String(), Type.Record(Type.String(), Type.String()), {
  description: "Token id → {BUY: price, SELL: price} for the sides asked",
});
export const TickSize = Type.Object({ minimum_tick_size: Type.Number() });
export const NegRisk = Type.Object({ neg_risk: Type.Boolean() });
export const FeeRate = Type.Object({ base_fee: Type.Integer({ description: "Basis points" }) });

export const MarketToken = Type.Object({
  token_id: Type.String(),
  outcome: Type.String(),
  price: Type.Number(),
  winner: Type.Boolean(),
});

const Rewards = Type.Object(
  { rates: Type.Null(), min_size: Type.Number(), max_spread: Type.Number() },
  { description: "predex pays no liquidity rewards: always no rates, 0 and 0" },
);

export const Market = Type.Object({
  enable_order_book: Type.Boolean(),
  active: Type.Boolean(),
  closed: Type.Boolean(),
  archived: Type.Boolean(),
  accepting_orders: Type.Boolean(),
  accepting_order_timestamp: Type.Union([Type.String(), Type.Null()]),
  minimum_order_size: Type.Number(),
  minimum_tick_size: Type.Number(),
  condition_id: Type.String(),
  question_id: Type.String(),
  question: Type.String(),
  description: Type.String(),
  market_slug: Type.String(),
  end_date_iso: Type.Union([Type.String(), Type.Null()]),
  game_start_time: Type.Union([Type.String(), Type.Null()]),
  seconds_delay: Type.Integer(),
  fpmm: Type.String(),
  maker_base_fee: Type.Integer(),
  taker_base_fee: Type.Integer(),
  notifications_enabled: Type.Boolean(),
  neg_risk: Type.Boolean(),
  neg_risk_market_id: Type.String(),
  neg_risk_request_id: Type.String(),
  icon: Type.String(),
  image: Type.String(),
  rewards: Rewards,
  is_50_50_outcome: Type.Boolean(),
  tokens: Type.Array(MarketToken),
  tags: Type.Array(Type.String()),
});
export type Market = Type.Static<typeof Market>;

export const SimplifiedMarket = Type.Object({
  condition_id: Type.String(),
  rewards: Rewards,
  tokens: Type.Array(MarketToken),
  active: Type.Boolean(),
  closed: Type.Boolean(),
  archived: Type.Boolean(),
  accepting_orders: Type.Boolean(),
});
export type SimplifiedMarket = Type.Static<typeof SimplifiedMarket>;

export const MarketsQuery = Type.Object(
  {
    next_cursor: Type.Optional(
      Type.String({ description: 'The previous page\'s next_cursor; "MA==" (or none) for the first page' }),
    ),
    limit: Type.Optional(Type.String({ description: "predex extension: page size, 1 to 500 (default 500)" })),
  },
  { additionalProperties: true },
);
export type MarketsQuery = Type.Static<typeof MarketsQuery>;

export const MarketsPage = Type.Object({
  limit: Type.Integer(),
  count: Type.Integer(),
  next_cursor: Type.String({
    description: 'Base64 of the next offset; "LTE=" (base64 of -1) after the last page',
  }),
  data: Type.Array(Market),
});

export const SimplifiedMarketsPage = Type.Object({
  limit: Type.Integer(),
  count: Type.Integer(),
  next_cursor: Type.String({
    description: 'Base64 of the next offset; "LTE=" (base64 of -1) after the last page',
  }),
  data: Type.Array(SimplifiedMarket),
});

/** Polymarket's MarketReward; predex never lists one (it pays no liquidity rewards). */
export const RewardsPage = Type.Object({
  limit: Type.Integer(),
  count: Type.Integer(),
  next_cursor: Type.String({ description: '"LTE=": there is never a next page' }),
  data: Type.Array(Type.Object({}, { additionalProperties: true }), {
    description: "Always empty: no market has a rewards program",
  }),
});

/** clob-client's MarketTradeEvent: one trade of a condition, seen from its taker. */
export const MarketTradeEvent = Type.Object({
  event_type: Type.Literal("trade"),
  market: Type.Object({
    condition_id: Type.String(),
    asset_id: Type.String({ description: "The token the taker's order named" }),
    question: Type.String(),
    icon: Type.String(),
    slug: Type.String({ description: "The market object's market_slug" }),
  }),
  user: Type.Object(
    {
      address: Type.String(),
      username: Type.String(),
      profile_picture: Type.String(),
      optimized_profile_picture: Type.String(),
      pseudonym: Type.String(),
    },
    { description: "Always empty strings: predex does not publish who traded" },
  ),
  side: Type.String({ description: "The taker's side on asset_id: BUY or SELL" }),
  size: Type.String({ description: "Shares" }),
  fee_rate_bps: Type.String({ description: "What a taker pays on this market, basis points" }),
  price: Type.String({ description: "The trade price in asset_id's terms" }),
  outcome: Type.String({ description: "The title of asset_id's option" }),
  outcome_index: Type.Integer({ description: "0 = Yes, 1 = No" }),
  transaction_hash: Type.String({
    description: "The trade id, as /ws/market's last_trade_price gives it (predex trades are not on chain)",
  }),
  timestamp: Type.String({ description: "Unix seconds, as a string" }),
});
export type MarketTradeEvent = Type.Static<typeof MarketTradeEvent>;

export const ConditionParams = Type.Object({
  condition_id: Type.String({ description: "0x and 64 hex digits, from /markets or a book's `market`" }),
});
export type ConditionParams = Type.Static<typeof ConditionParams>;

export const tag = "Polymarket-compatible market data";

/** The error statuses every token read may answer. */
export const tokenReadErrors = { 400: PolymarketError, 404: PolymarketError, 503: PolymarketError } as const;
