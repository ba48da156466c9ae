// The balances a batch moves, read on first use and written back once per user at the batch's end
// (flush), in the same transaction: an order moves its user's balance three or four times (freeze,
// trade, fee, unfreeze), and an upsert for each was a sixth of the projection. Only the exchange
// projector writes exchange_balances, and the sums never outlive their batch (clear). What a batch
// wrote is kept for the next ones (kept-rows.ts): a user active in every step is read once.

import type { SqliteDatabase } from "../database.js";
import { prepareBig } from "../exchange-rows.js";
import { createBatchInsert } from "./batch-insert.js";
import { KeptRows, keptRowsMax } from "./kept-rows.js";

/** A user's USDT in atoms, as the batch has moved it so far. */
export interface BalanceSum {
  available: bigint;
  frozen: bigint;
}

export interface BatchBalances {
  /** The user's balance in this batch: the stored row on first use, then the running sum. */
  readonly balanceOf: (userId: number) => BalanceSum;
  /** Writes every balance the batch moved, once per user. */
  readonly flush: () => void;
  /** Forgets the batch (after its commit or its rollback). */
  readonly clear: () => void;
  /** Forgets the balances kept from earlier batches too (a batch failed: they may not be stored). */
  readonly forgetKept: () => void;
}

export function createBatchBalances(db: SqliteDatabase): BatchBalances {
  const selectBalance = prepareBig<[number], { available: bigint; frozen: bigint }>(
    db,
    "SELECT available, frozen FROM exchange_balances WHERE user_id = ?",
  );
  // Many users to a statement (batch-insert.ts): a step writes most active users' balances.
  const saveBalances = createBatchInsert<[number, bigint, bigint]>(
    db,
    "INSERT INTO exchange_balances (user_id, available, frozen)",
    3,
    "ON CONFLICT (user_id) DO UPDATE SET available = excluded.available, frozen = excluded.frozen",
  );
  const balances = new Map<number, BalanceSum>();
  /** As the earlier batches wrote them. */
  const kept = new KeptRows<number, BalanceSum>(keptRowsMax);

  const balanceOf = (userId: number): BalanceSum => {
    let balance = balances.get(userId);
    if (balance === undefined) {
      const row = kept.get(userId) ?? selectBalance.get(userId);
      balance = { available: row?.available ?? 0n, frozen: row?.frozen ?? 0n };
      balances.set(userId, balance);
    }
    return balance;
  };
  const flush = (): void => {
    for (const [userId, balance] of balances) {
      saveBalances.add([userId, balance.available, balance.frozen]);
      kept.set(userId, { available: balance.available, frozen: balance.frozen });
    }
    saveBalances.flush();
  };
  const clear = (): void => {
    balances.clear();
    saveBalances.clear();
  };
  return { balanceOf, flush, clear, forgetKept: () => kept.clear() };
}
