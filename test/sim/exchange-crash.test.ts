// The real exchange survives a power cut at any write: a short run of the crash simulation
// (exchange-crash-sim.ts). The long run is `npm run sim -- --seeds N` (docs/simulation.md).

import assert from "node:assert/strict";
import { pbkdf2 } from "node:crypto";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { runSimulation } from "./exchange-crash-sim.js";

describe("crash simulation of the exchange", () => {
  it("recovers exactly the acknowledged commands after a power cut at every write of a short run", async () => {
    const base = {
      seed: 11,
      commands: 24,
      crashGapWritesMax: 0,
      journalBatchCommandsMax: 3,
      snapshotEveryCommands: 5,
    };
    const uncrashed = await runSimulation(base);
    assert.equal(uncrashed.crashPoints, 0);
    assert.ok(uncrashed.writeBoundaries > 60, `the run passes many writes (${uncrashed.writeBoundaries})`);
    // Snapshots are written in several chunk rows each, so the cuts below fall between a
    // snapshot's chunks too, before the row naming them: recovery must use the previous snapshot.
    assert.ok(uncrashed.snapshotChunkRows > 4, `snapshots span chunks (${uncrashed.snapshotChunkRows})`);
    let cut = 0;
    let cutBehind = 0;
    for (let write = 1; write <= uncrashed.writeBoundaries; write++) {
      const report = await runSimulation({ ...base, firstCrashAtWrite: write });
      cut += report.crashPoints;
      cutBehind += report.cutsWithReadModelsBehind;
    }
    assert.equal(cut, uncrashed.writeBoundaries, "each write boundary of the uncrashed run was cut once");
    // The read models follow the journal in steps of their own: many of those cuts fell after a
    // journal commit and before (or inside) the step projecting it, and the restart rebuilt them.
    assert.ok(cutBehind > 10, `cuts between the journal and the read models (${cutBehind})`);
  });

  it("replays a seed exactly, however slowly libuv's thread pool answers", async () => {
    // The journal archive's file reads and writes complete on the thread pool, after as many turns
    // of the event loop as the machine's load makes it; nothing of a seed (where its power cuts
    // fall, what they keep) may depend on that. Here the pool is kept busy by other work, so each
    // of those reads waits behind it: the run must be the same, write for write.
    const options = {
      seed: 3,
      commands: 200,
      crashGapWritesMax: 80,
      archiveJournal: true,
      snapshotEveryCommands: 5,
    };
    const quiet = await runSimulation(options);
    assert.ok(quiet.crashPoints > 10 && quiet.archivedThrough > 0n, "the run is cut and archives");
    const busy = await withBusyThreadPool(() => runSimulation(options));
    assert.deepEqual(busy, quiet);
  });

  it("recovers from repeated power cuts over mixed commands of all three models and exclusive markets", async () => {
    const expectedKinds = [
      /PlaceOrder orderbook LIMIT \w+ GTC/,
      /PlaceOrder orderbook MARKET/,
      /PlaceOrder AMM MARKET BUY/,
      /PlaceOrder AMM MARKET SELL/,
      /PlaceOrder parimutuel MARKET BUY/,
      /CancelOrder/,
      /CancelAllOrders/,
      /AmendOrder/,
      /Heartbeat/,
      /Deposit/,
      /RequestWithdrawal/,
      /CloseMarket/,
      /ResolveMarket/,
      /ConvertPositions/,
    ];
    const journaled = new Set<string>();
    let projectionCutsAtOpen = 0;
    const kinds = () => [...journaled].join(" | ");
    // The rarer kinds (an AMM sell needs shares bought first, a conversion No shares of an exclusive
    // market) do not come up under every seed: seeds are added, up to ten, until each kind has.
    for (let seed = 1; seed <= 10; seed++) {
      const report = await runSimulation({
        seed,
        commands: 500,
        crashGapWritesMax: 80,
        compareReadModels: true,
        archiveJournal: true,
      });
      assert.ok(report.crashPoints > 30, `seed ${seed}: ${report.crashPoints} power cuts`);
      assert.ok(report.acknowledged > 100, `seed ${seed}: ${report.acknowledged} acknowledged`);
      for (const kind of Object.keys(report.journaledCommands)) journaled.add(kind);
      assert.ok(report.archivedThrough > 0n, `seed ${seed} archived part of its journal`);
      assert.ok(
        report.cutsWithReadModelsBehind > 5,
        `seed ${seed}: ${report.cutsWithReadModelsBehind} cuts left the read models behind the journal`,
      );
      assert.ok(
        report.cutsLosingUnsyncedWrites > 5,
        `seed ${seed}: ${report.cutsLosingUnsyncedWrites} cuts lost WAL written but not synced`,
      );
      projectionCutsAtOpen += report.projectionCutsAtOpen;
      if (seed >= 2 && expectedKinds.every((expected) => expected.test(kinds()))) break;
    }
    for (const expected of expectedKinds) {
      assert.match(kinds(), expected, "the runs journal commands of every kind");
    }
    assert.ok(projectionCutsAtOpen > 0, "some cuts fell while a restart caught the read models up");
  });
});

/** Runs `run` while every thread of libuv's pool is kept busy hashing (pbkdf2 runs there too). */
async function withBusyThreadPool<T>(run: () => Promise<T>): Promise<T> {
  const hash = promisify(pbkdf2);
  let busy = true;
  const keepBusy = async () => {
    while (busy) await hash("predex", "salt", 20_000, 32, "sha256");
  };
  const threads = Array.from({ length: Number(process.env.UV_THREADPOOL_SIZE ?? 4) }, keepBusy);
  try {
    return await run();
  } finally {
    busy = false;
    await Promise.all(threads);
  }
}
