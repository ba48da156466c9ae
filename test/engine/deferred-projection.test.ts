// Read models projected behind the journal (src/engine/deferred-projection.ts): they catch up with
// what a crash left unprojected, follow the engine's commits in steps of their own, project at once
// for a reader, and stop for good (loudly) when a step fails.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DeferredProjection,
  type DeferredProjectionLimits,
  type ProjectionStoppedError,
  type ProjectionTarget,
} from "../../src/engine/deferred-projection.js";
import { EngineStoppedError } from "../../src/engine/errors.js";
import type { JournalEntry } from "../../src/engine/store.js";
import { withCaughtUpReads } from "../../src/store/caught-up-reads.js";
import type { AccountCommand, AccountEvent } from "./accounts-domain.js";
import { memoryStore, openAccountsEngine, settle } from "./harness.js";

type Entry = JournalEntry<AccountCommand, AccountEvent>;

/** Commands the accounts core accepts, each one journal entry: `from` to `to` (exclusive). */
function acceptedCommands(from: number, to: number): AccountCommand[] {
  return Array.from(
    { length: to - from },
    (_, index): AccountCommand =>
      from + index === 0
        ? { type: "open", accountId: "alice" }
        : { type: "deposit", accountId: "alice", amount: BigInt(from + index) },
  );
}

interface RecordingTarget extends ProjectionTarget<AccountCommand, AccountEvent> {
  readonly sequences: bigint[];
  readonly steps: number[];
  failAt: bigint | undefined;
}

/** A target keeping the projected entries' sequences and each step's size; `failAt` makes a step throw. */
function recordingTarget(startAt = 0n): RecordingTarget {
  const target: RecordingTarget = {
    sequences: [],
    steps: [],
    failAt: undefined,
    projectedSequence: (): bigint => target.sequences.at(-1) ?? startAt,
    project(entries: readonly Entry[]): void {
      if (target.failAt !== undefined && entries.some((entry) => entry.sequence >= target.failAt!))
        throw new Error("disk full");
      assert.equal(entries[0]!.sequence, target.projectedSequence() + 1n, "steps continue exactly");
      target.sequences.push(...entries.map((entry) => entry.sequence));
      target.steps.push(entries.length);
    },
  };
  return target;
}

/** An engine over a memory store with `commands` committed, and a projection following it. */
async function following(
  commands: number,
  limits: Partial<DeferredProjectionLimits>,
  options: { projectedBefore?: bigint; steps?: "scheduled" | "on-demand" } = {},
) {
  const store = memoryStore();
  const { engine } = await openAccountsEngine(store, { limits: { journalBatchCommandsMax: 4 } });
  await Promise.all(acceptedCommands(0, commands).map((command) => engine.submit(command)));
  const target = recordingTarget(options.projectedBefore ?? 0n);
  const fatal: ProjectionStoppedError[] = [];
  const projection = await DeferredProjection.open({
    target,
    journal: store,
    committedSequence: engine.committedSequence,
    limits,
    steps: options.steps ?? "scheduled",
    onFatal: (error) => fatal.push(error),
  });
  engine.onCommitted((entries) => projection.committed(entries));
  return { store, engine, target, projection, fatal };
}

