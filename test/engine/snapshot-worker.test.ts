// Snapshots encoded on the worker thread (src/engine/snapshot-worker.ts) are the snapshots the
// engine would have encoded inline: same sequence, same text, same hash; recovery from them
// rebuilds the live state, and the engine keeps committing while one is being encoded. The worker
// is handed each batch as its journal text (batchText), which gives back exactly the events: any
// plain data, and every event the exchange decides over random command streams.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
} from "../../src/core/exchange.js";
import { Engine } from "../../src/engine/engine.js";
import { chainEntry } from "../../src/engine/journal-chain.js";
import { hashEncodedState } from "../../src/engine/recovery.js";
import {
  batchText,
  type FoldedEntry,
  forEachBatchEntry,
  SnapshotWorker,
} from "../../src/engine/snapshot-worker.js";
import type { EngineStore, JournalEntry, StateSnapshot } from "../../src/engine/store.js";
import { exchangeSnapshotWorker } from "../../src/exchange/exchange-host.js";
import { MemoryEngineStore, type MemoryTransaction } from "../../src/store/memory/engine-store.js";
import { CommandStream } from "../sim/command-stream.js";
import { chainEntryVersion1 } from "../support/journal-v1.js";

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

/** The store, keeping a copy of every snapshot written (the memory store keeps the last two). */
function recordingSnapshots(inner: EngineStore<ExchangeCommand, ExchangeEvent, MemoryTransaction>) {
  const saved: StateSnapshot[] = [];
  const store: EngineStore<ExchangeCommand, ExchangeEvent, MemoryTransaction> = {
    ...(inner.commitsInFlightMax === undefined ? {} : { commitsInFlightMax: inner.commitsInFlightMax }),
    ...(inner.commitsWaitOnIo === undefined ? {} : { commitsWaitOnIo: inner.commitsWaitOnIo }),
    lastSequence: () => inner.lastSequence(),
    readJournal: (after) => inner.readJournal(after),
    loadLatestSnapshot: () => inner.loadLatestSnapshot(),
    async saveSnapshot(snapshot) {
      await inner.saveSnapshot(snapshot);
      const latest = await inner.loadLatestSnapshot();
      assert.equal(latest?.sequence, snapshot.sequence);
      saved.push(latest!);
    },
    commitBatch: (entries, projectors) => inner.commitBatch(entries, projectors),
  };
  return { store, saved };
}

const bigints = fc.oneof(fc.constantFrom(0n, -1n, 2n ** 63n - 1n, -(2n ** 64n), 10n ** 30n), fc.bigInt());
// Strings a bigint could be mistaken for, and the batch's own separators (space, newline).
const strings = fc.oneof(fc.string(), fc.constantFrom("", "0", "-1", "'", " ", "\n", "a\nb", "1 2", "~"));
const plainData: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    strings,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((value) => !Object.is(value, -0)),
    fc.boolean(),
    fc.constant(null),
    bigints,
    fc.array(tie("value")),
    fc.dictionary(
      fc.string().filter((key) => key !== "__proto__" && key !== "$bigint"),
      tie("value"),
      { noNullPrototype: true },
    ),
  ),
})).value;

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

