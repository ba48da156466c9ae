// The contract every EngineStore adapter passes, written once and run against each adapter (as
// exchange-core's OrderBookBaseTest runs against every book). A PostgreSQL adapter brings a
// harness and calls describeEngineStoreContract; nothing here knows which adapter it is testing.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chainEntry, entryTextFormat, nextChainHash } from "../../src/engine/journal-chain.js";
import { hashEncodedState } from "../../src/engine/recovery.js";
import { packEncodedState } from "../../src/engine/snapshot-packing.js";
import type { EngineStore, JournalEntry, Projector, StateSnapshot } from "../../src/engine/store.js";
import { chainEntryVersion1 } from "../support/journal-v1.js";

export type ContractCommand = { readonly type: string; readonly [field: string]: unknown };
export type ContractEvent = { readonly type: string; readonly [field: string]: unknown };
export type ContractStore<Transaction> = EngineStore<ContractCommand, ContractEvent, Transaction>;

export interface EngineStoreHarness<Transaction> {
  /** A new, empty store. */
  create(): Promise<ContractStore<Transaction>>;
  /** A fresh instance over the same durable data, as after a restart. The old instance is not used again. */
  reopen(store: ContractStore<Transaction>): Promise<ContractStore<Transaction>>;
  /** A projector that records each entry's sequence in one of this adapter's read models. */
  readonly recordSequences: Projector<Transaction, ContractCommand, ContractEvent>;
  /** The sequences recordSequences has committed, ascending. */
  readRecordedSequences(store: ContractStore<Transaction>): Promise<bigint[]>;
  /** Releases everything create() made. */
  disposeAll(): Promise<void>;
}

function entry(
  sequence: bigint,
  extra: Record<string, unknown> = {},
): JournalEntry<ContractCommand, ContractEvent> {
  return {
    sequence,
    nowMs: 1_700_000_000_000 + Number(sequence),
    command: { type: "place", sequence, ...extra },
    events: [{ type: "placed", id: sequence * 1_000_000_000_000n }],
  };
}

function entries(first: bigint, count: number): JournalEntry<ContractCommand, ContractEvent>[] {
  return Array.from({ length: count }, (_, index) => entry(first + BigInt(index)));
}

async function readAll<Transaction>(
  store: ContractStore<Transaction>,
  afterSequence = 0n,
): Promise<{ entries: JournalEntry<ContractCommand, ContractEvent>[]; batches: number }> {
  const all: JournalEntry<ContractCommand, ContractEvent>[] = [];
  let batches = 0;
  for await (const batch of store.readJournal(afterSequence)) {
    assert.ok(batch.length > 0, "a journal batch is never empty");
    all.push(...batch);
    batches += 1;
  }
  return { entries: all, batches };
}

function snapshot(sequence: bigint, state: string): StateSnapshot {
  return {
    sequence,
    nowMs: 1_700_000_000_000 + Number(sequence),
    state,
    hash: hashEncodedState(state),
    // Any 64 hex digits: the store keeps the journal's chain hash at the snapshot as it is given.
    chainHash: hashEncodedState(`chain at ${sequence}`),
  };
}

