// The USDT ledger: per user available and frozen balances, plus the platform totals the
// conservation invariant is written against. Every change arrives as an explicit delta carried by
// an event, so the journal alone explains every atom (DESIGN §3 "every fee is a ledger entry").

import type { Order } from "../book/orders.js";
import type { RememberedClientOrderId } from "../client-order-id-types.js";
import type { Position } from "./positions.js";

export interface Account {
  readonly userId: number;
  available: bigint;
  frozen: bigint;
  /** Resting orders of this user across all markets (openOrdersPerUserMax). */
  openOrderCount: number;
  /**
   * The first and last of those orders, in id order, threaded through Order.userNext
   * (book/user-orders.ts), so a mass cancel visits only the user's own orders. Rebuilt by evolve
   * and the codec, never encoded.
   */
  firstOpenOrder: Order | null;
  lastOpenOrder: Order | null;
  /** Holdings by option id. */
  readonly positions: Map<number, Position>;
  /** clientOrderId → its first order, for clientOrderIdRetentionMs after that order (client-order-ids.ts). */
  readonly clientOrderIds: Map<string, RememberedClientOrderId>;
}

export interface LedgerTotals {
  deposited: bigint;
  withdrawn: bigint;
  /** All trading fees earned by the platform. */
  feeIncome: bigint;
  /** Withdrawal fees earned by the platform. */
  withdrawalFeeIncome: bigint;
}

export function newAccount(userId: number): Account {
  return {
    userId,
    available: 0n,
    frozen: 0n,
    openOrderCount: 0,
    firstOpenOrder: null,
    lastOpenOrder: null,
    positions: new Map(),
    clientOrderIds: new Map(),
  };
}

/** Applies a balance change; a negative balance means decide let through what it must not. */
export function applyBalanceDelta(account: Account, availableDelta: bigint, frozenDelta: bigint): void {
  // Skipping zero deltas saves a bigint allocation each on the hot path.
  if (availableDelta !== 0n) account.available += availableDelta;
  if (frozenDelta !== 0n) account.frozen += frozenDelta;
  if (account.available < 0n || account.frozen < 0n) {
    throw new Error(`ledger: negative balance for user ${account.userId}`);
  }
}

/** Moves `amount` from frozen back to available (an order leaves the book unfilled). */
export function releaseFrozen(account: Account, amount: bigint): void {
  account.frozen -= amount;
  account.available += amount;
  if (account.frozen < 0n) throw new Error(`ledger: negative frozen balance for user ${account.userId}`);
}

/** Moves `amount` from available to frozen (a BUY rests). */
export function freezeFunds(account: Account, amount: bigint): void {
  account.available -= amount;
  account.frozen += amount;
  if (account.available < 0n) throw new Error(`ledger: negative balance for user ${account.userId}`);
}
