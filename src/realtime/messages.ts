// The wire shapes of every realtime message, built in one place (docs/realtime.md documents them).
// Signed channels follow the current interface: ids as strings, decimals as strings, business
// times ISO 8601 UTC at second precision. The public /ws/market follows Polymarket's market
// channel: snake_case fields, `event_type`, `timestamp` in milliseconds as a string, and `market`
// the outcome's condition id, as GET /book and /markets name it.

import type {
  BestBidAskEvent,
  BookEvent,
  ClobPriceUpdate,
  LastTradePriceEvent,
  MarketPriceMessage,
  MarketResolvedEvent,
  NewMarketEvent,
  PriceChangeEntry,
  PriceChangeEvent,
  PublicLevel,
  TickSizeChangeEvent,
  UserBalance,
  UserChannelStamp,
  UserInfoMessage,
  UserOpenOrdersSnapshot,
  UserOrder,
  UserPosition,
  UserPositionsSnapshot,
  UserTradeMessage,
} from "../contract/channels.js";
import { isoSeconds } from "../contract/wire-format.js";

export type { ClobPriceUpdate, PriceChangeEntry, PublicLevel };

import type { OrderSide } from "../core/book/orders.js";
import { formatAtoms } from "../core/money.js";
import type { BalanceView, PositionView } from "../core/queries.js";
import { lotsToShares, priceUnitsToAtoms } from "../core/units.js";
import type { OrderRecord, TradeRecord } from "../store/exchange-read-models.js";
import type { LevelChange } from "./book-tracker.js";
import { isBidInTerms, priceUnitsInTerms } from "./option-view.js";

/** Serialized once per event and shared by every subscriber (text frames). */
export function encode(message: object): Buffer {
  return Buffer.from(JSON.stringify(message), "utf8");
}

export const decimal = (atoms: bigint): string => formatAtoms(atoms);
export const decimalOrNull = (atoms: bigint | null): string | null =>
  atoms === null ? null : formatAtoms(atoms);

/** A Yes-book level seen from one option (option-view.ts: Yes as kept, No mirrored). */
export function levelInTerms(
  change: LevelChange,
  optionIndex: 0 | 1,
): { side: OrderSide; price: string; size: string } {
  return {
    side: isBidInTerms(change.side, optionIndex) ? "BUY" : "SELL",
    price: decimal(priceUnitsToAtoms(priceUnitsInTerms(change.priceUnits, optionIndex))),
    size: decimal(lotsToShares(change.lots)),
  };
}

// ---------------------------------------------------------------- signed channels

export function clobPriceUpdate(fields: {
  marketId: number;
  outcomeId: number;
  assetId: string;
  seq: bigint;
  prevSeq: bigint;
  change: LevelChange;
  optionIndex: 0 | 1;
  timeMs: number;
}): ClobPriceUpdate {
  const level = levelInTerms(fields.change, fields.optionIndex);
  return {
    marketId: String(fields.marketId),
    outcomeId: String(fields.outcomeId),
    assetId: fields.assetId,
    seq: Number(fields.seq),
    prevSeq: Number(fields.prevSeq),
    side: level.side,
    price: level.price,
    size: level.size,
    timestamp: isoSeconds(fields.timeMs),
  };
}

/** /socket/market-price: an option's price moved. */
export function marketPrice(fields: {
  marketId: number;
  outcomeId: number;
  optionId: number;
  priceAtoms: number;
  chance: number;
  timeMs: number;
}): MarketPriceMessage {
  return {
    marketId: String(fields.marketId),
    outcomeId: String(fields.outcomeId),
    optionId: String(fields.optionId),
    price: decimal(BigInt(fields.priceAtoms)),
    chance: fields.chance,
    timestamp: isoSeconds(fields.timeMs),
  };
}

/** The session user's USDT balance (/socket/user-info). */
export function userBalance(userId: number, balance: BalanceView, timeMs: number): UserBalance {
  return {
    userId: String(userId),
    coinId: "2",
    symbol: "USDT",
    available: decimal(balance.available),
    frozen: decimal(balance.frozen),
    total: decimal(balance.total),
    timestamp: isoSeconds(timeMs),
  };
}

/** /socket/user-info: the balance is the whole state, so a snapshot has a change's shape. */
export function userInfo(balance: UserBalance, seq: bigint, snapshot: boolean): UserInfoMessage {
  return { ...balance, seq: Number(seq), snapshot };
}

