// clientOrderIds are idempotency keys, not names kept forever: the same clientOrderId from the same
// user within clientOrderIdRetentionMs of the first order's commit answers with that first order
// (DESIGN §8); after the window it places a new order. Without a window every id ever sent would
// stay in the state, and in every snapshot, for good.
//
// The window runs on commit time, the nowMs the engine hands every command, so replay forgets
// exactly what the live run forgot. Ids are forgotten when an order is placed (the only time the
// map grows), oldest first: orders are numbered in commit order and commit time never goes back,
// so the registry kept in order id order is also in time order, and the expired ids are a prefix.

import type { ClientOrderIdRegistry, RememberedClientOrderId } from "./client-order-id-types.js";
import type { ExchangeState } from "./state.js";
import type { Account } from "./wallet/ledger.js";

export type { ClientOrderIdRegistry, RememberedClientOrderId };

/** 24 hours: far longer than any retry of a lost answer, short enough to keep the state bounded. */
export const clientOrderIdRetentionMs = 24 * 60 * 60 * 1000;

/** The first order of this clientOrderId if it is still inside the window at nowMs. */
export function rememberedOrderId(
  account: Account | undefined,
  clientOrderId: string,
  nowMs: number,
): number | undefined {
  const remembered = account?.clientOrderIds.get(clientOrderId);
  if (remembered === undefined || nowMs - remembered.atMs >= clientOrderIdRetentionMs) return undefined;
  return remembered.orderId;
}

/** Forgets every clientOrderId whose window has ended at nowMs. */
export function forgetExpiredClientOrderIds(state: ExchangeState, nowMs: number): void {
  for (const [orderId, { userId, clientOrderId }] of state.clientOrderIdRegistry) {
    const account = state.accounts.get(userId)!;
    const remembered = account.clientOrderIds.get(clientOrderId)!;
    if (nowMs - remembered.atMs < clientOrderIdRetentionMs) return;
    account.clientOrderIds.delete(clientOrderId);
    state.clientOrderIdRegistry.delete(orderId);
  }
}

/** Remembers a new order's clientOrderId (after forgetting the expired ones, its own old use included). */
export function rememberClientOrderId(
  state: ExchangeState,
  account: Account,
  clientOrderId: string,
  orderId: number,
  atMs: number,
): void {
  const previous = account.clientOrderIds.get(clientOrderId);
  if (previous !== undefined) throw new Error("evolve: a clientOrderId still remembered was used again");
  account.clientOrderIds.set(clientOrderId, { orderId, atMs });
  state.clientOrderIdRegistry.set(orderId, { userId: account.userId, clientOrderId });
}

/** Rebuilds the registry from the accounts (after decoding a snapshot). */
export function rebuildClientOrderIdRegistry(state: ExchangeState): void {
  const entries: [number, { userId: number; clientOrderId: string }][] = [];
  for (const account of state.accounts.values()) {
    for (const [clientOrderId, { orderId }] of account.clientOrderIds) {
      entries.push([orderId, { userId: account.userId, clientOrderId }]);
    }
  }
  entries.sort((a, b) => a[0] - b[0]);
  state.clientOrderIdRegistry.clear();
  for (const [orderId, entry] of entries) state.clientOrderIdRegistry.set(orderId, entry);
}
