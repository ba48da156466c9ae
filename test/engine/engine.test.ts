import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SubmitResult } from "../../src/engine/engine.js";
import { EngineFatalError, EngineOverloadedError, EngineStoppedError } from "../../src/engine/errors.js";
import { decodeJournalText } from "../../src/engine/journal-chain.js";
import { MemoryEngineStore } from "../../src/store/memory/engine-store.js";
import {
  type AccountCommand,
  type AccountEvent,
  accountsDecider,
  assertAccountsValid,
} from "./accounts-domain.js";
import {
  encodedState,
  gate,
  memoryStore,
  openAccountsEngine,
  scriptedCommands,
  settle,
  track,
} from "./harness.js";

/** Runs commands one at a time straight through the decider: what the engine must reproduce. */
function sequentialResults(commands: AccountCommand[], nowMs: number): SubmitResult<AccountEvent>[] {
  let state = accountsDecider.initialState();
  let sequence = 0n;
  return commands.map((command) => {
    const decision = accountsDecider.decide(state, command, { nowMs, sequence: sequence + 1n });
    if (!decision.ok) return { ok: false, rejection: decision.rejection };
    for (const event of decision.events) state = accountsDecider.evolve(state, event);
    sequence += 1n;
    return { ok: true, sequence, nowMs, events: decision.events };
  });
}

describe("engine: sequencing and group commit", () => {
  it("answers each of many concurrent submits once, in submission order, as a sequential run would", async () => {
    const store = memoryStore();
    const { engine } = await openAccountsEngine(store, { limits: { journalBatchCommandsMax: 64 } });
    const commands = scriptedCommands(1000);
    const results = await Promise.all(commands.map((command) => engine.submit(command)));

    assert.deepEqual(results, sequentialResults(commands, 1_700_000_000_000));
    const accepted = results.filter((result) => result.ok);
    assert.ok(
      accepted.length > 100 && accepted.length < 1000,
      "the script mixes accepted and refused commands",
    );
    assert.equal(engine.committedSequence, BigInt(accepted.length));
    assert.equal(store.durableImage.journal.length, accepted.length);
    // 1000 commands in batches of at most 64: group commit, not one transaction per command.
    assert.equal(store.commitCount, Math.ceil(1000 / 64));
    await engine.read((state) => assertAccountsValid(state));
  });

  it("groups commands that arrive while a commit is in flight into the next batch", async () => {
    const commitGate = gate();
    const batchSizes: number[] = [];
    const store = memoryStore({
      beforeCommit: async (commitNumber, entries) => {
        batchSizes.push(entries.length);
        if (commitNumber === 1) await commitGate.wait();
      },
    });
    const { engine } = await openAccountsEngine(store);
    const first = engine.submit({ type: "open", accountId: "alice" });
    await settle();
    const waiting = Array.from({ length: 50 }, () =>
      engine.submit({ type: "deposit", accountId: "alice", amount: 1n }),
    );
    await settle();
    assert.deepEqual(batchSizes, [1]);
    commitGate.open();
    await Promise.all([first, ...waiting]);
    assert.deepEqual(batchSizes, [1, 50]);
  });

  it("refuses a command without changing state or the journal", async () => {
    const store = memoryStore();
    const { engine } = await openAccountsEngine(store);
    await engine.submit({ type: "open", accountId: "alice" });
    await engine.submit({ type: "open", accountId: "bob" });
    await engine.submit({ type: "deposit", accountId: "alice", amount: 10n });
    const before = await encodedState(engine);
    const commitsBefore = store.commitCount;

    const result = await engine.submit({ type: "transfer", from: "alice", to: "bob", amount: 11n });

    assert.deepEqual(result, { ok: false, rejection: { code: "INSUFFICIENT_BALANCE" } });
    assert.equal(await encodedState(engine), before);
    assert.equal(engine.committedSequence, 3n);
    assert.equal(store.durableImage.journal.length, 3);
    assert.equal(store.commitCount, commitsBefore, "a batch of only refusals writes nothing");
  });

  it("does not reuse or skip a sequence number around refused commands", async () => {
    const { engine } = await openAccountsEngine(memoryStore());
    const results = await Promise.all([
      engine.submit({ type: "open", accountId: "alice" }),
      engine.submit({ type: "open", accountId: "alice" }),
      engine.submit({ type: "hold", accountId: "alice", amount: 1n, expiresAtMs: Number.MAX_SAFE_INTEGER }),
      engine.submit({ type: "deposit", accountId: "alice", amount: 5n }),
      engine.submit({ type: "hold", accountId: "alice", amount: 1n, expiresAtMs: Number.MAX_SAFE_INTEGER }),
    ]);
    assert.deepEqual(
      results.map((result) => (result.ok ? result.sequence : result.rejection.code)),
      [1n, "INVALID_INPUT", "INSUFFICIENT_BALANCE", 2n, 3n],
    );
    // The decider saw the sequence it was about to be given: the hold's id is its sequence.
    assert.deepEqual(results[4], {
      ok: true,
      sequence: 3n,
      nowMs: 1_700_000_000_000,
      events: [
        { type: "held", holdId: 3n, accountId: "alice", amount: 1n, expiresAtMs: Number.MAX_SAFE_INTEGER },
      ],
    });
  });
});

