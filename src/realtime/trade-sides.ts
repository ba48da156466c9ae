// Each user's side of a trade, as /socket/user-trades sends it: the same records the read models
// write for GET /trades (src/store/sqlite/projection/trades.ts and pool-projection.ts, and the
// PostgreSQL projector), built from the committed event, so the channel and the REST read agree on
// every field. Pure: events in, records out.

import type { TradeExecutedEvent } from "../core/events.js";
import type { PoolTradeExecutedEvent } from "../core/pools/events.js";
import type { TradeRecord } from "../store/exchange-read-models.js";

const atomsPerOne = 100_000_000n;

/**
 * One side of a book trade. Written out field by field, not as a spread of the fields both sides
 * share: V8 builds an object literal with a spread through a slow generic copy, and this runs for
 * every trade of every followed user (the CPU profile of bench:orders gave the spread version 2% of
 * the server's main thread, docs/performance.md "#31: the realtime fan-out").
 */
export function bookTradeSide(event: TradeExecutedEvent, role: "MAKER" | "TAKER"): TradeRecord {
  return role === "MAKER"
    ? {
        tradeId: event.tradeId,
        orderId: event.makerOrderId,
        userId: event.makerUserId,
        marketId: event.marketId,
        outcomeId: event.outcomeId,
        optionId: event.makerOptionId,
        side: event.makerSide,
        role,
        cross: event.cross,
        price: event.makerPrice,
        shares: event.shares,
        fee: event.makerFee,
        timeMs: event.atMs,
      }
    : {
        tradeId: event.tradeId,
        orderId: event.takerOrderId,
        userId: event.takerUserId,
        marketId: event.marketId,
        outcomeId: event.outcomeId,
        optionId: event.takerOptionId,
        side: event.takerSide,
        role,
        cross: event.cross,
        price: event.takerPrice,
        shares: event.shares,
        fee: event.takerFee,
        timeMs: event.atMs,
      };
}

/** An AMM or parimutuel fill: the pool is the counterparty, the user the taker, at the average price. */
export function poolTradeSide(event: PoolTradeExecutedEvent): TradeRecord {
  return {
    tradeId: event.tradeId,
    orderId: event.orderId,
    userId: event.userId,
    marketId: event.marketId,
    outcomeId: event.outcomeId,
    optionId: event.optionId,
    side: event.side,
    role: "TAKER",
    cross: "TRANSFER",
    price: (event.amount * atomsPerOne) / event.shares,
    shares: event.shares,
    fee: event.fee,
    timeMs: event.atMs,
  };
}
