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

function open(store: MemoryEngineStore<ExchangeCommand, ExchangeEvent>, worker: boolean) {
  let nowMs = 1_800_000_000_000;
  return Engine.open<ExchangeState, ExchangeCommand, ExchangeEvent, MemoryTransaction>({
    decider: exchangeDecider,
    codec: exchangeStateCodec,
    store,
    clock: () => (nowMs += 100),
    limits: { snapshotEveryCommands: 25 },
    ...(worker ? { snapshotWorker: exchangeSnapshotWorker } : {}),
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
});
