import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { Engine } from "../../src/engine/engine.js";
import { JournalCorruptionError } from "../../src/engine/errors.js";
import { hashEncodedState, recoverState } from "../../src/engine/recovery.js";
import type { AccountCommand } from "./accounts-domain.js";
import { accountsCodec, accountsDecider, assertAccountsValid } from "./accounts-domain.js";
import { type CrashPoint, type CrashScenario, expectedEncoding, runCrashScenario } from "./crash-scenario.js";
import { encodedState, memoryStore, openAccountsEngine, scriptedCommands } from "./harness.js";

function groupsOf(commands: AccountCommand[], sizes: number[]): AccountCommand[][] {
  const groups: AccountCommand[][] = [];
  let index = 0;
  for (let turn = 0; index < commands.length; turn++) {
    const size = sizes[turn % sizes.length]!;
    groups.push(commands.slice(index, index + size));
    index += size;
  }
  return groups;
}

/** Recovers from the survivor and checks it against what was acknowledged. */
async function assertRecoversAcknowledged(scenario: CrashScenario): Promise<void> {
  const outcome = await runCrashScenario(scenario);
  const { engine: recovered } = await openAccountsEngine(outcome.survivor);
  const label = JSON.stringify(scenario.crashAt);

  assert.equal(await encodedState(recovered), expectedEncoding(outcome), label);
  const durable = BigInt(outcome.acknowledged.size + outcome.durableUnacknowledged.length);
  assert.equal(recovered.committedSequence, durable, label);
  // Every acknowledged command is in the journal exactly as it was answered.
  for await (const batch of outcome.survivor.readJournal(0n)) {
    for (const entry of batch) {
      const answered = outcome.acknowledged.get(entry.sequence);
      if (answered !== undefined) assert.deepEqual(entry.events, answered, label);
    }
  }
  const verification = await recovered.verifyReplay();
  assert.ok(verification.identical, label);
  await recovered.read((state) => assertAccountsValid(state));
  // The recovered engine carries on numbering where the journal ends.
  const next = await recovered.submit({ type: "open", accountId: "after-crash" });
  assert.ok(next.ok);
  assert.equal(next.sequence, durable + 1n);
}

describe("recovery", () => {
  const baseScenario = {
    groups: groupsOf(scriptedCommands(60), [1, 7, 3, 12]),
    journalBatchCommandsMax: 4,
    snapshotEveryCommands: 5,
    clockStepsMs: [3, 0, 11],
  };

  it("recovers exactly the acknowledged commands after a crash at every write boundary", async () => {
    const dryRun = await runCrashScenario({ ...baseScenario, crashAt: { kind: "never" } });
    assert.ok(dryRun.commits > 10 && dryRun.snapshots > 3, "the script crosses many write boundaries");
    const points: CrashPoint[] = [{ kind: "never" }];
    for (let number = 1; number <= dryRun.commits; number++) {
      points.push({ kind: "beforeCommit", number }, { kind: "afterCommit", number });
    }
    for (let number = 1; number <= dryRun.snapshots; number++)
      points.push({ kind: "beforeSnapshot", number });
    for (const crashAt of points) {
      await assertRecoversAcknowledged({ ...baseScenario, crashAt });
    }
  });

  it("a crash before a commit loses only unacknowledged commands; after it, loses no durable one", async () => {
    const before = await runCrashScenario({ ...baseScenario, crashAt: { kind: "beforeCommit", number: 4 } });
    assert.equal(before.durableUnacknowledged.length, 0);
    assert.equal((await before.survivor.lastSequence()) > 0n, true);
    assert.equal(await before.survivor.lastSequence(), BigInt(before.acknowledged.size));

    const after = await runCrashScenario({ ...baseScenario, crashAt: { kind: "afterCommit", number: 4 } });
    assert.ok(after.durableUnacknowledged.length > 0);
    assert.equal(
      await after.survivor.lastSequence(),
      BigInt(after.acknowledged.size + after.durableUnacknowledged.length),
    );
  });

  it("rebuilds byte-identical state: live == snapshot + journal tail == full journal replay", async () => {
    const store = memoryStore();
    const { engine } = await openAccountsEngine(store, {
      limits: { snapshotEveryCommands: 7, journalBatchCommandsMax: 5 },
    });
    for (const group of groupsOf(scriptedCommands(300), [1, 9, 4])) {
      await Promise.all(group.map((command) => engine.submit(command)));
    }
    const verification = await engine.verifyReplay();
    assert.ok(verification.identical);
    assert.ok(verification.snapshotReplayHash !== undefined, "a snapshot was there to replay from");
    assert.equal(verification.fullReplayHash, verification.liveHash);
    assert.equal(verification.snapshotReplayHash, verification.liveHash);
    const snapshot = await store.loadLatestSnapshot();
    assert.ok(
      snapshot !== undefined && snapshot.sequence < engine.committedSequence,
      "a journal tail is replayed",
    );

    const restarted = await openAccountsEngine(store.crash());
    assert.equal(await encodedState(restarted.engine), await encodedState(engine));
  });

  it("keeps serving when a periodic snapshot fails, and recovers from the journal", async () => {
    const store = memoryStore({
      beforeSnapshot: (number) => {
        if (number % 2 === 1) throw new Error("snapshot disk full");
      },
    });
    const { engine, otherErrors } = await openAccountsEngine(store, { limits: { snapshotEveryCommands: 3 } });
    for (const command of scriptedCommands(40)) await engine.submit(command);
    assert.equal(engine.phase, "running");
    assert.ok(otherErrors.some((error) => error.context === "snapshot"));
    const restarted = await openAccountsEngine(store.crash());
    assert.equal(await encodedState(restarted.engine), await encodedState(engine));
  });

  it("checks the core's invariants on the recovered state before taking commands", async () => {
    const store = memoryStore();
    const { engine } = await openAccountsEngine(store);
    for (const command of scriptedCommands(20)) await engine.submit(command);
    const snapshots = store.durableImage.snapshots;
    await engine.close();
    // A snapshot whose hash is right but whose money does not add up: only the invariant sees it.
    const last = snapshots[snapshots.length - 1]!;
    const broken = accountsCodec.decode(last.state);
    broken.deposited += 1n;
    const state = accountsCodec.encode(broken);
    snapshots[snapshots.length - 1] = { ...last, state, hash: hashEncodedState(state) };
    await assert.rejects(
      Engine.open({
        decider: accountsDecider,
        codec: accountsCodec,
        store,
        assertState: assertAccountsValid,
        onFatal: () => {},
      }),
      /money is conserved/,
    );
  });

  it("refuses a snapshot that does not match its hash", async () => {
    const store = memoryStore();
    const { engine } = await openAccountsEngine(store);
    for (const command of scriptedCommands(10)) await engine.submit(command);
    await engine.close();
    const snapshots = store.durableImage.snapshots;
    const last = snapshots[snapshots.length - 1]!;
    snapshots[snapshots.length - 1] = { ...last, state: last.state.replace("alice", "alicf") };
    await assert.rejects(recoverState(accountsDecider, accountsCodec, store), JournalCorruptionError);
  });

  it("refuses a journal with a gap", async () => {
    const store = memoryStore();
    const { engine } = await openAccountsEngine(store);
    for (const command of scriptedCommands(10)) await engine.submit(command);
    store.durableImage.journal.splice(3, 1);
    await assert.rejects(recoverState(accountsDecider, accountsCodec, store), /Journal gap|Journal ends/);
  });

  it("refuses a snapshot that is ahead of the journal", async () => {
    const store = memoryStore();
    const { engine } = await openAccountsEngine(store);
    for (const command of scriptedCommands(10)) await engine.submit(command);
    await engine.close();
    store.durableImage.journal.pop();
    await assert.rejects(recoverState(accountsDecider, accountsCodec, store), /ahead of the journal/);
  });
});

