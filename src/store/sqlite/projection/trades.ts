// A fill of the order book: the maker order's fill, one trade row per side, each side's cash and fee
// as ledger entries (checked against the event's balance deltas), both positions, a price point per
// option of the outcome, and the market's volume and fee income (summed per batch).

import type { TradeExecutedEvent } from "../../../core/events.js";
import { recordBuy, recordSell } from "../../../core/wallet/positions.js";
import type { TradeRole } from "../../exchange-read-models.js";
import type { SqliteDatabase } from "../database.js";
import type { LedgerWriter } from "../lifecycle-projection.js";
import { type BatchInsert, createBatchInsert } from "./batch-insert.js";
import type { BatchMarketTotals } from "./market-totals.js";
import type { MarketProjection } from "./markets.js";
import type { OrderRows } from "./orders.js";
import type { BatchPositions } from "./positions.js";

const atomsPerOne = 100_000_000n;

/** What a trade moves besides its own rows: the other read models' writers. */
export interface TradeProjectionHelpers {
  readonly ledger: LedgerWriter;
  readonly orders: Pick<OrderRows, "fill">;
  readonly positions: Pick<BatchPositions, "loadPosition" | "savePosition">;
  readonly optionIdsOf: MarketProjection["optionIdsOf"];
  readonly marketTotals: BatchMarketTotals;
}

export interface TradeProjection {
  readonly onTrade: (event: TradeExecutedEvent) => void;
  /** The trade rows and price points of the batch, inserted many at a time at its end. */
  readonly rows: Pick<BatchInsert<unknown[]>, "flush" | "clear">;
}

export function createTradeProjection(db: SqliteDatabase, helpers: TradeProjectionHelpers): TradeProjection {
  const trades = createBatchInsert<unknown[]>(
    db,
    `INSERT INTO exchange_trades (trade_id, role, order_id, user_id, market_id, outcome_id, option_id, side,
       cross_type, price, shares, fee, time_ms)`,
    13,
  );
  const pricePoints = createBatchInsert<unknown[]>(
    db,
    "INSERT INTO exchange_price_points (option_id, time_ms, trade_id, market_id, outcome_id, price)",
    6,
  );
  const { ledger, optionIdsOf, marketTotals, orders } = helpers;
  const { loadPosition, savePosition } = helpers.positions;

  /** One side's cash for a fill, then its fee if any; returns what the two entries moved together. */
  const tradeAndFee = (event: TradeExecutedEvent, role: TradeRole): bigint => {
    const maker = role === "MAKER";
    const userId = maker ? event.makerUserId : event.takerUserId;
    const notional = maker ? event.makerNotional : event.takerNotional;
    const fee = maker ? event.makerFee : event.takerFee;
    const tradeRef = String(event.tradeId);
    const cash = (maker ? event.makerSide : event.takerSide) === "BUY" ? -notional : notional;
    ledger(userId, "TRADE", cash, 0n, tradeRef, event.atMs);
    if (fee !== 0n) ledger(userId, "FEE", -fee, 0n, tradeRef, event.atMs);
    return cash - fee;
  };

  /** Moves one side's position by a fill; only the maker's (resting) sale takes frozen shares. */
  const fillPosition = (event: TradeExecutedEvent, role: TradeRole): void => {
    const maker = role === "MAKER";
    const position = loadPosition(
      maker ? event.makerPositionId : event.takerPositionId,
      maker ? event.makerUserId : event.takerUserId,
      maker ? event.makerOptionId : event.takerOptionId,
      event.marketId,
      event.outcomeId,
    );
    const notional = maker ? event.makerNotional : event.takerNotional;
    const fee = maker ? event.makerFee : event.takerFee;
    if ((maker ? event.makerSide : event.takerSide) === "BUY")
      recordBuy(position, event.shares, notional, fee);
    else recordSell(position, event.shares, maker, notional, fee);
    savePosition(position);
  };

  const onTrade = (event: TradeExecutedEvent): void => {
    const time = event.atMs;
    orders.fill(event.makerOrderId, {
      shares: event.shares,
      amount: event.makerNotional,
      fee: event.makerFee,
      status: event.makerStatus,
      atMs: time,
    });
    trades.add(tradeSide(event, "MAKER"));
    trades.add(tradeSide(event, "TAKER"));

    // The maker's cash: what its reserve no longer needs comes back, then the fill and the fee.
    const released = -event.makerFrozenDelta;
    if (released !== 0n)
      ledger(event.makerUserId, "UNFREEZE", released, -released, String(event.makerOrderId), time);
    const makerMoved = tradeAndFee(event, "MAKER");
    if (released + makerMoved !== event.makerAvailableDelta) {
      throw new Error(`read models: trade ${event.tradeId} maker entries differ from its balance delta`);
    }
    const takerMoved = tradeAndFee(event, "TAKER");
    if (takerMoved !== event.takerAvailableDelta) {
      throw new Error(`read models: trade ${event.tradeId} taker entries differ from its balance delta`);
    }

    // Positions, by the core's own average-cost rules.
    fillPosition(event, "MAKER");
    fillPosition(event, "TAKER");

    // A price point for each option of the outcome: Yes at the trade's Yes price, No at 1 − it.
    const [yesId, noId] = optionIdsOf(event.outcomeId);
    pricePoints.add([yesId, time, event.tradeId, event.marketId, event.outcomeId, event.yesPrice]);
    pricePoints.add([
      noId,
      time,
      event.tradeId,
      event.marketId,
      event.outcomeId,
      atomsPerOne - event.yesPrice,
    ]);
    // Volume is the USDT that changed hands: one notional in a transfer, both in a mint or merge.
    const volume =
      event.cross === "TRANSFER" ? event.makerNotional : event.makerNotional + event.takerNotional;
    marketTotals.add(event.marketId, volume, event.makerFee + event.takerFee);
  };
  return {
    onTrade,
    rows: {
      flush() {
        trades.flush();
        pricePoints.flush();
      },
      clear() {
        trades.clear();
        pricePoints.clear();
      },
    },
  };
}

/** One side's exchange_trades row, in the insert's column order. */
function tradeSide(event: TradeExecutedEvent, role: TradeRole): unknown[] {
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
