// What one committed batch changed, as the realtime layer needs it: the outcomes whose books (or
// prices) may have moved, the trades, the markets that opened or settled, and per user what to
// re-send (balance, which orders, positions in which markets) and their sides of the trades.
// Pure: state and entries in.

import type { ExchangeState, MarketSettledEvent, TradeExecutedEvent } from "../core/exchange.js";
import type { ExchangeEngine } from "../exchange/exchange-engine.js";
import type { TradeRecord } from "../store/exchange-read-models.js";
import { bookTradeSides, poolTradeSide } from "./trade-sides.js";

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

export function summarizeBatch(
  state: Readonly<ExchangeState>,
  entries: CommittedEntries,
  onUnknown: (type: string) => void,
): BatchSummary {
  const touched = new Set<number>();
  const trades: TradeExecutedEvent[] = [];
  const opened: number[] = [];
  const settled: MarketSettledEvent[] = [];
  const users = new Map<number, ChangedUser>();
  const changedUser = (userId: number): ChangedUser => {
    let user = users.get(userId);
    if (user === undefined) {
      user = { balance: false, orderIds: new Set(), marketIds: new Set(), trades: [] };
      users.set(userId, user);
    }
    return user;
  };
  // An order of this user was placed, amended, filled, cancelled or expired: its balance, the order and
  // the market's positions may all have moved.
  const orderMoved = (userId: number, orderId: number, marketId: number): void => {
    const user = changedUser(userId);
    user.balance = true;
    user.orderIds.add(orderId);
    user.marketIds.add(marketId);
  };
  /** Every book of the market may have changed (it closed, was resolved, settled or voided). */
  const touchMarket = (marketId: number): void => {
    for (const outcomeId of state.markets.get(marketId)?.outcomeIds ?? []) touched.add(outcomeId);
  };
  // clientOrderIds of the orders placed in this batch: a trade of one of them needs no lookup.
  const placedClientOrderIds = new Map<number, string | null>();
  const traded = (trade: TradeRecord, seq: bigint): void => {
    changedUser(trade.userId).trades.push({
      trade,
      seq,
      clientOrderId: placedClientOrderIds.get(trade.orderId),
    });
  };
  for (const entry of entries) {
    for (const event of entry.events) {
      switch (event.type) {
        case "MarketCreated":
        case "OrderRepeated":
        // The switch moves nothing itself; the cancels it makes are OrderCancelled events.
        case "DeadMansSwitchArmed":
        case "DeadMansSwitchDisarmed":
        case "DeadMansSwitchTripped":
          break;
        case "MarketOpened":
          opened.push(event.marketId);
          break;
        case "MarketClosed":
          touchMarket(event.marketId);
          break;
        case "DepositCredited":
          changedUser(event.userId).balance = true;
          break;
        case "OrderPlaced": {
          touched.add(event.outcomeId);
          orderMoved(event.userId, event.orderId, event.marketId);
          placedClientOrderIds.set(event.orderId, event.clientOrderId);
          break;
        }
        case "TradeExecuted": {
          touched.add(event.outcomeId);
          trades.push(event);
          for (const [userId, orderId] of [
            [event.makerUserId, event.makerOrderId],
            [event.takerUserId, event.takerOrderId],
          ] as const) {
            orderMoved(userId, orderId, event.marketId);
          }
          for (const side of bookTradeSides(event)) traded(side, entry.sequence);
          break;
        }
        case "OrderCancelled":
        case "OrderExpired":
        case "OrderAmended": {
          touched.add(event.outcomeId);
          orderMoved(event.userId, event.orderId, event.marketId);
          break;
        }
        // The lifecycle moves balances (a challenge bond, a claim) and, when a market ends, its books.
        case "ResolutionChallenged":
        case "ChallengeBondReturned":
        case "ChallengeBondForfeited":
        case "PositionClaimed": {
          const user = changedUser(event.userId);
          user.balance = true;
          user.marketIds.add(event.marketId);
          break;
        }
        case "MarketSettled":
          settled.push(event);
          touchMarket(event.marketId);
          break;
        case "MarketResolved":
        case "MarketVoided":
          touchMarket(event.marketId);
          break;
        case "WithdrawalRequested":
        case "WithdrawalApproved":
        case "WithdrawalReleased":
        case "WithdrawalCompleted":
          changedUser(event.userId).balance = true;
          break;
        // A pool trade moves its trader's balance and position, and its outcome's price (the
        // market-price channel); funding and pool settlement move no user's.
        case "PoolTradeExecuted": {
          touched.add(event.outcomeId);
          orderMoved(event.userId, event.orderId, event.marketId);
          traded(poolTradeSide(event), entry.sequence);
          break;
        }
        case "AmmPoolFunded":
        case "PoolSettled":
          break;
        // A conversion moves its user's balance and positions; no book or price moves.
        case "PositionsConverted": {
          const user = changedUser(event.userId);
          user.balance = true;
          user.marketIds.add(event.marketId);
          break;
        }
        // Comes with MarketSettled or MarketVoided, which touch the market already.
        case "ExclusiveMarketFinished":
          break;
        default: {
          // The compiler proves every kind is handled; at run time an unknown one is skipped, never fatal.
          const unreachable: never = event;
          onUnknown((unreachable as { type: string }).type);
        }
      }
    }
  }
  return { touched, trades, opened, settled, users };
}
