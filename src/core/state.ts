// The whole state of the exchange core. Everything is reachable from ids; ids are allocated from
// the counters here, in the order commands are decided, so a replay allocates the same ids.

import type { BookKind } from "./book/order-book.js";
import { OrderIndex } from "./book/order-index.js";
import type { Order } from "./book/orders.js";
import type { ClientOrderIdRegistry } from "./client-order-id-types.js";
import type { ExclusiveMarket } from "./exclusive/exclusive-state.js";
import type { MarketResolution } from "./lifecycle/resolution.js";
import type { Market, OptionRecord, Outcome } from "./market.js";
import { createPoolModels, type PoolModels } from "./pools/models.js";
import type { Account, LedgerTotals } from "./wallet/ledger.js";
import type { Withdrawal } from "./wallet/withdrawal.js";

export interface IdCounters {
  nextMarketId: number;
  nextOutcomeId: number;
  nextOptionId: number;
  nextOrderId: number;
  nextTradeId: number;
  nextPositionId: number;
  nextWithdrawalId: number;
  /**
   * Amended orders sent to the back of their level so far. Time priorities are issued as order id
   * plus this count (evolve.ts, timePriorityOf): strictly increasing in time, and equal to the order
   * id for every order until the first amend, so older snapshots need no priorities of their own.
   */
  orderRequeues: number;
}

export interface ExchangeState {
  /** Which book implementation MarketOpened creates. Not part of the encoded state. */
  readonly bookKind: BookKind;
  readonly counters: IdCounters;
  readonly markets: Map<number, Market>;
  readonly outcomes: Map<number, Outcome>;
  readonly options: Map<number, OptionRecord>;
  readonly accounts: Map<number, Account>;
  /** Resting orders by id. Terminal orders are not kept (read models have them). */
  readonly orders: OrderIndex;
  /** Resting GTD orders by id, in id order, for ExpireOrders. */
  readonly ordersWithExpiry: Map<number, Order>;
  /** Deposit transaction hashes already credited, with the user credited. */
  readonly depositTxHashes: Map<string, number>;
  /** Withdrawals that still hold frozen funds (pending or approved), in id order. */
  readonly withdrawals: Map<number, Withdrawal>;
  /** Proposed and final results of markets that reached `resolving`, by market id (lifecycle/resolution.ts). */
  readonly resolutions: Map<number, MarketResolution>;
  /** Armed dead-man's switches: user id → when it goes off, ms (dead-mans-switch.ts). */
  readonly deadMansSwitches: Map<number, number>;
  /** Claimed positions: position id → atoms paid (lifecycle/claims.ts). */
  readonly claims: Map<number, bigint>;
  /** Every user's remembered clientOrderIds, oldest first; derived from the accounts, not encoded. */
  readonly clientOrderIdRegistry: ClientOrderIdRegistry;
  /** AMM and parimutuel terms and pools (pools/models.ts). */
  readonly pools: PoolModels;
  /** Exclusive (negative-risk) markets by market id: their conversions (exclusive/exclusive-market.ts). */
  readonly exclusiveMarkets: Map<number, ExclusiveMarket>;
  readonly totals: LedgerTotals;
}

export function createInitialState(bookKind: BookKind): ExchangeState {
  return {
    bookKind,
    counters: {
      nextMarketId: 1,
      nextOutcomeId: 1,
      nextOptionId: 1,
      nextOrderId: 1,
      nextTradeId: 1,
      nextPositionId: 1,
      nextWithdrawalId: 1,
      orderRequeues: 0,
    },
    markets: new Map(),
    outcomes: new Map(),
    options: new Map(),
    accounts: new Map(),
    orders: new OrderIndex(),
    ordersWithExpiry: new Map(),
    depositTxHashes: new Map(),
    withdrawals: new Map(),
    resolutions: new Map(),
    claims: new Map(),
    deadMansSwitches: new Map(),
    clientOrderIdRegistry: new Map(),
    pools: createPoolModels(),
    exclusiveMarkets: new Map(),
    totals: { deposited: 0n, withdrawn: 0n, feeIncome: 0n, withdrawalFeeIncome: 0n },
  };
}
