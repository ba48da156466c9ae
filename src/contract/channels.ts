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

// The three user channels (docs/realtime.md "User channels: snapshot and seq"). Each message
// carries `seq`, the journal sequence of the state it shows, and `snapshot`. On every (re)connect
// the first message is a snapshot: the whole state at `seq`, which replaces a client's view; then
// come changes, one entity each, whose `seq` never goes backwards on one connection.

/** What every message of the three user channels carries besides its data. */
export interface UserChannelStamp {
  /** The journal sequence of the state shown (as `seq` of GET /orderbook/book and the book deltas). */
  readonly seq: number;
  /** true: the whole state at `seq`, replacing the client's view; false: one entity's change. */
  readonly snapshot: boolean;
}

/** The session user's USDT balance. */
export interface UserBalance {
  readonly userId: string;
  readonly coinId: string;
  readonly symbol: string;
  readonly available: string;
  readonly frozen: string;
  readonly total: string;
  readonly timestamp: string;
}

/**
 * /socket/user-info: the balance is the channel's whole state, so its snapshot (the first message
 * of a connection) has the same shape as a change, with `snapshot: true`.
 */
export interface UserInfoMessage extends UserBalance, UserChannelStamp {}

/** One position of the session user. */
export interface UserPosition {
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

/** /socket/user-positions: one position that changed. */
export interface UserPositionMessage extends UserPosition, UserChannelStamp {
  readonly snapshot: false;
}

/**
 * The parts a snapshot of a list comes in: `part` 1 to `parts`, all with the same `seq`, sent one
 * after the other before any change; the view is replaced once the last part is in.
 */
export interface UserSnapshotPart {
  readonly snapshot: true;
  readonly seq: number;
  readonly part: number;
  readonly parts: number;
  readonly userId: string;
  readonly timestamp: string;
}

/** /socket/user-positions: every position of the session user (in `marketId` when subscribed so). */
export interface UserPositionsSnapshot extends UserSnapshotPart {
  readonly marketId: string | null;
  readonly positions: UserPosition[];
}

export type UserPositionsChannelMessage = UserPositionMessage | UserPositionsSnapshot;

/** One order of the session user, open or just finished. */
export interface UserOrder {
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

/** /socket/user-open-orders: one order that changed, including its last change (FILLED, …). */
export interface UserOrderMessage extends UserOrder, UserChannelStamp {
  readonly snapshot: false;
}

/** /socket/user-open-orders: every open order of the session user. */
export interface UserOpenOrdersSnapshot extends UserSnapshotPart {
  readonly orders: UserOrder[];
}

export type UserOpenOrdersChannelMessage = UserOrderMessage | UserOpenOrdersSnapshot;

/**
 * /socket/user-trades: one side of one trade of the session user, as it happens (DESIGN §9). A
 * stream, not a state: no snapshot, no `snapshot` field. `seq` is the journal sequence of the
 * command that made the trade (the trades of one command share it), so a balance or position
 * message with a `seq` at least this one already shows the trade. A self-cross or both sides of a
 * mint or merge of one user come as two messages, one per `role`.
 */
export interface UserTradeMessage {
  readonly tradeId: string;
  readonly orderId: string;
  readonly clientOrderId: string | null;
  readonly marketId: string;
  readonly outcomeId: string;
  readonly optionId: string;
  readonly side: ChannelOrderSide;
  /** In this side's option terms; an AMM or parimutuel fill's average price. */
  readonly price: string;
  readonly shares: string;
  /** The fee this side paid, USDT. */
  readonly fee: string;
  /** MAKER: the resting order; TAKER: the incoming one (always TAKER against an AMM or a pool). */
  readonly role: "MAKER" | "TAKER";
  readonly time: string;
  readonly seq: number;
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
