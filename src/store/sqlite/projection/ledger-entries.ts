// The USDT ledger: every movement of a user's balance is one exchange_ledger row carrying the
// balance after it (src/store/exchange-projection/ computes them from the step's running balances,
// balances.ts, which each row moves). The rows are inserted many at a time when the step ends
// (flush: batch-insert.ts), in the order written, so their entry ids are the same as row-by-row
// inserts would give.

import type { LedgerRow } from "../../exchange-projection/event-rows.js";
import type { SqliteDatabase } from "../database.js";
import type { BatchBalances } from "./balances.js";
import { type BatchInsert, createBatchInsert } from "./batch-insert.js";

export interface BatchLedger {
  /** A row computed by an event's function: the running balance becomes its balance after. */
  readonly apply: (row: LedgerRow) => void;
  readonly rows: Pick<BatchInsert<LedgerRow>, "flush" | "clear">;
}

export function createLedgerWriter(db: SqliteDatabase, balanceOf: BatchBalances["balanceOf"]): BatchLedger {
  const rows = createBatchInsert<LedgerRow>(
    db,
    "INSERT INTO exchange_ledger (user_id, type, amount, frozen_delta, available_after, frozen_after, ref_id, time_ms)",
    8,
  );
  const apply = (row: LedgerRow): void => {
    const balance = balanceOf(row[0]);
    balance.available = row[4];
    balance.frozen = row[5];
    rows.add(row);
  };
  return { apply, rows };
}
