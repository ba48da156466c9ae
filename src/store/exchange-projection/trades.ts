// A fill of the order book: the maker order's fill, one trade row per side, each side's cash and fee
// as ledger entries (checked against the event's balance deltas), both positions by the core's own
// average-cost rules, a price point per option of the outcome, and the market's volume and fees.

import type { TradeExecutedEvent } from "../../core/events.js";
import { recordBuy, recordSell } from "../../core/wallet/positions.js";
import type { TradeRole } from "../exchange-read-models.js";
import { atomsPerOne, EventRows, type ProjectionReads, type TradeRow } from "./event-rows.js";

export function tradeRows(event: TradeExecutedEvent, reads: ProjectionReads): EventRows {
  const rows = new EventRows(reads);
  const time = event.atMs;
  rows.addOrderChange({
    orderId: event.makerOrderId,
    shares: event.shares,
    amount: event.makerNotional,
    fee: event.makerFee,
    status: event.makerStatus,
    atMs: time,
  });
  rows.addTrade(tradeSide(event, "MAKER"));
  rows.addTrade(tradeSide(event, "TAKER"));

  // The maker's cash: what its reserve no longer needs comes back, then the fill and the fee.
  const released = -event.makerFrozenDelta;
  if (released !== 0n)
    rows.addLedger(event.makerUserId, "UNFREEZE", released, -released, String(event.makerOrderId), time);
  const makerMoved = tradeAndFee(rows, event, "MAKER");
  if (released + makerMoved !== event.makerAvailableDelta) {
    throw new Error(`read models: trade ${event.tradeId} maker entries differ from its balance delta`);
  }
  const takerMoved = tradeAndFee(rows, event, "TAKER");
  if (takerMoved !== event.takerAvailableDelta) {
    throw new Error(`read models: trade ${event.tradeId} taker entries differ from its balance delta`);
  }

  fillPosition(rows, event, "MAKER");
  fillPosition(rows, event, "TAKER");

  // A price point for each option of the outcome: Yes at the trade's Yes price, No at 1 − it.
  const [yesId, noId] = reads.optionIdsOf(event.outcomeId);
  rows.addPricePoint([yesId, time, event.tradeId, event.marketId, event.outcomeId, event.yesPrice]);
  rows.addPricePoint([
    noId,
    time,
    event.tradeId,
    event.marketId,
    event.outcomeId,
    atomsPerOne - event.yesPrice,
  ]);
  // Volume is the USDT that changed hands: one notional in a transfer, both in a mint or merge.
  const volume = event.cross === "TRANSFER" ? event.makerNotional : event.makerNotional + event.takerNotional;
  rows.addMarketTotals(event.marketId, volume, event.makerFee + event.takerFee);
  return rows;
}

/** One side's cash for a fill, then its fee if any; returns what the two entries moved together. */
function tradeAndFee(rows: EventRows, event: TradeExecutedEvent, role: TradeRole): bigint {
  const maker = role === "MAKER";
  const userId = maker ? event.makerUserId : event.takerUserId;
  const notional = maker ? event.makerNotional : event.takerNotional;
  const fee = maker ? event.makerFee : event.takerFee;
  const tradeRef = String(event.tradeId);
  const cash = (maker ? event.makerSide : event.takerSide) === "BUY" ? -notional : notional;
  rows.addLedger(userId, "TRADE", cash, 0n, tradeRef, event.atMs);
  if (fee !== 0n) rows.addLedger(userId, "FEE", -fee, 0n, tradeRef, event.atMs);
  return cash - fee;
}

/** Moves one side's position by a fill; only the maker's (resting) sale takes frozen shares. */
function fillPosition(rows: EventRows, event: TradeExecutedEvent, role: TradeRole): void {
  const maker = role === "MAKER";
  const position = rows.movePosition(
    maker ? event.makerPositionId : event.takerPositionId,
    maker ? event.makerUserId : event.takerUserId,
    maker ? event.makerOptionId : event.takerOptionId,
    event.marketId,
    event.outcomeId,
  );
  const notional = maker ? event.makerNotional : event.takerNotional;
  const fee = maker ? event.makerFee : event.takerFee;
  if ((maker ? event.makerSide : event.takerSide) === "BUY") recordBuy(position, event.shares, notional, fee);
  else recordSell(position, event.shares, maker, notional, fee);
}

/** One side's exchange_trades row. */
function tradeSide(event: TradeExecutedEvent, role: TradeRole): TradeRow {
  const maker = role === "MAKER";
  return [
    event.tradeId,
    role,
    maker ? event.makerOrderId : event.takerOrderId,
    maker ? event.makerUserId : event.takerUserId,
    event.marketId,
    event.outcomeId,
    maker ? event.makerOptionId : event.takerOptionId,
    maker ? event.makerSide : event.takerSide,
    event.cross,
    maker ? event.makerPrice : event.takerPrice,
    event.shares,
    maker ? event.makerFee : event.takerFee,
    event.atMs,
  ];
}
