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
import { exchangeSnapshotWorker } from "../../src/exchange/exchange-host.js";
import { MemoryEngineStore, type MemoryTransaction } from "../../src/store/memory/engine-store.js";
import { CommandStream } from "../sim/command-stream.js";

function open(
  store: MemoryEngineStore<ExchangeCommand, ExchangeEvent>,
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
});
