// evolve: applies one event to the state, in place (the engine owns the state object). It
// trusts the event, which decide computed, but asserts what must hold: ids in sequence, orders
// present, no balance or holding below zero. A failed assertion is a bug, so it throws.

import { createBook } from "./book/create-book.js";
import { bookSideOf, type Order, yesPriceOf } from "./book/orders.js";
import { linkUserOrder, unlinkUserOrder } from "./book/user-orders.js";
import { forgetExpiredClientOrderIds, rememberClientOrderId } from "./client-order-ids.js";
import type {
  DepositCreditedEvent,
  ExchangeEvent,
  MarketCreatedEvent,
  OrderAmendedEvent,
  OrderCancelledEvent,
  OrderExpiredEvent,
  OrderPlacedEvent,
  TradeExecutedEvent,
} from "./events.js";
import { accountFor, marketOf, outcomeOf, positionFor } from "./evolve-lookups.js";
import { evolvePositionsConverted } from "./exclusive/convert.js";
import { applyExclusiveMarketCreated } from "./exclusive/exclusive-market.js";
import { evolveExclusiveMarketFinished } from "./exclusive/settlement.js";
import { evolveClaim } from "./lifecycle/claims.js";
import { evolveLifecycle } from "./lifecycle/lifecycle.js";
import type { Market, Outcome } from "./market.js";
import { applyPoolTerms, evolvePool } from "./pools/evolve.js";
import type { ExchangeState } from "./state.js";
import {
  atomsPerLot,
  atomsPerPriceUnit,
  orderSharesToLots,
  priceToUnits,
  priceUnitsPerUnit,
} from "./units.js";
import { type Account, applyBalanceDelta, freezeFunds, releaseFrozen } from "./wallet/ledger.js";
import { freezeShares, recordBuy, recordSell, unfreezeShares } from "./wallet/positions.js";
import type { Withdrawal } from "./wallet/withdrawal.js";

export function evolve(state: ExchangeState, event: ExchangeEvent): ExchangeState {
  // The trading events come first: they are nearly all of the journal.
  switch (event.type) {
    case "OrderPlaced":
      applyOrderPlaced(state, event);
      break;
    case "TradeExecuted":
      applyTrade(state, event);
      break;
    case "OrderCancelled":
    case "OrderExpired":
      applyOrderReleased(state, event);
      break;
    case "OrderAmended":
      applyOrderAmended(state, event);
      break;
    case "DeadMansSwitchArmed":
    case "DeadMansSwitchDisarmed":
    case "DeadMansSwitchTripped":
      applyDeadMansSwitchEvent(state, event);
      break;
    case "MarketCreated":
      applyMarketCreated(state, event);
      break;
    case "MarketOpened":
    case "MarketClosed":
      applyMarketOpenedOrClosed(state, event.type, event.marketId);
      break;
    case "DepositCredited":
      applyDeposit(state, event);
      break;
    case "OrderRepeated":
      // The first order stands; nothing changes.
      break;
    case "WithdrawalRequested":
    case "WithdrawalApproved":
    case "WithdrawalReleased":
    case "WithdrawalCompleted":
      applyWithdrawalEvent(state, event);
      break;
    case "MarketResolved":
    case "ResolutionChallenged":
    case "ChallengeBondReturned":
    case "ChallengeBondForfeited":
    case "MarketSettled":
    case "MarketVoided":
      evolveLifecycle(state, event);
      break;
    case "PositionClaimed":
      evolveClaim(state, event);
      break;
    case "AmmPoolFunded":
    case "PoolTradeExecuted":
    case "PoolSettled":
      evolvePool(state, event);
      break;
    case "PositionsConverted":
      evolvePositionsConverted(state, event);
      break;
    case "ExclusiveMarketFinished":
      evolveExclusiveMarketFinished(state, event);
      break;
    default: {
      const unreachable: never = event;
      throw new Error(`evolve: unknown event ${JSON.stringify(unreachable)}`);
    }
  }
  return state;
}

