// A small but real domain for testing the engine: accounts with available and frozen balances,
// transfers that can be refused, and holds that expire with time (for the scheduler). It follows
// the same Decider contract as src/core, so everything the engine does is exercised through it.

import type { CommandContext, Decider, Decision, StateCodec } from "../../src/core/decider.js";
import { reject } from "../../src/core/errors.js";

export type AccountCommand =
  | { readonly type: "open"; readonly accountId: string }
  | { readonly type: "deposit"; readonly accountId: string; readonly amount: bigint }
  | { readonly type: "transfer"; readonly from: string; readonly to: string; readonly amount: bigint }
  | {
      readonly type: "hold";
      readonly accountId: string;
      readonly amount: bigint;
      readonly expiresAtMs: number;
    }
  | { readonly type: "releaseExpiredHolds" }
  /** A command the core cannot handle: decide throws, as a broken invariant would. */
  | { readonly type: "explode" };

export type AccountEvent =
  | { readonly type: "opened"; readonly accountId: string; readonly atMs: number }
  | { readonly type: "deposited"; readonly accountId: string; readonly amount: bigint }
  | { readonly type: "transferred"; readonly from: string; readonly to: string; readonly amount: bigint }
  | {
      readonly type: "held";
      readonly holdId: bigint;
      readonly accountId: string;
      readonly amount: bigint;
      readonly expiresAtMs: number;
    }
  | {
      readonly type: "released";
      readonly holdId: bigint;
      readonly accountId: string;
      readonly amount: bigint;
    };

export interface Account {
  available: bigint;
  frozen: bigint;
  openedAtMs: number;
}

export interface Hold {
  readonly accountId: string;
  readonly amount: bigint;
  readonly expiresAtMs: number;
}

export interface AccountsState {
  readonly accounts: Map<string, Account>;
  readonly holds: Map<bigint, Hold>;
  /** Sum of all deposits: money is conserved, so available + frozen over all accounts equals it. */
  deposited: bigint;
}

/** Holds released by one command, so one command stays small. */
export const holdsReleasedPerCommandMax = 100;

function decide(
  state: AccountsState,
  command: AccountCommand,
  context: CommandContext,
): Decision<AccountEvent> {
  switch (command.type) {
    case "open":
      if (state.accounts.has(command.accountId))
        return { ok: false, rejection: reject("INVALID_INPUT", "exists") };
      return { ok: true, events: [{ type: "opened", accountId: command.accountId, atMs: context.nowMs }] };
    case "deposit":
      if (!state.accounts.has(command.accountId)) return { ok: false, rejection: reject("USER_NOT_FOUND") };
      if (command.amount <= 0n) return { ok: false, rejection: reject("AMOUNT_OUT_OF_RANGE") };
      return {
        ok: true,
        events: [{ type: "deposited", accountId: command.accountId, amount: command.amount }],
      };
    case "transfer": {
      const from = state.accounts.get(command.from);
      if (from === undefined || !state.accounts.has(command.to)) {
        return { ok: false, rejection: reject("USER_NOT_FOUND") };
      }
      if (command.amount <= 0n || command.from === command.to) {
        return { ok: false, rejection: reject("AMOUNT_OUT_OF_RANGE") };
      }
      if (from.available < command.amount) return { ok: false, rejection: reject("INSUFFICIENT_BALANCE") };
      const { from: source, to, amount } = command;
      return { ok: true, events: [{ type: "transferred", from: source, to, amount }] };
    }
    case "hold": {
      const account = state.accounts.get(command.accountId);
      if (account === undefined) return { ok: false, rejection: reject("USER_NOT_FOUND") };
      if (command.amount <= 0n) return { ok: false, rejection: reject("AMOUNT_OUT_OF_RANGE") };
      if (command.expiresAtMs <= context.nowMs) return { ok: false, rejection: reject("ORDER_EXPIRED") };
      if (account.available < command.amount) return { ok: false, rejection: reject("INSUFFICIENT_BALANCE") };
      const { accountId, amount, expiresAtMs } = command;
      return {
        ok: true,
        events: [{ type: "held", holdId: context.sequence, accountId, amount, expiresAtMs }],
      };
    }
    case "releaseExpiredHolds": {
      const events: AccountEvent[] = [];
      for (const [holdId, hold] of expiredHolds(state, context.nowMs, holdsReleasedPerCommandMax)) {
        events.push({ type: "released", holdId, accountId: hold.accountId, amount: hold.amount });
      }
      if (events.length === 0) return { ok: false, rejection: reject("NOTHING_TO_CLAIM") };
      return { ok: true, events };
    }
    case "explode":
      throw new Error("the core cannot handle this command");
    default: {
      const unreachable: never = command;
      return unreachable;
    }
  }
}

