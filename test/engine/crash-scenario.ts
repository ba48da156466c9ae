// Runs the accounts engine over a memory store and "kills the process" at a chosen write boundary:
// the store is crashed right there (what was durable survives, nothing in flight lands), the old
// engine dies on its next write, and a new engine recovers from the survivor. The scenario records
// exactly which commands were acknowledged, so tests can compare the recovered state with them.

import type { JournalEntry } from "../../src/engine/store.js";
import type { MemoryEngineStore, MemoryTransaction } from "../../src/store/memory/engine-store.js";
import { type AccountCommand, type AccountEvent, accountsCodec, foldEvents } from "./accounts-domain.js";
import { type AccountsEngine, memoryStore, openAccountsEngine } from "./harness.js";

export type CrashPoint =
  | { readonly kind: "beforeCommit"; readonly number: number }
  | { readonly kind: "afterCommit"; readonly number: number }
  | { readonly kind: "beforeSnapshot"; readonly number: number }
  | { readonly kind: "never" };

export interface CrashScenario {
  /** Commands in submission order, split into groups submitted together (each group awaited). */
  readonly groups: readonly (readonly AccountCommand[])[];
  readonly crashAt: CrashPoint;
  readonly journalBatchCommandsMax: number;
  readonly snapshotEveryCommands: number;
  /** Clock readings advance by these steps, cycling. */
  readonly clockStepsMs: readonly number[];
}

export interface CrashOutcome {
  /** Accepted commands that were acknowledged, by sequence. */
  readonly acknowledged: Map<bigint, readonly AccountEvent[]>;
  /** Entries that became durable but whose acknowledgement was lost with the crash. */
  readonly durableUnacknowledged: readonly JournalEntry<AccountCommand, AccountEvent>[];
  readonly commits: number;
  readonly snapshots: number;
  readonly crashed: boolean;
  /** The store as it is after the crash (or after a clean run). */
  readonly survivor: MemoryEngineStore<AccountCommand, AccountEvent>;
  /** The engine that was running before the crash. */
  readonly engine: AccountsEngine<MemoryTransaction>;
}

export async function runCrashScenario(scenario: CrashScenario): Promise<CrashOutcome> {
  let survivor: MemoryEngineStore<AccountCommand, AccountEvent> | undefined;
  let durableUnacknowledged: readonly JournalEntry<AccountCommand, AccountEvent>[] = [];
  const crashHere = (): never => {
    survivor = store.crash();
    throw new Error("power cut");
  };
  const matches = (kind: CrashPoint["kind"], number: number) =>
    survivor === undefined &&
    scenario.crashAt.kind === kind &&
    "number" in scenario.crashAt &&
    scenario.crashAt.number === number;
  const store: MemoryEngineStore<AccountCommand, AccountEvent> = memoryStore({
    beforeCommit: (number) => {
      if (matches("beforeCommit", number)) crashHere();
    },
    afterCommit: (number, entries) => {
      if (!matches("afterCommit", number)) return;
      durableUnacknowledged = entries;
      crashHere();
    },
    beforeSnapshot: (number) => {
      if (matches("beforeSnapshot", number)) crashHere();
    },
  });

  let nowMs = 1_700_000_000_000;
  let step = 0;
  const clock = () => {
    nowMs += scenario.clockStepsMs[step++ % scenario.clockStepsMs.length] ?? 0;
    return nowMs;
  };
  const { engine } = await openAccountsEngine(store, {
    clock,
    limits: {
      journalBatchCommandsMax: scenario.journalBatchCommandsMax,
      snapshotEveryCommands: scenario.snapshotEveryCommands,
    },
  });
  const acknowledged = new Map<bigint, readonly AccountEvent[]>();
  for (const group of scenario.groups) {
    if (engine.phase !== "running") break;
    const outcomes = await Promise.allSettled(group.map((command) => engine.submit(command)));
    for (const outcome of outcomes) {
      if (outcome.status === "fulfilled" && outcome.value.ok)
        acknowledged.set(outcome.value.sequence, outcome.value.events);
    }
  }
  try {
    await engine.close();
  } catch (error) {
    // The final snapshot of close() is a write boundary too; past the crash, every write fails.
    if (survivor === undefined) throw error;
  }
  return {
    acknowledged,
    durableUnacknowledged,
    commits: store.commitCount,
    snapshots: store.snapshotCount,
    crashed: survivor !== undefined,
    survivor: survivor ?? store.crash(),
    engine,
  };
}

/** The encoding of the state the acknowledged (plus durable but unacknowledged) commands make. */
export function expectedEncoding(outcome: CrashOutcome): string {
  const sequences = [...outcome.acknowledged.keys()].sort((a, b) => (a < b ? -1 : 1));
  const events = sequences.flatMap((sequence) => outcome.acknowledged.get(sequence)!);
  events.push(...outcome.durableUnacknowledged.flatMap((entry) => entry.events));
  return accountsCodec.encode(foldEvents(events));
}
