// The trade rows and price points of a step (src/store/exchange-projection/trades.ts computes
// them), inserted many at a time at its end (batch-insert.ts).

import type { PricePointRow, TradeRow } from "../../exchange-projection/event-rows.js";
import type { SqliteDatabase } from "../database.js";
import { type BatchInsert, createBatchInsert } from "./batch-insert.js";

export interface TradeRowsWriter {
  readonly trade: (row: TradeRow) => void;
  readonly pricePoint: (row: PricePointRow) => void;
  readonly rows: Pick<BatchInsert<unknown[]>, "flush" | "clear">;
}

export function createTradeRowsWriter(db: SqliteDatabase): TradeRowsWriter {
  const trades = createBatchInsert<TradeRow>(
    db,
    `INSERT INTO exchange_trades (trade_id, role, order_id, user_id, market_id, outcome_id, option_id, side,
       cross_type, price, shares, fee, time_ms)`,
    13,
  );
  const pricePoints = createBatchInsert<PricePointRow>(
    db,
    "INSERT INTO exchange_price_points (option_id, time_ms, trade_id, market_id, outcome_id, price)",
    6,
  );
  return {
    trade: trades.add,
    pricePoint: pricePoints.add,
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