const accountIds = ["a", "b", "c"] as const;
const commandArbitrary: fc.Arbitrary<AccountCommand> = fc.oneof(
  fc.record({ type: fc.constant("open" as const), accountId: fc.constantFrom(...accountIds) }),
  fc.record({
    type: fc.constant("deposit" as const),
    accountId: fc.constantFrom(...accountIds),
    amount: fc.bigInt({ min: -5n, max: 1000n }),
  }),
  fc.record({
    type: fc.constant("transfer" as const),
    from: fc.constantFrom(...accountIds),
    to: fc.constantFrom(...accountIds),
    amount: fc.bigInt({ min: 1n, max: 600n }),
  }),
  fc.record({
    type: fc.constant("hold" as const),
    accountId: fc.constantFrom(...accountIds),
    amount: fc.bigInt({ min: 1n, max: 300n }),
    expiresAtMs: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_400 }),
  }),
  fc.constant({ type: "releaseExpiredHolds" as const }),
);

const crashPointArbitrary: fc.Arbitrary<CrashPoint> = fc.oneof(
  fc.record({ kind: fc.constant("beforeCommit" as const), number: fc.integer({ min: 1, max: 30 }) }),
  fc.record({ kind: fc.constant("afterCommit" as const), number: fc.integer({ min: 1, max: 30 }) }),
  fc.record({ kind: fc.constant("beforeSnapshot" as const), number: fc.integer({ min: 1, max: 6 }) }),
  fc.constant({ kind: "never" as const }),
);

describe("recovery property", () => {
  it("random command streams with a random crash point recover to exactly the acknowledged prefix", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(commandArbitrary, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 25 }),
        crashPointArbitrary,
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.integer({ min: -20, max: 40 }), { minLength: 1, maxLength: 4 }),
        async (groups, crashAt, journalBatchCommandsMax, snapshotEveryCommands, clockStepsMs) => {
          await assertRecoversAcknowledged({
            groups,
            crashAt,
            journalBatchCommandsMax,
            snapshotEveryCommands,
            clockStepsMs,
          });
        },
      ),
      { numRuns: Number(process.env.PREDEX_PROPERTY_RUNS ?? 300) },
    );
  });
});
