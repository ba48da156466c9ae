// Snapshots encoded on the worker thread (src/engine/snapshot-worker.ts) are the snapshots the
// engine would have encoded inline: same sequence, same text, same hash; recovery from them
// rebuilds the live state, and the engine keeps committing while one is being encoded.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
} from "../../src/core/exchange.js";
import { Engine } from "../../src/engine/engine.js";
import { hashEncodedState } from "../../src/engine/recovery.js";
import type { EngineStore } from "../../src/engine/store.js";
import { exchangeSnapshotWorker } from "../../src/exchange/exchange-host.js";
import { MemoryEngineStore, type MemoryTransaction } from "../../src/store/memory/engine-store.js";
import { CommandStream } from "../sim/command-stream.js";

/** The store, taking two commits at once (as PostgreSQL's pipelined writer), each a few ms long. */
function pipelined(
  inner: MemoryEngineStore<ExchangeCommand, ExchangeEvent>,
): EngineStore<ExchangeCommand, ExchangeEvent, MemoryTransaction> {
  let previous: Promise<void> = Promise.resolve();
  return {
    commitsInFlightMax: 2,
    commitsWaitOnIo: true,
    lastSequence: () => inner.lastSequence(),
    readJournal: (after) => inner.readJournal(after),
    loadLatestSnapshot: () => inner.loadLatestSnapshot(),
    saveSnapshot: (snapshot) => inner.saveSnapshot(snapshot),
    commitBatch(entries, projectors) {
      const commit = previous.then(async () => {
        await new Promise((resolve) => setTimeout(resolve, 3));
        await inner.commitBatch(entries, projectors);
      });
      previous = commit.catch(() => {});
      return commit;
    },
  };
}

function open(
  store: EngineStore<ExchangeCommand, ExchangeEvent, MemoryTransaction>,
  worker: boolean | typeof exchangeSnapshotWorker,
  onError: (error: unknown) => void = () => {},
) {
  let nowMs = 1_800_000_000_000;
  return Engine.open<ExchangeState, ExchangeCommand, ExchangeEvent, MemoryTransaction>({
    decider: exchangeDecider,
    codec: exchangeStateCodec,
    store,
    clock: () => (nowMs += 100),
    limits: { snapshotEveryCommands: 25 },
    ...(worker === false ? {} : { snapshotWorker: worker === true ? exchangeSnapshotWorker : worker }),
    onError,
    onFatal: (error) => {
      throw error;
    },
  });
}

describe("snapshot worker", () => {
  it("writes the snapshots the engine would encode inline, off the event loop", async () => {
    const store = new MemoryEngineStore<ExchangeCommand, ExchangeEvent>();
    const engine = await open(store, true);
    const stream = new CommandStream(3);
    for (let group = 0; group < 80; group++) {
      const commands = await engine.read((state) => stream.next(state, 1_800_000_000_000, 4));
      await Promise.all(commands.map((command) => engine.submit(command)));
    }
    await engine.close();
    const snapshots = store.durableImage.snapshots;
    assert.ok(snapshots.length > 0);
    const latest = snapshots.at(-1)!;
    assert.equal(latest.sequence, engine.committedSequence, "close wrote the last snapshot");
    const live = await engine.read((state) => exchangeStateCodec.encode(state));
    assert.equal(latest.state, live);
    assert.equal(latest.hash, hashEncodedState(live));

    // A restart from the worker's snapshots rebuilds the same state (replay verified byte for byte).
    const reopened = await open(store.crash(), false);
    assert.equal(await reopened.read((state) => exchangeStateCodec.encode(state)), live);
    assert.ok((await reopened.verifyReplay()).identical);
    await reopened.close();
  });

  it("falls back to encoding inline when the worker fails", async () => {
    const store = new MemoryEngineStore<ExchangeCommand, ExchangeEvent>();
    const errors: unknown[] = [];
    const broken = {
      ...exchangeSnapshotWorker,
      moduleUrl: new URL("./no-such-core.js", import.meta.url).href,
    };
    const engine = await open(store, broken, (error) => errors.push(error));
    for (let index = 0; index < 60; index++) {
      await engine.submit({
        type: "Deposit",
        userId: 1 + (index % 3),
        amount: 100_000_000n,
        txHash: `0x${index}`,
      });
      // Let the worker's failure arrive.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await engine.close();
    const live = await engine.read((state) => exchangeStateCodec.encode(state));
    assert.equal(store.durableImage.snapshots.at(-1)?.state, live, "snapshots are still written");
    assert.ok(errors.length <= 1, "the failure is reported, not repeated");
  });

  it("falls back inline only to a state that is all committed, while batches are pipelined", async () => {
    const store = new MemoryEngineStore<ExchangeCommand, ExchangeEvent>();
    const broken = {
      ...exchangeSnapshotWorker,
      moduleUrl: new URL("./no-such-core.js", import.meta.url).href,
    };
    const engine = await open(pipelined(store), broken);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the worker's failure arrives
    // A deposit every millisecond: a batch is nearly always committing behind another. At least 150,
    // and on until inline snapshots were written (on a loaded machine the worker's failure, and so
    // the fallback, may come late), bounded.
    const deposits: Promise<unknown>[] = [];
    for (let index = 0; index < 150 || (store.durableImage.snapshots.length <= 1 && index < 3_000); index++) {
      deposits.push(
        engine.submit({
          type: "Deposit",
          userId: 1 + (index % 3),
          amount: 100_000_000n,
          txHash: `0x${index}`,
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all(deposits);
    assert.ok(store.durableImage.snapshots.length > 1, "snapshots were written meanwhile");
    const live = await engine.read((state) => exchangeStateCodec.encode(state));
    // A snapshot of a state holding a batch still committing would count that batch twice here.
    const reopened = await open(store.crash(), false);
    assert.equal(await reopened.read((state) => exchangeStateCodec.encode(state)), live);
    assert.ok((await reopened.verifyReplay()).identical);
    await reopened.close();
  });
});