function applyDeadMansSwitchEvent(
  state: ExchangeState,
  event: Extract<
    ExchangeEvent,
    { type: "DeadMansSwitchArmed" | "DeadMansSwitchDisarmed" | "DeadMansSwitchTripped" }
  >,
): void {
  if (event.type === "DeadMansSwitchArmed") state.deadMansSwitches.set(event.userId, event.expiresAtMs);
  else if (!state.deadMansSwitches.delete(event.userId))
    throw new Error(`evolve: user ${event.userId} has no armed switch`);
}

/** An opened market gets a book per outcome; a market closes only once its books are empty. */
function applyMarketOpenedOrClosed(
  state: ExchangeState,
  type: "MarketOpened" | "MarketClosed",
  marketId: number,
): void {
  const market = marketOf(state, marketId);
  if (type === "MarketOpened") {
    market.status = "open";
    for (const outcomeId of market.outcomeIds) {
      outcomeOf(state, outcomeId).book = createBook(state.bookKind, market.tickUnits);
    }
    return;
  }
  market.status = "closed";
  for (const outcomeId of market.outcomeIds) {
    if (outcomeOf(state, outcomeId).book?.orderCount) throw new Error("evolve: closing a market with orders");
  }
}

/** A withdrawal freezes its amount and fee when requested; they leave or come back when it ends. */
function applyWithdrawalEvent(
  state: ExchangeState,
  event: Extract<
    ExchangeEvent,
    { type: "WithdrawalRequested" | "WithdrawalApproved" | "WithdrawalReleased" | "WithdrawalCompleted" }
  >,
): void {
  switch (event.type) {
    case "WithdrawalRequested": {
      if (event.withdrawalId !== state.counters.nextWithdrawalId) {
        throw new Error("evolve: withdrawal id out of sequence");
      }
      state.counters.nextWithdrawalId = event.withdrawalId + 1;
      freezeFunds(accountFor(state, event.userId), event.amount + event.fee);
      state.withdrawals.set(event.withdrawalId, {
        withdrawalId: event.withdrawalId,
        userId: event.userId,
        amount: event.amount,
        fee: event.fee,
        address: event.address,
        status: "PENDING",
        requestedAtMs: event.atMs,
      });
      return;
    }
    case "WithdrawalApproved":
      heldWithdrawal(state, event.withdrawalId).status = "APPROVED";
      return;
    case "WithdrawalReleased": {
      const withdrawal = heldWithdrawal(state, event.withdrawalId);
      state.withdrawals.delete(withdrawal.withdrawalId);
      releaseFrozen(state.accounts.get(withdrawal.userId)!, withdrawal.amount + withdrawal.fee);
      return;
    }
    case "WithdrawalCompleted": {
      const withdrawal = heldWithdrawal(state, event.withdrawalId);
      state.withdrawals.delete(withdrawal.withdrawalId);
      applyBalanceDelta(state.accounts.get(withdrawal.userId)!, 0n, -(withdrawal.amount + withdrawal.fee));
      state.totals.withdrawn += withdrawal.amount;
      state.totals.withdrawalFeeIncome += withdrawal.fee;
      return;
    }
    default: {
      const unreachable: never = event;
      throw new Error(`evolve: unknown withdrawal event ${JSON.stringify(unreachable)}`);
    }
  }
}