describe("engine: fairness", () => {
  it("yields to the event loop between batches, so I/O and timers run while submitters keep it busy", async () => {
    const { engine } = await openAccountsEngine(memoryStore());
    await engine.submit({ type: "open", accountId: "alice" });
    // Submitters that resubmit as soon as they are answered never leave the microtask queue; a
    // drain loop that did not yield would run them all before any I/O callback (a socket that
    // must flush, a request, a timer): a child process writing acknowledgements to a full pipe
    // once queued them in memory until it ran out.
    const submittersTotal = 8;
    const submitsEach = 500;
    let answered = 0;
    let answeredWhenImmediateRan: number | undefined;
    setImmediate(() => {
      answeredWhenImmediateRan = answered;
    });
    const submitter = async () => {
      for (let index = 0; index < submitsEach; index += 1) {
        await engine.submit({ type: "deposit", accountId: "alice", amount: 1n });
        answered += 1;
      }
    };
    await Promise.all(Array.from({ length: submittersTotal }, submitter));
    assert.ok(answeredWhenImmediateRan !== undefined, "the event loop got a turn during the burst");
    assert.ok(answeredWhenImmediateRan < submittersTotal * submitsEach);
  });
});

describe("engine: acknowledgement and failure", () => {
  it("answers only after the batch has committed", async () => {
    const commitGate = gate();
    const store = memoryStore({ beforeCommit: () => commitGate.wait() });
    const { engine } = await openAccountsEngine(store);
    const submitted = track(engine.submit({ type: "open", accountId: "alice" }));
    await settle();
    assert.equal(submitted.settled(), false);
    assert.equal(engine.committedSequence, 0n);
    commitGate.open();
    assert.equal((await submitted.promise).ok, true);
    assert.equal(engine.committedSequence, 1n);
  });

  it("answers a refused command after the batch it was in commits, so answers stay in order", async () => {
    const commitGate = gate();
    const { engine } = await openAccountsEngine(memoryStore({ beforeCommit: () => commitGate.wait() }));
    const accepted = track(engine.submit({ type: "open", accountId: "alice" }));
    const refused = track(engine.submit({ type: "open", accountId: "alice" }));
    await settle();
    assert.equal(refused.settled(), false);
    commitGate.open();
    assert.equal((await refused.promise).ok, false);
    assert.equal((await accepted.promise).ok, true);
  });

  it("lets reads see only committed state, waiting for an in-flight commit", async () => {
    const commitGate = gate();
    const { engine } = await openAccountsEngine(
      memoryStore({ beforeCommit: (number) => (number === 2 ? commitGate.wait() : undefined) }),
    );
    await engine.submit({ type: "open", accountId: "alice" });
    const deposit = engine.submit({ type: "deposit", accountId: "alice", amount: 7n });
    await settle();
    const read = track(
      engine.read((state, position) => [state.accounts.get("alice")?.available, position.sequence]),
    );
    await settle();
    assert.equal(read.settled(), false, "the read waits for the commit instead of seeing uncommitted state");
    commitGate.open();
    await deposit;
    assert.deepEqual(await read.promise, [7n, 2n]);
  });

  it("bounds the reads waiting for a commit, and a throwing reader fails only its own read", async () => {
    const commitGate = gate();
    const { engine } = await openAccountsEngine(memoryStore({ beforeCommit: () => commitGate.wait() }), {
      limits: { readersWaitingMax: 2 },
    });
    await assert.rejects(
      engine.read(() => {
        throw new Error("reader bug");
      }),
      /reader bug/,
    );
    const submitted = engine.submit({ type: "open", accountId: "alice" });
    await settle();
    const waiting = [
      engine.read((state) => state.accounts.size),
      engine.read((state) => state.accounts.size),
    ];
    await assert.rejects(
      engine.read(() => 0),
      EngineOverloadedError,
    );
    commitGate.open();
    await submitted;
    assert.deepEqual(await Promise.all(waiting), [1, 1]);
    assert.equal(engine.phase, "running");
  });

  it("stops for good when a commit fails: never acknowledges it, refuses everything after", async () => {
    const store = memoryStore({
      beforeCommit: (number) => {
        if (number === 2) throw new Error("disk full");
      },
    });
    const { engine, fatalErrors } = await openAccountsEngine(store);
    await engine.submit({ type: "open", accountId: "alice" });
    const failed = engine.submit({ type: "deposit", accountId: "alice", amount: 5n });
    await assert.rejects(failed, EngineFatalError);
    assert.equal(fatalErrors.length, 1);
    assert.match(fatalErrors[0]!.message, /disk full/);
    assert.equal(engine.phase, "failed");
    assert.equal(engine.committedSequence, 1n);
    await assert.rejects(engine.submit({ type: "open", accountId: "bob" }), EngineStoppedError);
    await assert.rejects(
      engine.read(() => 1),
      EngineStoppedError,
    );
  });

  it("fails the batch being written as an unknown outcome and every queued command as not taken", async () => {
    const commitGate = gate();
    const store = memoryStore({
      beforeCommit: async () => {
        await commitGate.wait();
        throw new Error("I/O error");
      },
    });
    const { engine, fatalErrors } = await openAccountsEngine(store, {
      limits: { journalBatchCommandsMax: 2 },
    });
    const submits = Array.from({ length: 7 }, (_, index) =>
      engine.submit({ type: "open", accountId: `u${index}` }),
    );
    await settle();
    commitGate.open();
    const outcomes = await Promise.allSettled(submits);
    // The first batch (two commands) reached the store: it may or may not be in the journal. The
    // other five never left the queue: nothing was done for them.
    assert.deepEqual(
      outcomes.map((outcome) =>
        outcome.status === "rejected" ? (outcome.reason as Error).constructor.name : "fulfilled",
      ),
      ["EngineFatalError", "EngineFatalError", ...Array.from({ length: 5 }, () => "EngineStoppedError")],
    );
    assert.equal(fatalErrors.length, 1);
    assert.equal(fatalErrors[0]!.origin, "store", "a failed commit: the store still holds the truth");
    assert.equal(store.commitCount, 1);
  });

  it("stops when the core throws (a broken invariant), without journaling the batch", async () => {
    const store = memoryStore();
    const { engine, fatalErrors } = await openAccountsEngine(store);
    await engine.submit({ type: "open", accountId: "alice" });
    const results = await Promise.allSettled([
      engine.submit({ type: "deposit", accountId: "alice", amount: 1n }),
      engine.submit({ type: "explode" }),
    ]);
    assert.deepEqual(
      results.map((result) => result.status),
      ["rejected", "rejected"],
    );
    assert.equal(fatalErrors.length, 1);
    assert.equal(fatalErrors[0]!.origin, "core", "the core threw: a programmer error, not the store's");
    assert.equal(store.durableImage.journal.length, 1);
  });
});