export function describeEngineStoreContract<Transaction>(
  adapterName: string,
  harness: EngineStoreHarness<Transaction>,
): void {
  describe(`EngineStore contract: ${adapterName}`, { concurrency: false }, () => {
    const throwingProjector: Projector<Transaction, ContractCommand, ContractEvent> = () => {
      throw new Error("projection failed");
    };

    it("starts empty", async () => {
      const store = await harness.create();
      assert.equal(await store.lastSequence(), 0n);
      assert.deepEqual((await readAll(store)).entries, []);
      assert.equal(await store.loadLatestSnapshot(), undefined);
      assert.deepEqual(await harness.readRecordedSequences(store), []);
      await harness.disposeAll();
    });

    it("keeps committed entries exactly, bigints and all, across a restart", async () => {
      let store = await harness.create();
      const written: JournalEntry<ContractCommand, ContractEvent>[] = [
        entry(1n, { note: 'ünïcødé ✓ \u2028 "quoted"', nested: [{ a: [1, 2.5, null, true] }, {}] }),
        { sequence: 2n, nowMs: 1_700_000_000_002, command: { type: "noop" }, events: [] },
        entry(3n, { big: -(2n ** 70n), max: Number.MAX_SAFE_INTEGER }),
      ];
      await store.commitBatch(written.slice(0, 1), []);
      await store.commitBatch(written.slice(1), []);
      store = await harness.reopen(store);
      assert.equal(await store.lastSequence(), 3n);
      assert.deepEqual((await readAll(store)).entries, written);
      await harness.disposeAll();
    });

    it("keeps each entry's chain hashes, and entries written before the chain read back without them", async () => {
      let store = await harness.create();
      // Two entries as a build before the chain wrote them, then the chain from there.
      const unchained = entries(1n, 2);
      const first = chainEntry(null, 3n, 1_700_000_000_003, { type: "place", n: 3 }, [{ type: "placed" }]);
      const second = chainEntry(first.hash!, 4n, 1_700_000_000_004, { type: "noop" }, []);
      await store.commitBatch(unchained, []);
      await store.commitBatch([first, second], []);
      store = await harness.reopen(store);
      const read = (await readAll(store)).entries;
      assert.deepEqual(read, [...unchained, first, second]);
      assert.equal(read[0]!.hash, undefined, "an entry written before the chain has no hash");
      assert.equal(read[2]!.prevHash, null, "the chain starts after the unhashed entries");
      assert.equal(read[3]!.prevHash, first.hash);
      await harness.disposeAll();
    });

    it("reads and verifies a journal written in chain version 1 and continued in version 2", async () => {
      let store = await harness.create();
      // Entries as a build before version 2 wrote them (JSON texts), then this build's (compact).
      const old1 = chainEntryVersion1(null, 1n, 1_700_000_000_001, { type: "place", big: -(2n ** 64n) }, [
        { type: "placed", id: 2n ** 63n - 1n, note: "7 o'clock" },
      ]);
      const old2 = chainEntryVersion1(old1.hash!, 2n, 1_700_000_000_002, { type: "noop" }, []);
      const new3 = chainEntry(old2.hash!, 3n, 1_700_000_000_003, { type: "place", n: 3 }, [
        { type: "placed", id: 0n, note: "-1" },
      ]);
      const new4 = chainEntry(new3.hash!, 4n, 1_700_000_000_004, { type: "noop" }, []);
      await store.commitBatch([old1, old2], []);
      await store.commitBatch([new3, new4], []);
      store = await harness.reopen(store);
      const read = (await readAll(store)).entries;
      assert.deepEqual(read, [old1, old2, new3, new4]);
      // As `predex journal verify` and a following copy check it: each entry against its own hash.
      let held: string | null = null;
      for (const entry of read) held = nextChainHash(held, entry);
      assert.equal(held, new4.hash);
      assert.deepEqual(read.map(entryTextFormat), [1, 1, 2, 2]);
      await harness.disposeAll();
    });

    it("reads the journal after any sequence, in order, a bounded batch at a time", async () => {
      const store = await harness.create();
      for (let first = 1n; first <= 2500n; first += 500n) await store.commitBatch(entries(first, 500), []);
      const all = await readAll(store);
      assert.equal(all.entries.length, 2500);
      assert.ok(all.batches > 1, "a long journal is read in several batches");
      assert.deepEqual(
        all.entries.map((read) => read.sequence),
        Array.from({ length: 2500 }, (_, index) => BigInt(index + 1)),
      );
      const tail = await readAll(store, 1234n);
      assert.equal(tail.entries[0]?.sequence, 1235n);
      assert.equal(tail.entries.length, 2500 - 1234);
      assert.deepEqual((await readAll(store, 2500n)).entries, []);
      await harness.disposeAll();
    });

    it("refuses a batch that does not continue the journal, and writes none of it", async () => {
      const store = await harness.create();
      await store.commitBatch(entries(1n, 2), [harness.recordSequences]);
      const refused: JournalEntry<ContractCommand, ContractEvent>[][] = [
        entries(4n, 1), // a gap
        entries(2n, 2), // a sequence already written
        entries(1n, 1), // the first one again
        [entry(3n), entry(5n)], // a gap inside the batch
        [entry(3n), entry(3n)], // a repeat inside the batch
      ];
      for (const batch of refused) {
        await assert.rejects(store.commitBatch(batch, [harness.recordSequences]));
        assert.equal(await store.lastSequence(), 2n);
        assert.deepEqual(await harness.readRecordedSequences(store), [1n, 2n]);
      }
      await store.commitBatch(entries(3n, 1), [harness.recordSequences]);
      assert.equal(await store.lastSequence(), 3n);
      await harness.disposeAll();
    });

    it("commits the journal and the projections together, or neither", async () => {
      let store = await harness.create();
      await store.commitBatch(entries(1n, 3), [harness.recordSequences]);
      assert.deepEqual(await harness.readRecordedSequences(store), [1n, 2n, 3n]);

      await assert.rejects(store.commitBatch(entries(4n, 2), [harness.recordSequences, throwingProjector]), {
        message: "projection failed",
      });
      assert.equal(await store.lastSequence(), 3n);
      assert.deepEqual(await harness.readRecordedSequences(store), [1n, 2n, 3n]);

      store = await harness.reopen(store);
      assert.equal(await store.lastSequence(), 3n);
      assert.deepEqual(await harness.readRecordedSequences(store), [1n, 2n, 3n]);
      await store.commitBatch(entries(4n, 2), [harness.recordSequences]);
      assert.deepEqual(await harness.readRecordedSequences(store), [1n, 2n, 3n, 4n, 5n]);
      await harness.disposeAll();
    });

    it("hands projectors the entries in order, with the values that were committed", async () => {
      const store = await harness.create();
      const seen: JournalEntry<ContractCommand, ContractEvent>[] = [];
      const batch = entries(1n, 4);
      await store.commitBatch(batch, [(_transaction, committed) => void seen.push(...committed)]);
      assert.deepEqual(seen, batch);
      await harness.disposeAll();
    });

    it("keeps the latest snapshot, whatever order they are saved in, across a restart", async () => {
      let store = await harness.create();
      await store.commitBatch(entries(1n, 30), []);
      const large = JSON.stringify({
        accounts: Array.from({ length: 20_000 }, (_, index) => [`u${index}`, "ü"]),
      });
      await store.saveSnapshot(snapshot(10n, "ten"));
      await store.saveSnapshot(snapshot(30n, large));
      await store.saveSnapshot(snapshot(20n, "twenty"));
      store = await harness.reopen(store);
      assert.deepEqual(await store.loadLatestSnapshot(), snapshot(30n, large));
      await store.saveSnapshot(snapshot(30n, "thirty, rewritten"));
      assert.deepEqual(await store.loadLatestSnapshot(), snapshot(30n, "thirty, rewritten"));
      await harness.disposeAll();
    });

    it("keeps a packed snapshot (the snapshot worker's) and gives back its text", async () => {
      let store = await harness.create();
      await store.commitBatch(entries(1n, 5), []);
      const text = JSON.stringify({ orders: Array.from({ length: 5_000 }, (_, index) => [index, "ü ✓"]) });
      const { state, ...rest } = snapshot(5n, text);
      await store.saveSnapshot({ ...rest, packedState: packEncodedState(state) });
      store = await harness.reopen(store);
      assert.deepEqual(await store.loadLatestSnapshot(), snapshot(5n, text));
      await harness.disposeAll();
    });

    it("goes on committing while a large snapshot is saved, which lands whole", async () => {
      let store = await harness.create();
      await store.commitBatch(entries(1n, 10), [harness.recordSequences]);
      await store.saveSnapshot(snapshot(5n, "five"));
      // Several MB that do not compress: a store that writes in steps takes many of them.
      let seed = 7;
      const noise = Array.from({ length: 600_000 }, () => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        return (seed % 36).toString(36);
      }).join("");
      const large = snapshot(10n, JSON.stringify({ noise, tail: "ü" }));
      const { state, ...rest } = large;
      const saving = store.saveSnapshot({ ...rest, packedState: packEncodedState(state) });
      for (let first = 11n; first <= 30n; first += 2n) {
        await store.commitBatch(entries(first, 2), [harness.recordSequences]);
      }
      await saving;
      store = await harness.reopen(store);
      assert.equal(await store.lastSequence(), 30n);
      assert.equal((await harness.readRecordedSequences(store)).length, 30);
      assert.deepEqual(await store.loadLatestSnapshot(), large);
      await harness.disposeAll();
    });

    it("deletes the archived journal through the latest snapshot, never past it nor the last entry", async () => {
      let store = await harness.create();
      assert.ok(store.deleteJournalThrough !== undefined && store.firstSequence !== undefined);
      assert.equal(await store.firstSequence(), 1n, "an empty journal starts at lastSequence() + 1");
      await store.commitBatch(entries(1n, 10), []);
      await store.saveSnapshot(snapshot(6n, "six"));
      assert.equal(await store.firstSequence(), 1n);
      await assert.rejects(store.deleteJournalThrough(7n), /still needed/, "past the latest snapshot");
      assert.equal(await store.firstSequence(), 1n, "a refused delete deletes nothing");
      await store.deleteJournalThrough(6n);
      store = await harness.reopen(store);
      assert.equal(await store.firstSequence!(), 7n);
      assert.equal(await store.lastSequence(), 10n);
      assert.deepEqual((await readAll(store)).entries, entries(7n, 4));
      assert.deepEqual((await readAll(store, 8n)).entries, entries(9n, 2));
      // A snapshot at the last entry: the entry stays all the same, so the journal never looks empty.
      await store.commitBatch(entries(11n, 1), []);
      await store.saveSnapshot(snapshot(11n, "eleven"));
      await assert.rejects(store.deleteJournalThrough!(11n), /still needed/, "the last entry stays");
      await store.deleteJournalThrough!(10n);
      assert.equal(await store.firstSequence!(), 11n);
      assert.deepEqual((await readAll(store)).entries, entries(11n, 1));
      await harness.disposeAll();
    });
  });
}
