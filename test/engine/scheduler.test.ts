import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startScheduler } from "../../src/engine/scheduler.js";
import { type AccountCommand, type AccountsState, expiredHolds } from "./accounts-domain.js";
import { encodedState, memoryStore, openAccountsEngine, settle } from "./harness.js";

const startMs = 1_700_000_000_000;

/** The time-driven work of the accounts domain: release holds whose time has come. */
function dueCommands(state: Readonly<AccountsState>, nowMs: number): AccountCommand[] {
  return expiredHolds(state, nowMs, 1).length > 0 ? [{ type: "releaseExpiredHolds" }] : [];
}

async function engineWithHolds(clock: () => number) {
  const store = memoryStore();
  const opened = await openAccountsEngine(store, { clock });
  const { engine } = opened;
  await engine.submit({ type: "open", accountId: "alice" });
  await engine.submit({ type: "deposit", accountId: "alice", amount: 100n });
  await engine.submit({ type: "hold", accountId: "alice", amount: 10n, expiresAtMs: startMs + 1_000 });
  await engine.submit({ type: "hold", accountId: "alice", amount: 20n, expiresAtMs: startMs + 5_000 });
  return { ...opened, store };
}

describe("scheduler", () => {
  it("submits what is due at the current time, and nothing before", async () => {
    let nowMs = startMs;
    const { engine } = await engineWithHolds(() => nowMs);
    const scheduler = startScheduler({ engine, due: dueCommands, clock: () => nowMs, intervalMs: 60_000 });
    await scheduler.tick();
    assert.equal(await engine.read((state) => state.holds.size), 2);
    nowMs = startMs + 1_000;
    await scheduler.tick();
    assert.deepEqual(await engine.read((state) => [...state.holds.keys()]), [4n]);
    await scheduler.tick();
    assert.equal(await engine.read((state) => state.holds.size), 1, "a second tick finds nothing new");
    await scheduler.stop();
  });

  it("catches up after a restart from state, without repeating anything", async () => {
    let nowMs = startMs;
    const { store } = await engineWithHolds(() => nowMs);
    // The process dies before any tick ran; both holds expire while it is down.
    nowMs = startMs + 10_000;
    const { engine } = await openAccountsEngine(store.crash(), { clock: () => nowMs });
    const rejected: string[] = [];
    const scheduler = startScheduler({
      engine,
      due: dueCommands,
      clock: () => nowMs,
      intervalMs: 60_000,
      onRejected: (_command, rejection) => rejected.push(rejection.code),
    });
    await scheduler.tick();
    await scheduler.tick();
    await scheduler.stop();
    assert.equal(await engine.read((state) => state.holds.size), 0);
    assert.deepEqual(
      await engine.read((state) => [
        state.accounts.get("alice")?.available,
        state.accounts.get("alice")?.frozen,
      ]),
      [100n, 0n],
    );
    assert.deepEqual(rejected, []);
  });

  it("bounds the commands of one tick and never overlaps ticks", async () => {
    const { engine } = await openAccountsEngine(memoryStore());
    await engine.submit({ type: "open", accountId: "alice" });
    const submittedPerTick: number[] = [];
    const scheduler = startScheduler<AccountsState, AccountCommand, unknown>({
      engine: {
        read: (reader) => engine.read(reader),
        submit: (command) => {
          submittedPerTick[submittedPerTick.length - 1]! += 1;
          return engine.submit(command);
        },
      },
      due: (_state, _nowMs, limit) => {
        submittedPerTick.push(0);
        return Array.from({ length: limit + 5 }, (_, index) => ({
          type: "open" as const,
          accountId: `u${index}`,
        }));
      },
      commandsPerTickMax: 3,
      intervalMs: 60_000,
      onRejected: () => {},
    });
    const first = scheduler.tick();
    const overlapping = scheduler.tick();
    assert.equal(first, overlapping, "a tick still in flight is not started twice");
    await first;
    assert.deepEqual(submittedPerTick, [3]);
    await scheduler.stop();
  });

  it("ticks on its own timer until stopped", async () => {
    let nowMs = startMs;
    const { engine } = await engineWithHolds(() => nowMs);
    nowMs = startMs + 2_000;
    const before = await encodedState(engine);
    const scheduler = startScheduler({ engine, due: dueCommands, clock: () => nowMs, intervalMs: 5 });
    for (
      let attempt = 0;
      attempt < 100 && (await engine.read((state) => state.holds.size)) !== 1;
      attempt++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await scheduler.stop();
    assert.notEqual(await encodedState(engine), before);
    assert.equal(await engine.read((state) => state.holds.size), 1);
    nowMs += 10_000;
    await settle();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(await engine.read((state) => state.holds.size), 1, "a stopped scheduler does nothing");
  });
});
