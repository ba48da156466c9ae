// What one committed batch changed, as the realtime layer needs it: the outcomes whose books (or
// prices) may have moved, the trades, the markets that opened or settled, and per user what to
// re-send (balance, which orders, positions in which markets) and their sides of the trades.
// Pure: state and entries in.
//
// The per-user part is built only for the users someone follows (a live user-channel subscription,
// which the hub knows): nobody else's changes would be sent, and building them (a trade's sides above
// all) was most of the fan-out's cost on a busy book nobody watches (docs/performance.md "#31: the
// realtime fan-out").

import type { ExchangeState, MarketSettledEvent, TradeExecutedEvent } from "../core/exchange.js";
import type { ExchangeEngine } from "../exchange/exchange-engine.js";
import type { TradeRecord } from "../store/exchange-read-models.js";
import { bookTradeSide, poolTradeSide } from "./trade-sides.js";

export type CommittedEntries = Parameters<Parameters<ExchangeEngine["onCommitted"]>[0]>[0];

export interface ChangedUser {
  balance: boolean;
  readonly orderIds: Set<number>;
  readonly marketIds: Set<number>;
  /** The user's sides of the batch's trades, in journal order (/socket/user-trades). */
  readonly trades: UserTradeSide[];
}

/** One side of a trade, with the journal sequence of the command that made it. */
export interface UserTradeSide {
  readonly trade: TradeRecord;
  readonly seq: bigint;
  /**
   * The order's clientOrderId when the batch itself shows it (the order was placed in it); undefined
   * when it must be looked up (user-feeds.ts: the resting order, the remembered ids, the read models).
   */
  readonly clientOrderId: string | null | undefined;
}

export interface BatchSummary {
  readonly touched: Set<number>;
  readonly trades: TradeExecutedEvent[];
  readonly opened: number[];
  readonly settled: MarketSettledEvent[];
  readonly users: Map<number, ChangedUser>;
}

/** Whether a user's changes are wanted: someone follows one of the user's channels. */
export type FollowsUser = (userId: number) => boolean;

const everyUser: FollowsUser = () => true;

/**
 * `follows` picks the users whose part is built (`users`); the outcomes, trades and markets are
 * built whoever follows. By default every user's part is.
 */
export function summarizeBatch(
  state: Readonly<ExchangeState>,
  entries: CommittedEntries,
  onUnknown: (type: string) => void,
  follows: FollowsUser = everyUser,
): BatchSummary {
  const summary = new BatchSummaryBuilder(state, onUnknown, follows);
  for (const entry of entries) {
    for (const event of entry.events) summary.add(event, entry.sequence);
  }
  return summary;
}

/**
 * The summary being built, one event at a time. A class rather than closures inside summarizeBatch:
 * its helpers are made once, not again for every batch.
 */
class BatchSummaryBuilder implements BatchSummary {
  readonly touched = new Set<number>();
  readonly trades: TradeExecutedEvent[] = [];
  readonly opened: number[] = [];
  readonly settled: MarketSettledEvent[] = [];
  readonly users = new Map<number, ChangedUser>();
  readonly #state: Readonly<ExchangeState>;
  readonly #onUnknown: (type: string) => void;
  readonly #follows: FollowsUser;
  // clientOrderIds of the followed users' orders placed in this batch: a trade of one of them needs
  // no lookup (a trade's side goes to the order's own user).
  readonly #placedClientOrderIds = new Map<number, string | null>();

  constructor(state: Readonly<ExchangeState>, onUnknown: (type: string) => void, follows: FollowsUser) {
    this.#state = state;
    this.#onUnknown = onUnknown;
    this.#follows = follows;
  }

