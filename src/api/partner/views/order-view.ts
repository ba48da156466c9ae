// Orders and trades as the current interface shows them (DESIGN §8), from read-model records or,
// for an order just placed, from the events of its own command (no read needed on the hot path).

import type { Order, Trade } from "../../../contract/partner/trading.js";
import { isoSeconds } from "../../../contract/wire-format.js";
import type { ExchangeEvent, OrderPlacedEvent } from "../../../core/events.js";
import { formatAtoms } from "../../../core/money.js";
import type { OrderRecord, TradeRecord } from "../../../store/exchange-read-models.js";

const atomsPerShare = 100_000_000n;

function decimalOrNull(atoms: bigint | null): string | null {
  return atoms === null ? null : formatAtoms(atoms);
}

export function tradeView(trade: TradeRecord): Trade {
  return {
    tradeId: String(trade.tradeId),
    orderId: String(trade.orderId),
    marketId: String(trade.marketId),
    outcomeId: String(trade.outcomeId),
    optionId: String(trade.optionId),
    side: trade.side,
    price: formatAtoms(trade.price),
    shares: formatAtoms(trade.shares),
    fee: formatAtoms(trade.fee),
    role: trade.role,
    time: isoSeconds(trade.timeMs),
  };
}

export function orderView(order: OrderRecord, trades: readonly TradeRecord[]): Order {
  return {
    orderId: String(order.orderId),
    clientOrderId: order.clientOrderId,
    marketId: String(order.marketId),
    outcomeId: String(order.outcomeId),
    optionId: String(order.optionId),
    status: order.status,
    side: order.side,
    orderType: order.orderType,
    timeInForce: order.timeInForce,
    limitPrice: decimalOrNull(order.limitPrice),
    shares: decimalOrNull(order.shares),
    amount: decimalOrNull(order.amount),
    filledShares: formatAtoms(order.filledShares),
    // The cash of the fills over their shares, rounded down to the atom (DESIGN §2).
    avgPrice:
      order.filledShares === 0n
        ? null
        : formatAtoms((order.filledAmount * atomsPerShare) / order.filledShares),
    fee: formatAtoms(order.feePaid),
    expiresAt: order.expiresAtMs === null ? null : isoSeconds(order.expiresAtMs),
    createdAt: isoSeconds(order.createdAtMs),
    trades: trades.map(tradeView),
  };
}

/** The order a PlaceOrder command created, and its own side of each fill, from the command's events. */
export function placedOrder(events: readonly ExchangeEvent[]): { order: OrderRecord; trades: TradeRecord[] } {
  const placed = events[0] as OrderPlacedEvent;
  if (placed?.type !== "OrderPlaced") throw new Error("a placed order's first event is OrderPlaced");
  const trades: TradeRecord[] = [];
  for (const event of events) {
    // An AMM or parimutuel fill: the pool is the counterparty, the price the fill's average.
    if (event.type === "PoolTradeExecuted" && event.orderId === placed.orderId) {
      trades.push({
        tradeId: event.tradeId,
        orderId: placed.orderId,
        userId: placed.userId,
        marketId: event.marketId,
        outcomeId: event.outcomeId,
        optionId: event.optionId,
        side: event.side,
        role: "TAKER",
        cross: "TRANSFER",
        price: (event.amount * atomsPerShare) / event.shares,
        shares: event.shares,
        fee: event.fee,
        timeMs: event.atMs,
      });
      continue;
    }
    if (event.type !== "TradeExecuted" || event.takerOrderId !== placed.orderId) continue;
    trades.push({
      tradeId: event.tradeId,
      orderId: placed.orderId,
      userId: placed.userId,
      marketId: event.marketId,
      outcomeId: event.outcomeId,
      optionId: event.takerOptionId,
      side: event.takerSide,
      role: "TAKER",
      cross: event.cross,
      price: event.takerPrice,
      shares: event.shares,
      fee: event.takerFee,
      timeMs: event.atMs,
    });
  }
  const order: OrderRecord = {
    orderId: placed.orderId,
    userId: placed.userId,
    marketId: placed.marketId,
    outcomeId: placed.outcomeId,
    optionId: placed.optionId,
    side: placed.side,
    orderType: placed.orderType,
    timeInForce: placed.timeInForce,
    limitPrice: placed.limitPrice,
    shares: placed.shares,
    amount: placed.amount,
    filledShares: placed.filledShares,
    filledAmount: placed.filledAmount,
    feePaid: placed.feePaid,
    status: placed.status,
    clientOrderId: placed.clientOrderId,
    expiresAtMs: placed.expiresAtMs,
    createdAtMs: placed.createdAtMs,
    updatedAtMs: placed.createdAtMs,
  };
  return { order, trades };
}
