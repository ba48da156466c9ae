// The SQLite side of the shared projection (src/store/exchange-projection/): the step's buffers
// behind one ProjectionReads (running balances and positions, kept across steps) and one RowWriter
// (rows buffered per table, written at the step's end by 16-row statements).

import type { ProjectionReads, RowWriter } from "../../exchange-projection/event-rows.js";
import type { SqliteDatabase } from "../database.js";
import { type BatchBalances, createBatchBalances } from "./balances.js";
import { createDepositWriter } from "./deposits.js";
import { createLedgerWriter } from "./ledger-entries.js";
import { createBatchMarketTotals } from "./market-totals.js";
import { createOrderRows } from "./orders.js";
import { type BatchPositions, createBatchPositions } from "./positions.js";
import { createTradeRowsWriter } from "./trades.js";

export interface StepRows {
  readonly reads: ProjectionReads;
  readonly writer: RowWriter;
  readonly balances: BatchBalances;
  readonly positions: BatchPositions;
  /** Writes every buffered row (balances, positions, orders, ledger, trades, totals), in that order. */
  readonly flush: () => void;
  /** Forgets the step's buffers (after its commit or its rollback). */
  readonly clear: () => void;
}

export function createStepRows(db: SqliteDatabase, optionIdsOf: ProjectionReads["optionIdsOf"]): StepRows {
  // Balances, positions, the orders placed and market totals are kept in memory through a step and
  // written at its end (flush), in its transaction.
  const balances = createBatchBalances(db);
  const marketTotals = createBatchMarketTotals(db);
  const ledger = createLedgerWriter(db, balances.balanceOf);
  const positions = createBatchPositions(db);
  const orders = createOrderRows(db);
  const trades = createTradeRowsWriter(db);
  const reads: ProjectionReads = {
    balanceOf: balances.balanceOf,
    position: positions.loadPosition,
    positionOf: positions.positionOf,
    optionIdsOf,
  };
  const writer: RowWriter = {
    ledger: ledger.apply,
    position: positions.savePosition,
    trade: trades.trade,
    pricePoint: trades.pricePoint,
    orderPlaced: orders.place,
    orderAmend: orders.amend,
    orderChange: (change) => orders.fill(change.orderId, change),
    marketTotals: ([marketId, volume, fees]) => marketTotals.add(marketId, volume, fees),
    deposit: createDepositWriter(db),
  };
  const buffers = [balances, positions, orders, ledger.rows, trades.rows, marketTotals];
  return {
    reads,
    writer,
    balances,
    positions,
    flush: () => {
      for (const buffer of buffers) buffer.flush();
    },
    clear: () => {
      for (const buffer of buffers) buffer.clear();
    },
  };
}