/** One changed entity of /socket/user-positions or /socket/user-open-orders. */
export function userChange<Entity extends object>(
  entity: Entity,
  seq: bigint,
): Entity & UserChannelStamp & { readonly snapshot: false } {
  return { ...entity, seq: Number(seq), snapshot: false };
}

/**
 * Entities one snapshot part holds at most: 500 orders or positions are about 250 KB, well under
 * wsBufferedBytesMax (1 MiB), and the parts go out one after another as the socket takes them.
 */
export const userSnapshotPartEntitiesMax = 500;

/** A list in parts of at most userSnapshotPartEntitiesMax; an empty list is one empty part. */
function snapshotParts<Entity>(entities: readonly Entity[]): Entity[][] {
  const parts: Entity[][] = [];
  for (let start = 0; start < entities.length; start += userSnapshotPartEntitiesMax)
    parts.push(entities.slice(start, start + userSnapshotPartEntitiesMax));
  return parts.length === 0 ? [[]] : parts;
}

/** /socket/user-positions: the snapshot, in parts. */
export function userPositionsSnapshot(
  fields: { userId: number; marketId: number | null; seq: bigint; timeMs: number },
  positions: readonly UserPosition[],
): UserPositionsSnapshot[] {
  const parts = snapshotParts(positions);
  return parts.map((entities, index) => ({
    snapshot: true,
    seq: Number(fields.seq),
    part: index + 1,
    parts: parts.length,
    userId: String(fields.userId),
    marketId: fields.marketId === null ? null : String(fields.marketId),
    positions: entities,
    timestamp: isoSeconds(fields.timeMs),
  }));
}

/** /socket/user-open-orders: the snapshot, in parts. */
export function userOpenOrdersSnapshot(
  fields: { userId: number; seq: bigint; timeMs: number },
  orders: readonly UserOrder[],
): UserOpenOrdersSnapshot[] {
  const parts = snapshotParts(orders);
  return parts.map((entities, index) => ({
    snapshot: true,
    seq: Number(fields.seq),
    part: index + 1,
    parts: parts.length,
    userId: String(fields.userId),
    orders: entities,
    timestamp: isoSeconds(fields.timeMs),
  }));
}

/** One position of the session user (/socket/user-positions). */
export function userPosition(position: PositionView, timeMs: number): UserPosition {
  return {
    userId: String(position.userId),
    positionId: String(position.positionId),
    marketId: String(position.marketId),
    outcomeId: String(position.outcomeId),
    optionId: String(position.optionId),
    shares: decimal(position.shares),
    availableShares: decimal(position.availableShares),
    frozenShares: decimal(position.frozenShares),
    avgPrice: decimalOrNull(position.avgPrice),
    cost: decimal(position.cost),
    realizedPnl: decimal(position.realizedPnl),
    timestamp: isoSeconds(timeMs),
  };
}

const atomsPerShare = 100_000_000n;

/** One order of the session user, open or just finished (/socket/user-open-orders). */
export function userOrder(order: OrderRecord, timeMs: number): UserOrder {
  return {
    orderId: String(order.orderId),
    clientOrderId: order.clientOrderId,
    userId: String(order.userId),
    marketId: String(order.marketId),
    outcomeId: String(order.outcomeId),
    optionId: String(order.optionId),
    side: order.side,
    orderType: order.orderType,
    timeInForce: order.timeInForce,
    status: order.status,
    limitPrice: decimalOrNull(order.limitPrice),
    shares: decimalOrNull(order.shares),
    amount: decimalOrNull(order.amount),
    filledShares: decimal(order.filledShares),
    avgPrice:
      order.filledShares === 0n ? null : decimal((order.filledAmount * atomsPerShare) / order.filledShares),
    createdAt: isoSeconds(order.createdAtMs),
    updatedAt: isoSeconds(order.updatedAtMs),
    expiresAt: order.expiresAtMs === null ? null : isoSeconds(order.expiresAtMs),
    timestamp: isoSeconds(timeMs),
  };
}

