// The messages of the WebSocket channels, as they go over the wire: the signed channels of spec 000
// (/socket/*) and the public market channel (/ws/market, Polymarket's market channel, DESIGN §8).
// The server's builders (src/realtime/messages.ts) return these types and the SDK hands them to
// partners. Every message is one JSON object; prices and sizes are decimal strings.

export type ChannelOrderSide = "BUY" | "SELL";

// ---------------------------------------------------------------- signed channels

/** /socket/clob-price-update: one level of the book after a change. */
export interface ClobPriceUpdate {
  readonly marketId: string;
  readonly outcomeId: string;
  readonly assetId: string;
  /** The journal sequence after which the level holds `size`; continues GET /orderbook/book's `seq`. */
  readonly seq: number;
  /** `seq` of this book's previous update: a client whose book is older than it missed one. */
  readonly prevSeq: number;
  readonly side: ChannelOrderSide;
  readonly price: string;
  /** The new total at that price; "0" when the level is gone. */
  readonly size: string;
  readonly timestamp: string;
}

/** /socket/market-price: an option's price moved. */
export interface MarketPriceMessage {
  readonly marketId: string;
  readonly outcomeId: string;
  readonly optionId: string;
  readonly price: string;
  readonly chance: number;
  readonly timestamp: string;
}

/** /socket/user-info: the session user's USDT balance. */
export interface UserInfoMessage {
  readonly userId: string;
  readonly coinId: string;
  readonly symbol: string;
  readonly available: string;
  readonly frozen: string;
  readonly total: string;
  readonly timestamp: string;
}

/** /socket/user-positions: one position of the session user. */
export interface UserPositionMessage {
  readonly userId: string;
  readonly positionId: string;
  readonly marketId: string;
  readonly outcomeId: string;
  readonly optionId: string;
  readonly shares: string;
  readonly availableShares: string;
  readonly frozenShares: string;
  readonly avgPrice: string | null;
  readonly cost: string;
  readonly realizedPnl: string;
  readonly timestamp: string;
}

/** /socket/user-open-orders: one order of the session user, open or just finished. */
export interface UserOrderMessage {
  readonly orderId: string;
  readonly clientOrderId: string | null;
  readonly userId: string;
  readonly marketId: string;
  readonly outcomeId: string;
  readonly optionId: string;
  readonly side: ChannelOrderSide;
  readonly orderType: "LIMIT" | "MARKET";
  readonly timeInForce: "GTC" | "GTD" | "FOK" | "FAK";
  readonly status: "OPEN" | "PARTIALLY_FILLED" | "FILLED" | "CANCELLED" | "EXPIRED";
  readonly limitPrice: string | null;
  readonly shares: string | null;
  readonly amount: string | null;
  readonly filledShares: string;
  readonly avgPrice: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly expiresAt: string | null;
  readonly timestamp: string;
}

// ---------------------------------------------------------------- public /ws/market (Polymarket)

export interface PublicLevel {
  readonly price: string;
  readonly size: string;
}

export interface BookEvent {
  readonly event_type: "book";
  readonly asset_id: string;
  readonly market: string;
  readonly bids: PublicLevel[];
  readonly asks: PublicLevel[];
  readonly hash: string;
  readonly tick_size: string;
  readonly last_trade_price: string;
  readonly timestamp: string;
}

export interface PriceChangeEntry {
  readonly asset_id: string;
  readonly price: string;
  readonly size: string;
  readonly side: ChannelOrderSide;
  readonly hash: string;
  readonly best_bid: string;
  readonly best_ask: string;
}

export interface PriceChangeEvent {
  readonly event_type: "price_change";
  readonly market: string;
  readonly price_changes: PriceChangeEntry[];
  readonly timestamp: string;
}

export interface LastTradePriceEvent {
  readonly event_type: "last_trade_price";
  readonly asset_id: string;
  readonly market: string;
  readonly price: string;
  readonly side: ChannelOrderSide;
  readonly size: string;
  readonly fee_rate_bps: string;
  readonly transaction_hash: string;
  readonly timestamp: string;
}

export interface BestBidAskEvent {
  readonly event_type: "best_bid_ask";
  readonly asset_id: string;
  readonly market: string;
  readonly best_bid: string;
  readonly best_ask: string;
  readonly spread: string;
  readonly timestamp: string;
}

export interface TickSizeChangeEvent {
  readonly event_type: "tick_size_change";
  readonly asset_id: string;
  readonly market: string;
  readonly old_tick_size: string;
  readonly new_tick_size: string;
  readonly timestamp: string;
}

/** One binary outcome of a market that just opened for trading (Polymarket's "market" is one condition). */
export interface NewMarketEvent {
  readonly event_type: "new_market";
  readonly id: string;
  readonly market: string;
  readonly question: string;
  readonly assets_ids: string[];
  readonly outcomes: string[];
  readonly order_price_min_tick_size: string;
  readonly active: boolean;
  readonly timestamp: string;
}

export interface MarketResolvedEvent {
  readonly event_type: "market_resolved";
  readonly id: string;
  readonly market: string;
  readonly question: string;
  readonly assets_ids: string[];
  readonly outcomes: string[];
  readonly winning_asset_id: string;
  readonly winning_outcome: string;
  readonly timestamp: string;
}

/** Every event the public market channel sends (besides the text `PONG`). */
export type MarketChannelEvent =
  | BookEvent
  | PriceChangeEvent
  | LastTradePriceEvent
  | BestBidAskEvent
  | TickSizeChangeEvent
  | NewMarketEvent
  | MarketResolvedEvent;