function applyMarketCreated(state: ExchangeState, event: MarketCreatedEvent): void {
  const { counters } = state;
  if (event.marketId !== counters.nextMarketId) throw new Error("evolve: market id out of sequence");
  counters.nextMarketId = event.marketId + 1;
  const market: Market = {
    marketId: event.marketId,
    title: event.title,
    modelType: event.modelType,
    status: "draft",
    tickUnits: Number(event.tickSize / atomsPerPriceUnit),
    minOrderLots: Number(event.minOrderSize / atomsPerLot),
    makerFeeBps: event.makerFeeBps,
    takerFeeBps: event.takerFeeBps,
    marketProtectionUnits: Number(event.marketOrderPriceProtection / atomsPerPriceUnit),
    limitProtectionUnits: Number(event.limitOrderPriceProtection / atomsPerPriceUnit),
    startTimeMs: event.startTimeMs,
    endTimeMs: event.endTimeMs,
    creatorId: event.creatorId,
    createdAtMs: event.createdAtMs,
    outcomeIds: event.outcomes.map((outcome) => outcome.outcomeId),
    feeIncome: 0n,
  };
  state.markets.set(market.marketId, market);
  for (const outcome of event.outcomes) {
    if (outcome.outcomeId !== counters.nextOutcomeId) throw new Error("evolve: outcome id out of sequence");
    counters.nextOutcomeId = outcome.outcomeId + 1;
    const [yes, no] = outcome.options;
    if (!yes || !no || outcome.options.length !== 2) throw new Error("evolve: an outcome needs Yes and No");
    for (const option of outcome.options) {
      if (option.optionId !== counters.nextOptionId) throw new Error("evolve: option id out of sequence");
      counters.nextOptionId = option.optionId + 1;
      state.options.set(option.optionId, {
        optionId: option.optionId,
        outcomeId: outcome.outcomeId,
        marketId: market.marketId,
        optionIndex: option.optionIndex,
        title: option.title,
        assetId: option.assetId,
      });
    }
    state.outcomes.set(outcome.outcomeId, {
      outcomeId: outcome.outcomeId,
      marketId: market.marketId,
      name: outcome.name,
      optionIds: [yes.optionId, no.optionId],
      collateral: 0n,
      book: null,
      lastTradeYesPriceUnits: 0,
    });
  }
  applyPoolTerms(state, event);
  applyExclusiveMarketCreated(state, event);
}

function applyDeposit(state: ExchangeState, event: DepositCreditedEvent): void {
  const account = accountFor(state, event.userId);
  applyBalanceDelta(account, event.amount, 0n);
  state.totals.deposited += event.amount;
  state.depositTxHashes.set(event.txHash, event.userId);
}

function applyOrderPlaced(state: ExchangeState, event: OrderPlacedEvent): void {
  const { counters } = state;
  if (event.orderId !== counters.nextOrderId) throw new Error("evolve: order id out of sequence");
  counters.nextOrderId = event.orderId + 1;
  const account = accountFor(state, event.userId);
  forgetExpiredClientOrderIds(state, event.createdAtMs);
  if (event.clientOrderId !== null)
    rememberClientOrderId(state, account, event.clientOrderId, event.orderId, event.createdAtMs);
  if (event.restingShares === 0n) return;

  // The rest of the order goes on the book; its funds or shares are frozen now.
  const option = state.options.get(event.optionId)!;
  const book = outcomeOf(state, event.outcomeId).book!;
  if (event.limitPrice === null || (event.timeInForce !== "GTC" && event.timeInForce !== "GTD")) {
    throw new Error("evolve: only GTC and GTD LIMIT orders rest");
  }
  const priceUnits = priceToUnits(event.limitPrice);
  const filledLots = orderSharesToLots(event.filledShares);
  const remainingLots = orderSharesToLots(event.restingShares);
  const order: Order = {
    orderId: event.orderId,
    userId: event.userId,
    marketId: event.marketId,
    outcomeId: event.outcomeId,
    optionId: event.optionId,
    optionIndex: option.optionIndex,
    side: event.side,
    timeInForce: event.timeInForce,
    bookSide: bookSideOf(event.side, option.optionIndex),
    priceUnits,
    yesPriceUnits: yesPriceOf(priceUnits, option.optionIndex, priceUnitsPerUnit),
    originalLots: filledLots + remainingLots,
    remainingLots,
    timePriority: timePriorityOf(state, event.orderId),
    filledLots,
    filledNotional: Number(event.filledAmount),
    feesPaid: Number(event.feePaid),
    frozenAmount: Number(event.frozenAmount),
    expiresAtMs: event.expiresAtMs,
    clientOrderId: event.clientOrderId,
    createdAtMs: event.createdAtMs,
    postOnly: event.postOnly === true,
    previous: null,
    next: null,
    userPrevious: null,
    userNext: null,
  };
  if (order.yesPriceUnits % book.tickUnits !== 0) {
    throw new Error("evolve: resting price off tick");
  }
  if (event.side === "BUY") freezeFunds(account, event.frozenAmount);
  else freezeShares(account.positions.get(event.optionId)!, event.frozenShares);
  evolveRestOrder(state, account, book, order);
}

