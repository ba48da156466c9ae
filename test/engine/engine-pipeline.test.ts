// The engine over a store that takes two commits at once (commitsInFlightMax, as PostgreSQL's
// pipelined writer does): the next batch is decided on top of the one committing and handed over
// before that one finishes, yet every batch is answered, made visible and told to listeners strictly
// after its own commit and in order; a reader never sees a batch still committing; and a failed
// commit fails the batch behind it too, which never lands.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EngineFatalError } from "../../src/engine/errors.js";
import type { EngineStore, JournalEntry } from "../../src/engine/store.js";
import type { MemoryEngineStore } from "../../src/store/memory/engine-store.js";
import type { AccountCommand, AccountEvent } from "./accounts-domain.js";
import { type Gate, gate, memoryStore, openAccountsEngine, settle, track } from "./harness.js";

type Entries = readonly JournalEntry<AccountCommand, AccountEvent>[];

/**
 * A memory store that takes two commits at once and lands them in call order, each held at a gate
 * of the test's own, and refuses every commit after a failed one (PostgreSQL's journal guard refuses
 * a batch whose predecessor is missing).
 */
function pipelinedStore(inner: MemoryEngineStore<AccountCommand, AccountEvent>) {
  const gates: Gate[] = [];
  const started: Entries[] = [];
  let previous: Promise<void> = Promise.resolve();
  let failed = false;
  const failNext = { value: false };
  const store: EngineStore<AccountCommand, AccountEvent, unknown> = {
    commitsInFlightMax: 2,
    commitsWaitOnIo: true,
    lastSequence: () => inner.lastSequence(),
    readJournal: (after) => inner.readJournal(after),
    loadLatestSnapshot: () => inner.loadLatestSnapshot(),
    saveSnapshot: (snapshot) => inner.saveSnapshot(snapshot),
    commitBatch(entries, projectors) {
      const held = gate();
      gates.push(held);
      started.push(entries);
      const fail = failNext.value;
      failNext.value = false;
      const commit = previous.then(async () => {
        await held.wait();
        if (failed) throw new Error("refused: an earlier commit failed");
        if (fail) {
          failed = true;
          throw new Error("connection lost");
        }
        await inner.commitBatch(entries, projectors);
      });
      previous = commit.catch(() => {});
      return commit;
    },
  };
  return { store, gates, started, failNext };
}

describe("engine: pipelined commits", () => {
  it("hands the next batch over while one commits, and finishes them in order", async () => {
    const inner = memoryStore();
    const pipelined = pipelinedStore(inner);
    const { engine } = await openAccountsEngine(pipelined.store);
    const committed: bigint[] = [];
    engine.onCommitted((entries) => committed.push(...entries.map((entry) => entry.sequence)));

    const first = track(engine.submit({ type: "open", accountId: "alice" }));
    await settle();
    assert.equal(pipelined.started.length, 1);
    const second = track(engine.submit({ type: "deposit", accountId: "alice", amount: 5n }));
    await settle();
    assert.equal(pipelined.started.length, 2, "the second batch was handed over while the first commits");
    assert.equal(pipelined.started[1]![0]!.sequence, 2n, "decided on top of the batch still committing");
    assert.equal(engine.committedSequence, 0n);

    // A reader waits for committed state: nothing decided may still be committing.
    const read = track(engine.read((state, position) => ({ accounts: state.accounts.size, position })));
    // A third command waits: the store has no room, and a reader waits.
    const third = track(engine.submit({ type: "deposit", accountId: "alice", amount: 7n }));
    await settle();
    assert.equal(pipelined.started.length, 2);
    assert.ok(!first.settled() && !second.settled() && !read.settled());

    pipelined.gates[1]!.open(); // the second cannot land before the first
    await settle();
    assert.ok(!first.settled() && !second.settled());
    pipelined.gates[0]!.open();
    await settle();
    assert.ok(first.settled() && second.settled());
    assert.deepEqual(committed, [1n, 2n]);
    const seen = await read.promise;
    assert.equal(seen.position.sequence, 2n);
    assert.equal(seen.accounts, 1);

    await settle();
    assert.equal(pipelined.started.length, 3, "the third started once the reader had read");
    pipelined.gates[2]!.open();
    const answer = await third.promise;
    assert.ok(answer.ok && answer.sequence === 3n);
    assert.equal(engine.committedSequence, 3n);
    assert.equal(await inner.lastSequence(), 3n);
    await engine.close();
  });

  it("a failed commit fails the batch behind it too, which never lands", async () => {
    const inner = memoryStore();
    const pipelined = pipelinedStore(inner);
    const { engine, fatalErrors } = await openAccountsEngine(pipelined.store);
    const opened = engine.submit({ type: "open", accountId: "alice" });
    await settle();
    pipelined.gates[0]!.open();
    assert.ok((await opened).ok);
    assert.equal(engine.committedSequence, 1n);

    pipelined.failNext.value = true;
    const failing = engine.submit({ type: "deposit", accountId: "alice", amount: 5n });
    await settle();
    const behind = engine.submit({ type: "deposit", accountId: "alice", amount: 7n });
    await settle();
    assert.equal(pipelined.started.length, 3);
    pipelined.gates[2]!.open();
    pipelined.gates[1]!.open();
    // The failing batch learns the store's error; the one behind it may have been written whatever it was.
    await assert.rejects(failing, (error: unknown) => {
      assert.ok(error instanceof EngineFatalError);
      assert.equal(error.cause, fatalErrors[0]!.cause);
      return true;
    });
    await assert.rejects(behind, (error: unknown) => {
      assert.ok(error instanceof EngineFatalError);
      assert.notEqual(error.cause, fatalErrors[0]!.cause);
      return true;
    });
    assert.equal(fatalErrors.length, 1);
    assert.equal(engine.phase, "failed");
    assert.equal(engine.committedSequence, 1n);
    await settle();
    assert.equal(await inner.lastSequence(), 1n, "nothing after the failed commit landed");
  });
});