describe("the snapshot worker's batch text", () => {
  it("gives back each entry's sequence, time and events exactly, in order (property)", () => {
    const batches = fc.record({
      first: fc.bigInt({ min: 1n, max: 2n ** 62n }),
      entries: fc.array(
        fc.record({
          nowMs: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
          events: fc.array(plainData, { maxLength: 4 }),
          // Entries read from an old journal keep their version 1 (JSON) text.
          version1: fc.boolean(),
        }),
        { minLength: 1, maxLength: 8 },
      ),
    });
    fc.assert(
      fc.property(batches, ({ first, entries }) => {
        const journaled: JournalEntry<unknown, unknown>[] = entries.map(
          ({ nowMs, events, version1 }, index) =>
            (version1 ? chainEntryVersion1 : chainEntry)(
              null,
              first + BigInt(index),
              nowMs,
              { type: "C" },
              events,
            ),
        );
        const folded: FoldedEntry[] = [];
        forEachBatchEntry(batchText(journaled), (entry) => folded.push(entry));
        assert.deepStrictEqual(
          folded,
          entries.map(({ nowMs, events }, index) => ({ sequence: first + BigInt(index), nowMs, events })),
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe("snapshot worker", () => {
  it("writes the snapshots the engine's own state encodes to, over random command streams (property)", async () => {
    const types = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), fc.boolean(), async (seed, pipelining) => {
        const memory = new MemoryEngineStore<ExchangeCommand, ExchangeEvent>();
        const { store, saved } = recordingSnapshots(pipelining ? pipelined(memory) : memory);
        const errors: unknown[] = [];
        const engine = await open(store, true, (error) => errors.push(error));
        // The engine's state at each committed sequence, folded from the very event objects it
        // decided (not from any encoding of them): what an inline snapshot there would encode.
        let inline = exchangeDecider.initialState();
        const inlineAt = new Map<bigint, string>();
        engine.onCommitted((entries) => {
          for (const entry of entries) {
            for (const event of entry.events) {
              inline = exchangeDecider.evolve(inline, event);
              types.add(event.type);
            }
          }
          inlineAt.set(entries.at(-1)!.sequence, exchangeStateCodec.encode(inline));
        });
        const stream = new CommandStream(seed);
        for (let group = 0; group < 150; group++) {
          const commands = await engine.read((state, position) =>
            stream.next(state, position.nowMs === 0 ? 1_800_000_000_000 : position.nowMs, 4),
          );
          await Promise.all(commands.map((command) => engine.submit(command)));
          // Many snapshots, each of a different state: a snapshot due waits for the one being
          // encoded, so the stream waits for the worker now and then (bounded).
          for (
            let waited = 0;
            engine.committedSequence - engine.snapshotSequence >= 50n && waited < 2_000;
            waited++
          )
            await new Promise((resolve) => setTimeout(resolve, 1));
        }
        await engine.close();
        // Written by the worker: a worker that failed would leave the snapshots to the inline fallback.
        assert.deepStrictEqual(errors, []);
        assert.ok(saved.length > 3, `only ${saved.length} snapshots written`);
        for (const snapshot of saved) {
          const expected = inlineAt.get(snapshot.sequence);
          assert.ok(expected !== undefined, `a snapshot at ${snapshot.sequence}, not a batch's end`);
          assert.equal(snapshot.state, expected, `the snapshot at ${snapshot.sequence}`);
          assert.equal(snapshot.hash, hashEncodedState(expected));
        }
      }),
      { numRuns: 4 },
    );
    // The streams decide most event types (the rest are covered by journal-text-formats.test.ts).
    assert.ok(types.size >= 20, `only ${types.size} event types decided: ${[...types].join(", ")}`);
  });

  it("folds the same state whether batches are posted one by one or together", async () => {
    const engine = await open(new MemoryEngineStore<ExchangeCommand, ExchangeEvent>(), false);
    const batches: JournalEntry<ExchangeCommand, ExchangeEvent>[][] = [];
    engine.onCommitted((entries) => batches.push([...entries]));
    const stream = new CommandStream(11);
    for (let group = 0; group < 100; group++) {
      const commands = await engine.read((state) => stream.next(state, 1_800_000_000_000, 4));
      await Promise.all(commands.map((command) => engine.submit(command)));
    }
    const live = await engine.read((state) => exchangeStateCodec.encode(state));
    await engine.close();
    const start = {
      encodedState: exchangeStateCodec.encode(exchangeDecider.initialState()),
      sequence: 0n,
      nowMs: 0,
    };
    // Every batch its own message; a few batches a message; all in the snapshot request's turn.
    for (const handOffCharsMin of [0, 2_000, Number.MAX_SAFE_INTEGER]) {
      const worker = new SnapshotWorker(exchangeSnapshotWorker, start, { handOffCharsMin });
      const half = Math.floor(batches.length / 2);
      for (const batch of batches.slice(0, half)) worker.apply(batch);
      // A snapshot in between posts what waits first, and the batches after it follow.
      const middle = await worker.snapshot(batches[half - 1]!.at(-1)!.sequence);
      assert.equal(middle.sequence, batches[half - 1]!.at(-1)!.sequence);
      for (const batch of batches.slice(half)) worker.apply(batch);
      const snapshot = await worker.snapshot(engine.committedSequence);
      assert.equal(snapshot.hash, hashEncodedState(live), `handOffCharsMin ${handOffCharsMin}`);
      assert.equal(worker.failed, false);
      await worker.close();
    }
  });

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