/**
 * The next time priority: after every one issued so far and before every later one. The order id
 * counter moves with each new order; orderRequeues with each amend that sends an order to the back.
 */
export function timePriorityOf(state: ExchangeState, orderId: number): number {
  return orderId + state.counters.orderRequeues;
}

/** Puts an order on its book and in the indexes. */
function evolveRestOrder(
  state: ExchangeState,
  account: Account,
  book: NonNullable<Outcome["book"]>,
  order: Order,
): void {
  indexRestingOrder(state, account, order);
  book.add(order);
}

/** Every index of resting orders but the book: by id, by expiry, the owner's list and count. Shared with the codec's decode. */
export function indexRestingOrder(state: ExchangeState, account: Account, order: Order): void {
  state.orders.set(order.orderId, order);
  if (order.expiresAtMs !== null) state.ordersWithExpiry.set(order.orderId, order);
  account.openOrderCount++;
  linkUserOrder(account, order);
}

function applyTrade(state: ExchangeState, event: TradeExecutedEvent): void {
  const { counters } = state;
  if (event.tradeId !== counters.nextTradeId) throw new Error("evolve: trade id out of sequence");
  counters.nextTradeId = event.tradeId + 1;
  const outcome = outcomeOf(state, event.outcomeId);
  const book = outcome.book!;
  const maker = state.orders.get(event.makerOrderId);
  if (maker === undefined) throw new Error(`evolve: maker order ${event.makerOrderId} is not resting`);
  const lots = orderSharesToLots(event.shares);
  const makerAccount = state.accounts.get(event.makerUserId)!;

  // The maker order: fill it, and take it off the book once nothing is left.
  const makerNotional = Number(event.makerNotional);
  const makerFee = Number(event.makerFee);
  maker.filledLots += lots;
  maker.filledNotional += makerNotional;
  maker.feesPaid += makerFee;
  maker.frozenAmount += Number(event.makerFrozenDelta);
  if (lots === maker.remainingLots) {
    book.remove(maker);
    maker.remainingLots = 0;
    unrestOrder(state, makerAccount, maker);
  } else {
    book.reduce(maker, lots);
  }

  // The maker's money and shares.
  applyBalanceDelta(makerAccount, event.makerAvailableDelta, event.makerFrozenDelta);
  const makerPosition = positionFor(state, makerAccount, event.makerPositionId, event.makerOptionId);
  if (event.makerSide === "BUY") recordBuy(makerPosition, event.shares, event.makerNotional, event.makerFee);
  else recordSell(makerPosition, event.shares, true, event.makerNotional, event.makerFee);

  // The taker's money and shares (the taker part of an order is never frozen).
  const takerAccount = accountFor(state, event.takerUserId);
  applyBalanceDelta(takerAccount, event.takerAvailableDelta, 0n);
  const takerPosition = positionFor(state, takerAccount, event.takerPositionId, event.takerOptionId);
  if (event.takerSide === "BUY") recordBuy(takerPosition, event.shares, event.takerNotional, event.takerFee);
  else recordSell(takerPosition, event.shares, false, event.takerNotional, event.takerFee);

  if (event.collateralDelta !== 0n) {
    outcome.collateral += event.collateralDelta;
    if (outcome.collateral < 0n) throw new Error("evolve: negative collateral");
  }
  const fees = event.makerFee === 0n ? event.takerFee : event.makerFee + event.takerFee;
  if (fees !== 0n) {
    marketOf(state, event.marketId).feeIncome += fees;
    state.totals.feeIncome += fees;
  }
  outcome.lastTradeYesPriceUnits = priceToUnits(event.yesPrice);
}