describe("engine: time, limits, listeners, shutdown", () => {
  it("never lets nowMs go backwards, even when the clock does", async () => {
    const readings = [1000, 900, 2000, 1500, 1500, 3000];
    let reading = 0;
    const clock = () => readings[Math.min(reading++, readings.length - 1)]!;
    const store = memoryStore();
    const { engine } = await openAccountsEngine(store, { clock });
    const seen: number[] = [];
    for (const accountId of ["a", "b", "c", "d", "e", "f"]) {
      const result = await engine.submit({ type: "open", accountId });
      assert.ok(result.ok);
      seen.push(result.nowMs);
    }
    assert.deepEqual(seen, [1000, 1000, 2000, 2000, 2000, 3000]);
    await engine.close();

    // After a restart the floor is the journal's last time, not whatever the clock says.
    const restarted = await openAccountsEngine(store, { clock: () => 10 });
    const result = await restarted.engine.submit({ type: "open", accountId: "g" });
    assert.ok(result.ok);
    assert.equal(result.nowMs, 3000);
  });

  it("refuses fast with EngineOverloadedError when the queue is full", async () => {
    const commitGate = gate();
    const { engine } = await openAccountsEngine(memoryStore({ beforeCommit: () => commitGate.wait() }), {
      limits: { queueCommandsMax: 4 },
    });
    const submits = Array.from({ length: 6 }, (_, index) =>
      engine.submit({ type: "open", accountId: `u${index}` }),
    );
    const outcomes = await Promise.allSettled(submits.slice(4));
    for (const outcome of outcomes) {
      assert.equal(outcome.status, "rejected");
      assert.ok(outcome.reason instanceof EngineOverloadedError);
      assert.equal(outcome.reason.limitName, "queueCommandsMax");
    }
    commitGate.open();
    const accepted = await Promise.all(submits.slice(0, 4));
    assert.ok(accepted.every((result) => result.ok));
    // Once the queue has drained, commands are taken again.
    assert.equal((await engine.submit({ type: "open", accountId: "late" })).ok, true);
  });

  it("tells listeners about each committed batch, in order, and survives a throwing listener", async () => {
    const { engine, otherErrors } = await openAccountsEngine(memoryStore(), {
      limits: { journalBatchCommandsMax: 3 },
    });
    const seen: bigint[] = [];
    engine.onCommitted(() => {
      throw new Error("listener bug");
    });
    const unsubscribe = engine.onCommitted((entries) => seen.push(...entries.map((entry) => entry.sequence)));
    await Promise.all(scriptedCommands(40).map((command) => engine.submit(command)));
    assert.deepEqual(
      seen,
      Array.from({ length: Number(engine.committedSequence) }, (_, index) => BigInt(index + 1)),
    );
    assert.ok(otherErrors.length > 0 && otherErrors.every((error) => error.context === "listener"));
    assert.equal(engine.phase, "running");
    unsubscribe();
    await engine.submit({ type: "open", accountId: "zed" });
    assert.equal(seen.length, Number(engine.committedSequence) - 1);
  });

  it("on close, commits what is queued, writes a snapshot and refuses new commands", async () => {
    const store = memoryStore();
    const { engine } = await openAccountsEngine(store);
    const queued = scriptedCommands(30).map((command) => engine.submit(command));
    const closing = engine.close();
    await assert.rejects(engine.submit({ type: "open", accountId: "late" }), EngineStoppedError);
    await closing;
    const results = await Promise.all(queued);
    assert.equal(results.length, 30);
    assert.equal(engine.phase, "closed");
    const snapshot = await store.loadLatestSnapshot();
    assert.equal(snapshot?.sequence, engine.committedSequence);
    assert.equal(snapshot?.state, await encodedState(engine));

    const reopened = await openAccountsEngine(store);
    assert.equal(reopened.engine.committedSequence, engine.committedSequence);
    assert.equal(await encodedState(reopened.engine), snapshot?.state);
  });

  it("hands the projectors every committed entry inside the commit", async () => {
    const store = new MemoryEngineStore<AccountCommand, AccountEvent>();
    const { engine } = await openAccountsEngine(store, {
      projectors: [
        (transaction, entries) => {
          for (const entry of entries) {
            for (const event of entry.events) {
              if (event.type === "deposited") {
                const total = (transaction.get(`deposits:${event.accountId}`) as bigint | undefined) ?? 0n;
                transaction.set(`deposits:${event.accountId}`, total + event.amount);
              }
            }
          }
        },
      ],
    });
    const commands = scriptedCommands(200);
    await Promise.all(commands.map((command) => engine.submit(command)));
    const state = await engine.read((current) => current);
    for (const [accountId] of state.accounts) {
      const expected = store.durableImage.journal
        .flatMap((entry) =>
          decodeJournalText<{ type: string; accountId?: string; amount?: bigint }[]>(entry.events),
        )
        .filter((event) => event.type === "deposited" && event.accountId === accountId)
        .reduce((sum, event) => sum + event.amount!, 0n);
      assert.equal(store.readModel(`deposits:${accountId}`) ?? 0n, expected);
    }
  });
});

