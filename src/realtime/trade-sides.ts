// Each user's side of a trade, as /socket/user-trades sends it: the same records the read models
// write for GET /trades (src/store/sqlite/projection/trades.ts and pool-projection.ts, and the
// PostgreSQL projector), built from the committed event, so the channel and the REST read agree on
// every field. Pure: events in, records out.

import type { TradeExecutedEvent } from "../core/events.js";
import type { PoolTradeExecutedEvent } from "../core/pools/events.js";
import type { TradeRecord } from "../store/exchange-read-models.js";

const atomsPerOne = 100_000_000n;

/** A book trade's two sides, maker first (two records for one user when both are theirs). */
export function bookTradeSides(event: TradeExecutedEvent): [TradeRecord, TradeRecord] {
  const common = {
    tradeId: event.tradeId,
    marketId: event.marketId,
    outcomeId: event.outcomeId,
    cross: event.cross,
    shares: event.shares,
    timeMs: event.atMs,
  };
  return [
    {
      ...common,
      orderId: event.makerOrderId,
      userId: event.makerUserId,
      optionId: event.makerOptionId,
      side: event.makerSide,
      role: "MAKER",
      price: event.makerPrice,
      fee: event.makerFee,
    },
    {
      ...common,
      orderId: event.takerOrderId,
      userId: event.takerUserId,
      optionId: event.takerOptionId,
      side: event.takerSide,
      role: "TAKER",
      price: event.takerPrice,
      fee: event.takerFee,
    },
  ];
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