describe("deferred projection", () => {
  it("projects at open what the journal holds past the read models, in steps of at most stepEntriesMax", async () => {
    const { engine, target, projection } = await following(
      23,
      { stepEntriesMax: 5 },
      { projectedBefore: 7n },
    );
    assert.equal(engine.committedSequence, 23n);
    assert.deepEqual(
      target.sequences,
      Array.from({ length: 16 }, (_, index) => BigInt(8 + index)),
    );
    assert.ok(
      target.steps.every((size) => size <= 5),
      `steps ${target.steps.join(",")}`,
    );
    assert.equal(projection.projectedSequence, 23n);
    await engine.close();
  });

  it("refuses read models ahead of the journal", async () => {
    await assert.rejects(
      following(3, {}, { projectedBefore: 9n }),
      /read models \(at 9\) are not ahead of the journal \(at 3\)/,
    );
  });

  it("holds committed entries until a read catches up, which projects every one of them at once", async () => {
    const { engine, target, projection } = await following(4, {}, { steps: "on-demand" });
    await Promise.all(acceptedCommands(4, 30).map((command) => engine.submit(command)));
    // The engine answered every command: its entries are durable, and the read models lag.
    assert.equal(engine.committedSequence, 30n);
    assert.equal(projection.projectedSequence, 4n);
    assert.equal(projection.pendingEntries, 26);
    projection.catchUp();
    assert.equal(projection.projectedSequence, 30n);
    assert.equal(projection.pendingEntries, 0);
    assert.deepEqual(
      target.sequences,
      Array.from({ length: 30 }, (_, index) => BigInt(index + 1)),
    );
    await engine.close();
  });

  it("projects on its own: after delayMs when few entries wait, at the next turn once stepEntriesMin do", async (t) => {
    // The step's timer on a mocked clock: exactly delayMs, whatever the machine's load (a real 30 ms
    // was passed by a process preempted that long; a real wait bounds it only from one side).
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const slow = await following(0, { delayMs: 30, stepEntriesMin: 1_000 });
    await slow.engine.submit({ type: "open", accountId: "alice" });
    await settle();
    t.mock.timers.tick(29);
    assert.equal(slow.projection.projectedSequence, 0n, "before delayMs nothing is projected");
    t.mock.timers.tick(1);
    assert.equal(slow.projection.projectedSequence, 1n, "after delayMs the entry is projected");
    await slow.engine.close();

    const busy = await following(0, { delayMs: 60_000, stepEntriesMin: 8, stepEntriesMax: 8 });
    await Promise.all(acceptedCommands(0, 20).map((command) => busy.engine.submit(command)));
    await settle();
    assert.equal(busy.projection.projectedSequence, 16n, "two full steps ran without waiting for delayMs");
    assert.equal(busy.projection.pendingEntries, 4, "the rest waits for more, or for the delay");
    busy.projection.close();
    assert.equal(busy.projection.projectedSequence, 20n, "close projects the rest");
    await busy.engine.close();
  });

  it("stops for good when a step fails: onFatal once, reads refused as 'try again later', nothing more projected", async () => {
    const { engine, target, projection, fatal } = await following(0, {}, { steps: "on-demand" });
    await Promise.all(acceptedCommands(0, 10).map((command) => engine.submit(command)));
    target.failAt = 6n;
    assert.throws(() => projection.catchUp(), /read models stopped at sequence 0: disk full/);
    assert.equal(fatal.length, 1);
    const failure = projection.failure;
    assert.ok(
      failure instanceof EngineStoppedError,
      "surfaces answer it as 'nothing was done, try again later'",
    );
    target.failAt = undefined;
    await engine.submit({ type: "deposit", accountId: "alice", amount: 1n });
    assert.throws(
      () => projection.catchUp(),
      (error) => error === failure,
    );
    assert.deepEqual(target.sequences, [], "the failed step left nothing, and no step ran after it");
    assert.equal(fatal.length, 1, "onFatal was called once");
    await engine.close();
  });

  it("refuses a gap in the committed entries", async () => {
    const { engine, projection } = await following(3, {}, { steps: "on-demand" });
    const entry = (sequence: bigint): Entry => ({
      sequence,
      nowMs: 0,
      command: { type: "open", accountId: "x" },
      events: [],
    });
    projection.committed([entry(2n), entry(3n)]);
    assert.equal(projection.pendingEntries, 0, "entries already held are skipped");
    assert.throws(() => projection.committed([entry(5n)]), /expected 4, got 5/);
    await engine.close();
  });
});

describe("reads caught up with the projection", () => {
  class Orders {
    readonly #rows = new Map<number, string>();
    add(id: number, text: string): void {
      this.#rows.set(id, text);
    }
    byId(id: number): string | undefined {
      return this.#rows.get(id);
    }
    async byIdLater(id: number): Promise<string | undefined> {
      return this.#rows.get(id);
    }
  }

  it("catches up before each method, on a class with private fields, synchronous methods staying synchronous", async () => {
    const orders = new Orders();
    let pending: [number, string][] = [[1, "placed"]];
    const catchUp = () => {
      for (const [id, text] of pending) orders.add(id, text);
      pending = [];
    };
    const read = withCaughtUpReads(orders, catchUp);
    assert.equal(read.byId(1), "placed");
    pending.push([2, "filled"]);
    assert.equal(await read.byIdLater(2), "filled");
  });

  it("turns a refused catch-up into a rejection for an async method and a throw for a synchronous one", async () => {
    const read = withCaughtUpReads(new Orders(), () => {
      throw new EngineStoppedError("the read models stopped");
    });
    const later = read.byIdLater(1);
    await assert.rejects(later, /read models stopped/);
    assert.throws(() => read.byId(1), /read models stopped/);
  });

  it("catches up only before the named methods when asked to", () => {
    let calls = 0;
    const read = withCaughtUpReads(new Orders(), () => {
      calls += 1;
    }, ["add"]);
    read.byId(1);
    assert.equal(calls, 0);
    read.add(1, "x");
    assert.equal(calls, 1);
    assert.equal(read.byId(1), "x");
  });
});