function applyOrderReleased(state: ExchangeState, event: OrderCancelledEvent | OrderExpiredEvent): void {
  const order = state.orders.get(event.orderId);
  if (order === undefined) throw new Error(`evolve: order ${event.orderId} is not resting`);
  const account = state.accounts.get(order.userId)!;
  outcomeOf(state, order.outcomeId).book!.remove(order);
  unrestOrder(state, account, order);
  if (order.side === "BUY") {
    if (Number(event.releasedAmount) !== order.frozenAmount)
      throw new Error("evolve: release differs from frozen");
    releaseFrozen(account, event.releasedAmount);
  } else {
    unfreezeShares(account.positions.get(order.optionId)!, event.releasedShares);
  }
}

/**
 * An amend: what the order held frozen is released and what its rest needs is frozen (the net moves);
 * then it either shrinks where it stands or leaves its level and, if anything rests, joins the back
 * of its new one with a new time priority. Its fills as a taker follow as TradeExecuted events.
 */
function applyOrderAmended(state: ExchangeState, event: OrderAmendedEvent): void {
  const order = state.orders.get(event.orderId);
  if (order === undefined) throw new Error(`evolve: order ${event.orderId} is not resting`);
  const account = state.accounts.get(order.userId)!;
  const book = outcomeOf(state, order.outcomeId).book!;
  if (order.side === "BUY") {
    if (Number(event.releasedAmount) !== order.frozenAmount)
      throw new Error("evolve: amend releases a different amount than is frozen");
    applyBalanceDelta(
      account,
      event.releasedAmount - event.frozenAmount,
      event.frozenAmount - event.releasedAmount,
    );
  } else {
    const position = account.positions.get(order.optionId)!;
    unfreezeShares(position, event.releasedShares);
    freezeShares(position, event.frozenShares);
  }
  order.frozenAmount = Number(event.frozenAmount);
  const restLots = orderSharesToLots(event.restingShares);
  if (event.priorityKept) {
    book.reduce(order, order.remainingLots - restLots);
    order.originalLots = orderSharesToLots(event.shares);
    return;
  }
  book.remove(order);
  order.filledLots = orderSharesToLots(event.filledShares);
  order.filledNotional = Number(event.filledAmount);
  order.feesPaid = Number(event.feePaid);
  order.originalLots = orderSharesToLots(event.shares);
  order.remainingLots = restLots;
  if (restLots === 0) {
    unrestOrder(state, account, order);
    return;
  }
  order.priceUnits = priceToUnits(event.limitPrice);
  order.yesPriceUnits = yesPriceOf(order.priceUnits, order.optionIndex, priceUnitsPerUnit);
  order.timePriority = timePriorityOf(state, state.counters.nextOrderId);
  state.counters.orderRequeues += 1;
  book.add(order);
}

function unrestOrder(state: ExchangeState, account: Account, order: Order): void {
  state.orders.delete(order.orderId);
  if (order.expiresAtMs !== null) state.ordersWithExpiry.delete(order.orderId);
  account.openOrderCount--;
  unlinkUserOrder(account, order);
}

function heldWithdrawal(state: ExchangeState, withdrawalId: number): Withdrawal {
  const withdrawal = state.withdrawals.get(withdrawalId);
  if (withdrawal === undefined) throw new Error(`evolve: withdrawal ${withdrawalId} is not held`);
  return withdrawal;
}