function evolve(state: AccountsState, event: AccountEvent): AccountsState {
  switch (event.type) {
    case "opened":
      state.accounts.set(event.accountId, { available: 0n, frozen: 0n, openedAtMs: event.atMs });
      return state;
    case "deposited":
      account(state, event.accountId).available += event.amount;
      state.deposited += event.amount;
      return state;
    case "transferred":
      account(state, event.from).available -= event.amount;
      account(state, event.to).available += event.amount;
      return state;
    case "held": {
      const held = account(state, event.accountId);
      held.available -= event.amount;
      held.frozen += event.amount;
      state.holds.set(event.holdId, {
        accountId: event.accountId,
        amount: event.amount,
        expiresAtMs: event.expiresAtMs,
      });
      return state;
    }
    case "released": {
      const released = account(state, event.accountId);
      released.frozen -= event.amount;
      released.available += event.amount;
      state.holds.delete(event.holdId);
      return state;
    }
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

function account(state: AccountsState, accountId: string): Account {
  const found = state.accounts.get(accountId);
  if (found === undefined) throw new Error(`Assertion failed: account ${accountId} exists`);
  return found;
}

/** Holds whose time has come, oldest id first. */
export function expiredHolds(state: Readonly<AccountsState>, nowMs: number, limit: number): [bigint, Hold][] {
  const due: [bigint, Hold][] = [];
  for (const entry of state.holds) {
    if (entry[1].expiresAtMs <= nowMs) due.push(entry);
    if (due.length >= limit) break;
  }
  return due;
}

export const accountsDecider: Decider<AccountsState, AccountCommand, AccountEvent> = {
  decide,
  evolve,
  initialState: () => ({ accounts: new Map(), holds: new Map(), deposited: 0n }),
};

interface EncodedAccounts {
  accounts: [string, string, string, number][];
  holds: [string, string, string, number][];
  deposited: string;
}

/** Canonical: entries sorted by key, bigints as decimal strings. */
export const accountsCodec: StateCodec<AccountsState> = {
  encode(state) {
    const encoded: EncodedAccounts = {
      accounts: [...state.accounts]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([id, a]) => [id, a.available.toString(), a.frozen.toString(), a.openedAtMs]),
      holds: [...state.holds]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([id, h]) => [id.toString(), h.accountId, h.amount.toString(), h.expiresAtMs]),
      deposited: state.deposited.toString(),
    };
    return JSON.stringify(encoded);
  },
  decode(text) {
    const encoded = JSON.parse(text) as EncodedAccounts;
    return {
      accounts: new Map(
        encoded.accounts.map(([id, available, frozen, openedAtMs]) => [
          id,
          { available: BigInt(available), frozen: BigInt(frozen), openedAtMs },
        ]),
      ),
      holds: new Map(
        encoded.holds.map(([id, accountId, amount, expiresAtMs]) => [
          BigInt(id),
          { accountId, amount: BigInt(amount), expiresAtMs },
        ]),
      ),
      deposited: BigInt(encoded.deposited),
    };
  },
};

/** Money is conserved and nothing is negative: asserted after every step in tests. */
export function assertAccountsValid(state: Readonly<AccountsState>): void {
  let total = 0n;
  for (const [id, a] of state.accounts) {
    if (a.available < 0n || a.frozen < 0n) throw new Error(`Assertion failed: ${id} is negative`);
    total += a.available + a.frozen;
  }
  if (total !== state.deposited) throw new Error("Assertion failed: money is conserved");
}

/** The same commands folded one by one, without an engine: the oracle the engine must match. */
export function foldEvents(events: Iterable<AccountEvent>): AccountsState {
  let state = accountsDecider.initialState();
  for (const event of events) state = accountsDecider.evolve(state, event);
  return state;
}
