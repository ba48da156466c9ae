// bench:orders' order stream recorded as a real engine journals it (test/support/recorded-journal.ts),
// for the in-process benches that replay a journal into stores (bench/order-storage.ts,
// bench/projection-costs.ts): 128 funded users, 64 in flight, each alternating signed-size BUY
// orders of Yes and No at 0.49 / 0.50 / 0.51, so every other order trades.

import { limitOrderCommand } from "../../src/core/exchange.js";
import { defaultDeferredProjectionLimits } from "../../src/engine/deferred-projection.js";
import {
  createOpenMarket,
  type Entry,
  openJournalRecorder,
  submitBounded,
} from "../../test/support/recorded-journal.js";

/** The users the journal's orders come from: ids 1 … ordersJournalUsers, each funded by a deposit. */
export const ordersJournalUsers = 128;
const inFlight = 64;
const unit = 100_000_000n;
const cent = 1_000_000n;

/** The journal of `orders` orders, as the engine batched it (at most `batchCommandsMax` a batch). */
export async function recordOrdersJournal(orders: number, batchCommandsMax: number): Promise<Entry[][]> {
  const recorder = await openJournalRecorder({
    journalBatchCommandsMax: batchCommandsMax,
    snapshotEveryCommands: 10_000_000,
  });
  const { engine } = recorder;
  const market = await createOpenMarket(engine, "Bench");
  await Promise.all(
    Array.from({ length: ordersJournalUsers }, (_, index) =>
      engine.submit({ type: "Deposit", userId: index + 1, amount: 10_000_000n * unit, txHash: `0x${index}` }),
    ),
  );
  const prices = [49n, 50n, 51n];
  await submitBounded(orders, inFlight, (sequence) => {
    const client = sequence % inFlight;
    const buysYes = Math.floor(sequence / inFlight) % 2 === 0;
    return engine.submit(
      limitOrderCommand({
        userId: 2 * client + (buysYes ? 1 : 2),
        marketId: market.marketId,
        outcomeId: market.outcomeId,
        optionId: market.options[buysYes ? 0 : 1],
        side: "BUY",
        limitPrice: prices[sequence % 3]! * cent,
        shares: BigInt(1 + (sequence % 5)) * unit,
      }),
    );
  });
  await recorder.close();
  return recorder.batches;
}

/** A recorded journal for a replay bench: its batches, its entries, and the batch its warm-up ends at. */
export interface OrdersJournalReplay {
  readonly batches: Entry[][];
  readonly entriesCount: number;
  /** The first batch after `warmupOrders` entries: a replay measures from it. */
  readonly warmBatch: number;
}

/** recordOrdersJournal, with the warm-up's end found and the journal's shape printed. */
export async function ordersJournalForReplay(
  orders: number,
  batchCommandsMax: number,
  warmupOrders: number,
): Promise<OrdersJournalReplay> {
  const batches = await recordOrdersJournal(orders, batchCommandsMax);
  const entriesCount = batches.reduce((sum, batch) => sum + batch.length, 0);
  let warmBatch = 0;
  for (let seen = 0; seen < warmupOrders && warmBatch < batches.length; warmBatch += 1)
    seen += batches[warmBatch]!.length;
  const { stepEntriesMin, stepEntriesMax } = defaultDeferredProjectionLimits;
  console.log(
    `journal: ${entriesCount} entries in ${batches.length} batches (${(entriesCount / batches.length).toFixed(1)} a batch); steps of ${stepEntriesMin}–${stepEntriesMax} entries`,
  );
  return { batches, entriesCount, warmBatch };
}