/** One side of one of the session user's trades (/socket/user-trades); `seq` is its command's. */
export function userTrade(trade: TradeRecord, clientOrderId: string | null, seq: bigint): UserTradeMessage {
  return {
    tradeId: String(trade.tradeId),
    orderId: String(trade.orderId),
    clientOrderId,
    marketId: String(trade.marketId),
    outcomeId: String(trade.outcomeId),
    optionId: String(trade.optionId),
    side: trade.side,
    price: decimal(trade.price),
    shares: decimal(trade.shares),
    fee: decimal(trade.fee),
    role: trade.role,
    time: isoSeconds(trade.timeMs),
    seq: Number(seq),
  };
}

// ---------------------------------------------------------------- public /ws/market (Polymarket)

export function bookEvent(fields: {
  assetId: string;
  conditionId: string;
  bids: PublicLevel[];
  asks: PublicLevel[];
  hash: string;
  tickSize: string;
  lastTradePrice: string;
  timeMs: number;
}): BookEvent {
  return {
    event_type: "book",
    asset_id: fields.assetId,
    market: fields.conditionId,
    bids: fields.bids,
    asks: fields.asks,
    hash: fields.hash,
    tick_size: fields.tickSize,
    last_trade_price: fields.lastTradePrice,
    timestamp: String(fields.timeMs),
  };
}

export function priceChangeEvent(
  conditionId: string,
  changes: PriceChangeEntry[],
  timeMs: number,
): PriceChangeEvent {
  return {
    event_type: "price_change",
    market: conditionId,
    price_changes: changes,
    timestamp: String(timeMs),
  };
}

export function lastTradePriceEvent(fields: {
  assetId: string;
  conditionId: string;
  price: string;
  side: OrderSide;
  size: string;
  feeRateBps: number;
  tradeId: number;
  timeMs: number;
}): LastTradePriceEvent {
  return {
    event_type: "last_trade_price",
    asset_id: fields.assetId,
    market: fields.conditionId,
    price: fields.price,
    side: fields.side,
    size: fields.size,
    fee_rate_bps: String(fields.feeRateBps),
    transaction_hash: String(fields.tradeId),
    timestamp: String(fields.timeMs),
  };
}

export function bestBidAskEvent(fields: {
  assetId: string;
  conditionId: string;
  bestBid: string;
  bestAsk: string;
  spread: string;
  timeMs: number;
}): BestBidAskEvent {
  return {
    event_type: "best_bid_ask",
    asset_id: fields.assetId,
    market: fields.conditionId,
    best_bid: fields.bestBid,
    best_ask: fields.bestAsk,
    spread: fields.spread,
    timestamp: String(fields.timeMs),
  };
}

export function tickSizeChangeEvent(fields: {
  assetId: string;
  conditionId: string;
  oldTickSize: string;
  newTickSize: string;
  timeMs: number;
}): TickSizeChangeEvent {
  return {
    event_type: "tick_size_change",
    asset_id: fields.assetId,
    market: fields.conditionId,
    old_tick_size: fields.oldTickSize,
    new_tick_size: fields.newTickSize,
    timestamp: String(fields.timeMs),
  };
}

export interface PublicOutcome {
  readonly outcomeId: number;
  /** The outcome's condition id (condition-ids.ts): Polymarket's `market` is one binary condition. */
  readonly conditionId: string;
  readonly question: string;
  readonly assetIds: readonly [string, string];
  readonly optionTitles: readonly [string, string];
}

/** One binary outcome of a market that just opened for trading (Polymarket's "market" is one condition). */
export function newMarketEvent(
  outcome: PublicOutcome,
  fields: { tickSize: string; timeMs: number },
): NewMarketEvent {
  return {
    event_type: "new_market",
    id: String(outcome.outcomeId),
    market: outcome.conditionId,
    question: outcome.question,
    assets_ids: [...outcome.assetIds],
    outcomes: [...outcome.optionTitles],
    order_price_min_tick_size: fields.tickSize,
    active: true,
    timestamp: String(fields.timeMs),
  };
}

export function marketResolvedEvent(
  outcome: PublicOutcome,
  winningIndex: 0 | 1,
  timeMs: number,
): MarketResolvedEvent {
  return {
    event_type: "market_resolved",
    id: String(outcome.outcomeId),
    market: outcome.conditionId,
    question: outcome.question,
    assets_ids: [...outcome.assetIds],
    outcomes: [...outcome.optionTitles],
    winning_asset_id: outcome.assetIds[winningIndex],
    winning_outcome: outcome.optionTitles[winningIndex],
    timestamp: String(timeMs),
  };
}
