// A market's volume and fee income only ever grow by sums, and nothing in a batch reads them, so its
// trades' amounts are added up in memory and written once per market at the batch's end (flush).

import type { SqliteDatabase } from "../database.js";

export interface BatchMarketTotals {
  /** Adds one trade's volume and fees (atoms) to its market's sums for this batch. */
  readonly add: (marketId: number, volume: bigint, fees: bigint) => void;
  /** Adds every market's sums to its row, once per market. */
  readonly flush: () => void;
  /** Forgets the batch (after its commit or its rollback). */
  readonly clear: () => void;
}

export function createBatchMarketTotals(db: SqliteDatabase): BatchMarketTotals {
  const addMarketTrade = db.prepare(
    "UPDATE markets SET volume = volume + ?, fee_income = fee_income + ? WHERE market_id = ?",
  );
  const marketTotals = new Map<number, { volume: bigint; fees: bigint }>();

  const add = (marketId: number, volume: bigint, fees: bigint): void => {
    const totals = marketTotals.get(marketId);
    if (totals === undefined) marketTotals.set(marketId, { volume, fees });
    else {
      totals.volume += volume;
      totals.fees += fees;
    }
  };
  const flush = (): void => {
    for (const [marketId, totals] of marketTotals) {
      addMarketTrade.run(totals.volume, totals.fees, marketId);
    }
  };
  const clear = (): void => marketTotals.clear();
  return { add, flush, clear };
}
