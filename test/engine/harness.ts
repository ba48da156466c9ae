// Helpers shared by the engine tests: an engine over the accounts domain and a memory store, a
// controllable clock, and a gate that holds a commit open until the test releases it.

import { Engine, type EngineLimits } from "../../src/engine/engine.js";
import type { EngineFatalError } from "../../src/engine/errors.js";
import type { EngineStore, Projector } from "../../src/engine/store.js";
import { MemoryEngineStore, type MemoryStoreFaults } from "../../src/store/memory/engine-store.js";
import {
  type AccountCommand,
  type AccountEvent,
  type AccountsState,
  accountsCodec,
  accountsDecider,
} from "./accounts-domain.js";

export type AccountsEngine<Transaction = unknown> = Engine<
  AccountsState,
  AccountCommand,
  AccountEvent,
  Transaction
>;

export interface OpenedEngine<Transaction> {
  readonly engine: AccountsEngine<Transaction>;
  readonly fatalErrors: EngineFatalError[];
  readonly otherErrors: { error: unknown; context: string }[];
}

export async function openAccountsEngine<Transaction>(
  store: EngineStore<AccountCommand, AccountEvent, Transaction>,
  options: {
    clock?: () => number;
    limits?: Partial<EngineLimits>;
    projectors?: Projector<Transaction, AccountCommand, AccountEvent>[];
  } = {},
): Promise<OpenedEngine<Transaction>> {
  const fatalErrors: EngineFatalError[] = [];
  const otherErrors: { error: unknown; context: string }[] = [];
  const engine = await Engine.open({
    decider: accountsDecider,
    codec: accountsCodec,
    store,
    projectors: options.projectors ?? [],
    clock: options.clock ?? (() => 1_700_000_000_000),
    limits: options.limits ?? {},
    onFatal: (error) => fatalErrors.push(error),
    onError: (error, context) => otherErrors.push({ error, context }),
  });
  return { engine, fatalErrors, otherErrors };
}

export function memoryStore(
  faults: MemoryStoreFaults<AccountCommand, AccountEvent> = {},
): MemoryEngineStore<AccountCommand, AccountEvent> {
  return new MemoryEngineStore<AccountCommand, AccountEvent>({ faults });
}

export interface Gate {
  readonly wait: () => Promise<void>;
  readonly open: () => void;
}

/** A promise the test resolves by hand. */
export function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait: () => opened, open };
}

/** Lets every pending setImmediate and microtask run, a few times over. */
export async function settle(turns = 5): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Tracks whether a promise has settled, without awaiting it. */
export function track<T>(promise: Promise<T>): { settled: () => boolean; promise: Promise<T> } {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  return { settled: () => settled, promise };
}

export function encodedState<Transaction>(engine: AccountsEngine<Transaction>): Promise<string> {
  return engine.read((state) => accountsCodec.encode(state));
}

/** A mixed, deterministic command script: opens, deposits, transfers (some refused), holds. */
export function scriptedCommands(count: number): AccountCommand[] {
  const commands: AccountCommand[] = [
    { type: "open", accountId: "alice" },
    { type: "open", accountId: "bob" },
    { type: "open", accountId: "carol" },
  ];
  const names = ["alice", "bob", "carol", "dave"];
  for (let index = 0; commands.length < count; index++) {
    const from = names[index % 4]!;
    const to = names[(index * 7 + 1) % 4]!;
    switch (index % 5) {
      case 0:
        commands.push({ type: "deposit", accountId: from, amount: BigInt(100 + index) });
        break;
      case 1:
      case 2:
        commands.push({ type: "transfer", from, to, amount: BigInt(30 + ((index * 13) % 90)) });
        break;
      case 3:
        commands.push({ type: "hold", accountId: from, amount: 5n, expiresAtMs: 1_700_000_000_000 + index });
        break;
      default:
        commands.push({ type: "transfer", from, to, amount: 1_000_000n });
    }
  }
  return commands;
}