describe("engine: commands submitted together (submitMany)", () => {
  it("decides a group in order in one batch, one commit time, each its own result and journal entry", async () => {
    const batchSizes: number[] = [];
    const store = memoryStore({
      beforeCommit: async (_commitNumber, entries) => {
        batchSizes.push(entries.length);
      },
    });
    const { engine } = await openAccountsEngine(store, { limits: { journalBatchCommandsMax: 8 } });
    const group: AccountCommand[] = [
      { type: "open", accountId: "alice" },
      { type: "open", accountId: "alice" }, // refused: it stands alone and stops nothing
      { type: "deposit", accountId: "alice", amount: 5n },
    ];
    const results = await engine.submitMany(group);
    assert.deepEqual(results, sequentialResults(group, 1_700_000_000_000));
    assert.deepEqual(batchSizes, [2]);
    assert.deepEqual(await engine.submitMany([]), []);
  });

  it("starts a new batch rather than split a group that fits in one, and splits only a larger one", async () => {
    const commitGate = gate();
    const batches: string[][] = [];
    const store = memoryStore({
      beforeCommit: async (commitNumber, entries) => {
        batches.push(entries.map((entry) => (entry.command as { accountId: string }).accountId));
        if (commitNumber === 1) await commitGate.wait();
      },
    });
    const { engine } = await openAccountsEngine(store, { limits: { journalBatchCommandsMax: 4 } });
    const open = (accountId: string): AccountCommand => ({ type: "open", accountId });
    const first = engine.submit(open("first"));
    await settle();
    // While the first batch commits: three singles, a group of three, one single, a group of six.
    const answers = [
      engine.submit(open("s1")),
      engine.submit(open("s2")),
      engine.submit(open("s3")),
      engine.submitMany([open("g1"), open("g2"), open("g3")]),
      engine.submit(open("s4")),
      engine.submitMany(["h1", "h2", "h3", "h4", "h5", "h6"].map(open)),
    ];
    commitGate.open();
    await Promise.all([first, ...answers]);
    assert.deepEqual(batches, [
      ["first"],
      ["s1", "s2", "s3"],
      ["g1", "g2", "g3", "s4"],
      ["h1", "h2", "h3", "h4"],
      ["h5", "h6"],
    ]);
  });

  it("queues a group all or none: when the queue has no room for every command, none is queued", async () => {
    const commitGate = gate();
    const { engine } = await openAccountsEngine(memoryStore({ beforeCommit: () => commitGate.wait() }), {
      limits: { queueCommandsMax: 4 },
    });
    const first = engine.submit({ type: "open", accountId: "a" });
    await settle();
    const queued = [
      engine.submit({ type: "open", accountId: "b" }),
      engine.submit({ type: "open", accountId: "c" }),
    ];
    await assert.rejects(
      engine.submitMany(["d", "e", "f"].map((accountId): AccountCommand => ({ type: "open", accountId }))),
      (error: unknown) => error instanceof EngineOverloadedError && error.limitName === "queueCommandsMax",
    );
    assert.equal(engine.queuedCommands, 2, "nothing of the refused group was queued");
    const fits = engine.submitMany(
      ["d", "e"].map((accountId): AccountCommand => ({ type: "open", accountId })),
    );
    commitGate.open();
    await Promise.all([first, ...queued, fits]);
    assert.deepEqual(await engine.read((state) => [...state.accounts.keys()].sort()), [
      "a",
      "b",
      "c",
      "d",
      "e",
    ]);
  });

  it("refuses a group once the engine is closed", async () => {
    const { engine } = await openAccountsEngine(memoryStore());
    await engine.close();
    await assert.rejects(
      engine.submitMany([{ type: "open", accountId: "late" }]),
      (error: unknown) => error instanceof EngineStoppedError,
    );
  });
});
