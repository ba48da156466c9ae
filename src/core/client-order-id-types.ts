// The shapes of the remembered clientOrderIds, apart from the rules in client-order-ids.ts: the
// account (wallet/ledger.ts) and the state (state.ts) hold them, and the rules read both, so the
// shapes live on their own to keep the imports one way.

export interface RememberedClientOrderId {
  readonly orderId: number;
  /** Commit time of the first order. */
  readonly atMs: number;
}

/** Every remembered clientOrderId of every user, by order id (so oldest first). */
export type ClientOrderIdRegistry = Map<number, { readonly userId: number; readonly clientOrderId: string }>;
