// bench:orders' order stream recorded as a real engine journals it (test/support/recorded-journal.ts),
// for the in-process benches that replay a journal into stores (bench/order-storage.ts,
// bench/projection-costs.ts): 128 funded users, 64 in flight, each alternating signed-size BUY
// orders of Yes and No at 0.49 / 0.50 / 0.51, so every other order trades.

import { limitOrderCommand } from "../../src/core/exchange.js";
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