  add(event: CommittedEntries[number]["events"][number], sequence: bigint): void {
    switch (event.type) {
      case "MarketCreated":
      case "OrderRepeated":
      // The switch moves nothing itself; the cancels it makes are OrderCancelled events.
      case "DeadMansSwitchArmed":
      case "DeadMansSwitchDisarmed":
      case "DeadMansSwitchTripped":
        break;
      case "MarketOpened":
        this.opened.push(event.marketId);
        break;
      case "MarketClosed":
        this.#touchMarket(event.marketId);
        break;
      case "DepositCredited":
        this.#balanceMoved(event.userId);
        break;
      case "OrderPlaced": {
        this.touched.add(event.outcomeId);
        this.#orderMoved(event.userId, event.orderId, event.marketId);
        if (this.users.has(event.userId)) this.#placedClientOrderIds.set(event.orderId, event.clientOrderId);
        break;
      }
      case "TradeExecuted": {
        this.touched.add(event.outcomeId);
        this.trades.push(event);
        // Maker first, then taker: a user on both sides gets both, in that order.
        this.#orderMoved(event.makerUserId, event.makerOrderId, event.marketId);
        this.#orderMoved(event.takerUserId, event.takerOrderId, event.marketId);
        const maker = this.users.get(event.makerUserId);
        if (maker !== undefined) this.#traded(maker, bookTradeSide(event, "MAKER"), sequence);
        const taker = this.users.get(event.takerUserId);
        if (taker !== undefined) this.#traded(taker, bookTradeSide(event, "TAKER"), sequence);
        break;
      }
      case "OrderCancelled":
      case "OrderExpired":
      case "OrderAmended": {
        this.touched.add(event.outcomeId);
        this.#orderMoved(event.userId, event.orderId, event.marketId);
        break;
      }
      // The lifecycle moves balances (a challenge bond, a claim) and, when a market ends, its books.
      case "ResolutionChallenged":
      case "ChallengeBondReturned":
      case "ChallengeBondForfeited":
      case "PositionClaimed":
        this.#balanceMoved(event.userId, event.marketId);
        break;
      case "MarketSettled":
        this.settled.push(event);
        this.#touchMarket(event.marketId);
        break;
      case "MarketResolved":
      case "MarketVoided":
        this.#touchMarket(event.marketId);
        break;
      case "WithdrawalRequested":
      case "WithdrawalApproved":
      case "WithdrawalReleased":
      case "WithdrawalCompleted":
        this.#balanceMoved(event.userId);
        break;
      // A pool trade moves its trader's balance and position, and its outcome's price (the
      // market-price channel); funding and pool settlement move no user's.
      case "PoolTradeExecuted": {
        this.touched.add(event.outcomeId);
        this.#orderMoved(event.userId, event.orderId, event.marketId);
        const user = this.users.get(event.userId);
        if (user !== undefined) this.#traded(user, poolTradeSide(event), sequence);
        break;
      }
      case "AmmPoolFunded":
      case "PoolSettled":
        break;
      // A conversion moves its user's balance and positions; no book or price moves.
      case "PositionsConverted":
        this.#balanceMoved(event.userId, event.marketId);
        break;
      // Comes with MarketSettled or MarketVoided, which touch the market already.
      case "ExclusiveMarketFinished":
        break;
      default: {
        // The compiler proves every kind is handled; at run time an unknown one is skipped, never fatal.
        const unreachable: never = event;
        this.#onUnknown((unreachable as { type: string }).type);
      }
    }
  }

  /** The user's part, or undefined when nobody follows the user (then nothing is recorded). */
  #changedUser(userId: number): ChangedUser | undefined {
    let user = this.users.get(userId);
    if (user === undefined) {
      if (!this.#follows(userId)) return undefined;
      user = { balance: false, orderIds: new Set(), marketIds: new Set(), trades: [] };
      this.users.set(userId, user);
    }
    return user;
  }

  // An order of this user was placed, amended, filled, cancelled or expired: its balance, the order
  // and the market's positions may all have moved.
  #orderMoved(userId: number, orderId: number, marketId: number): void {
    const user = this.#changedUser(userId);
    if (user === undefined) return;
    user.balance = true;
    user.orderIds.add(orderId);
    user.marketIds.add(marketId);
  }

  /** A balance moved, and the user's positions in the market (with `marketId`). */
  #balanceMoved(userId: number, marketId?: number): void {
    const user = this.#changedUser(userId);
    if (user === undefined) return;
    user.balance = true;
    if (marketId !== undefined) user.marketIds.add(marketId);
  }

  /** Every book of the market may have changed (it closed, was resolved, settled or voided). */
  #touchMarket(marketId: number): void {
    for (const outcomeId of this.#state.markets.get(marketId)?.outcomeIds ?? []) this.touched.add(outcomeId);
  }

  #traded(user: ChangedUser, trade: TradeRecord, seq: bigint): void {
    user.trades.push({ trade, seq, clientOrderId: this.#placedClientOrderIds.get(trade.orderId) });
  }
}
