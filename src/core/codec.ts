// The canonical encoding of the exchange state: JSON of arrays in a fixed field order, every
// collection sorted by its key, bigints as decimal strings. Equal states encode to equal text,
// whichever book implementation holds them, because books are not encoded: a book is rebuilt
// from its resting orders in time-priority order. What later versions added is written only when
// it differs from what an older snapshot means by leaving it out (a post-only or amended order, an
// amend count), so a snapshot written before them still reads back to exactly its own text.

import { createBook } from "./book/create-book.js";
import type { BookKind } from "./book/order-book.js";
import { bookSideOf, type Order, type OrderSide, yesPriceOf } from "./book/orders.js";
import { rebuildClientOrderIdRegistry } from "./client-order-ids.js";
import type { StateCodec } from "./decider.js";
import { indexRestingOrder } from "./evolve.js";
import { decodeExclusiveMarkets, encodeExclusiveMarkets } from "./exclusive/codec.js";
import { decodeLifecycle, encodeLifecycle } from "./lifecycle/codec.js";
import type { Market, MarketStatus, ModelType, OptionIndex } from "./market.js";
import { decodePools, encodePools } from "./pools/codec.js";
import { createInitialState, type ExchangeState } from "./state.js";
import { priceUnitsPerUnit } from "./units.js";
import { type Account, newAccount } from "./wallet/ledger.js";
import type { Position } from "./wallet/positions.js";
import type { WithdrawalStatus } from "./wallet/withdrawal.js";

const encodingVersion = 1;

function byNumber<T>(map: Map<number, T>): T[] {
  return [...map.entries()].sort((a, b) => a[0] - b[0]).map((entry) => entry[1]);
}

function byNumberEntries<T>(map: Map<number, T>): [number, T][] {
  return [...map.entries()].sort((a, b) => a[0] - b[0]);
}

function byText<T>(map: Map<string, T>): [string, T][] {
  return [...map.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** A resting order's row: the columns every version has, then what amends and post-only added. */
function orderRow(order: Order): unknown[] {
  const row: unknown[] = [
    order.orderId,
    order.userId,
    order.optionId,
    order.side,
    order.timeInForce,
    order.priceUnits,
    order.originalLots,
    order.remainingLots,
    order.filledLots,
    order.filledNotional,
    order.feesPaid,
    order.frozenAmount,
    order.expiresAtMs,
    order.clientOrderId,
    order.createdAtMs,
  ];
  // An older snapshot's order is not post-only and has its id as its time priority.
  if (order.postOnly || order.timePriority !== order.orderId) row.push(order.postOnly, order.timePriority);
  return row;
}

export function encodeState(state: ExchangeState): string {
  const { totals } = state;
  return JSON.stringify({
    version: encodingVersion,
    counters: counterRow(state),
    totals: [
      String(totals.deposited),
      String(totals.withdrawn),
      String(totals.feeIncome),
      String(totals.withdrawalFeeIncome),
    ],
    markets: byNumber(state.markets).map(marketRow),
    outcomes: byNumber(state.outcomes).map((outcome) => [
      outcome.outcomeId,
      outcome.marketId,
      outcome.name,
      outcome.optionIds,
      String(outcome.collateral),
      outcome.book !== null,
      outcome.lastTradeYesPriceUnits,
    ]),
    options: byNumber(state.options).map((option) => [
      option.optionId,
      option.outcomeId,
      option.marketId,
      option.optionIndex,
      option.title,
      option.assetId,
    ]),
    accounts: byNumber(state.accounts).map(accountRow),
    orders: state.orders.values().map(orderRow),
    deposits: byText(state.depositTxHashes),
    withdrawals: byNumber(state.withdrawals).map((withdrawal) => [
      withdrawal.withdrawalId,
      withdrawal.userId,
      String(withdrawal.amount),
      String(withdrawal.fee),
      withdrawal.address,
      withdrawal.status,
      withdrawal.requestedAtMs,
    ]),
    ...encodeLifecycle(state),
    ...encodePools(state),
    // Only when a switch is armed: a snapshot from before switches existed reads back unchanged.
    ...(state.deadMansSwitches.size === 0
      ? {}
      : { deadMansSwitches: byNumberEntries(state.deadMansSwitches) }),
    ...encodeExclusiveMarkets(state),
  });
}

/** The counters' row; the requeue count only once an amend has requeued an order. */
function counterRow(state: ExchangeState): number[] {
  const { counters } = state;
  const row = [
    counters.nextMarketId,
    counters.nextOutcomeId,
    counters.nextOptionId,
    counters.nextOrderId,
    counters.nextTradeId,
    counters.nextPositionId,
    counters.nextWithdrawalId,
  ];
  if (counters.orderRequeues !== 0) row.push(counters.orderRequeues);
  return row;
}

function marketRow(market: Market): unknown[] {
  return [
    market.marketId,
    market.title,
    market.modelType,
    market.status,
    market.tickUnits,
    market.minOrderLots,
    market.makerFeeBps,
    market.takerFeeBps,
    market.marketProtectionUnits,
    market.limitProtectionUnits,
    market.startTimeMs,
    market.endTimeMs,
    market.creatorId,
    market.createdAtMs,
    market.outcomeIds,
    String(market.feeIncome),
  ];
}

function accountRow(account: Account): unknown[] {
  return [
    account.userId,
    String(account.available),
    String(account.frozen),
    byNumber(account.positions).map((position) => [
      position.positionId,
      position.optionId,
      String(position.shares),
      String(position.frozenShares),
      String(position.cost),
      String(position.realizedPnl),
    ]),
    byText(account.clientOrderIds).map(([clientOrderId, { orderId, atMs }]) => [
      clientOrderId,
      orderId,
      atMs,
    ]),
  ];
}

type Row = unknown[];
type EncodedState = Record<string, Row[] | Row | number>;

export function decodeState(text: string, bookKind: BookKind): ExchangeState {
  const data = JSON.parse(text) as EncodedState;
  if (data.version !== encodingVersion)
    throw new Error(`codec: unknown state version ${String(data.version)}`);
  const state = createInitialState(bookKind);
  decodeCountersAndTotals(state, data);
  for (const row of data.markets as Row[]) {
    const market = marketOfRow(row);
    state.markets.set(market.marketId, market);
  }
  for (const [
    outcomeId,
    marketId,
    name,
    optionIds,
    collateral,
    hasBook,
    lastTrade,
  ] of data.outcomes as Row[]) {
    const market = state.markets.get(marketId as number)!;
    state.outcomes.set(outcomeId as number, {
      outcomeId: outcomeId as number,
      marketId: marketId as number,
      name: name as string,
      optionIds: optionIds as [number, number],
      collateral: BigInt(collateral as string),
      book: hasBook ? createBook(bookKind, market.tickUnits) : null,
      lastTradeYesPriceUnits: lastTrade as number,
    });
  }
  for (const [optionId, outcomeId, marketId, optionIndex, title, assetId] of data.options as Row[]) {
    state.options.set(optionId as number, {
      optionId: optionId as number,
      outcomeId: outcomeId as number,
      marketId: marketId as number,
      optionIndex: optionIndex as OptionIndex,
      title: title as string,
      assetId: assetId as string,
    });
  }
  for (const row of data.accounts as Row[]) {
    const account = accountOfRow(state, row);
    state.accounts.set(account.userId, account);
  }
  for (const row of data.orders as Row[]) {
    const order = orderOfRow(state, row);
    indexRestingOrder(state, state.accounts.get(order.userId)!, order);
  }
  // Each book takes its orders in time priority, so each level's queue is what it was.
  const byPriority = state.orders.values().sort((a, b) => a.timePriority - b.timePriority);
  for (const order of byPriority) state.outcomes.get(order.outcomeId)!.book!.add(order);
  for (const [txHash, userId] of data.deposits as [string, number][]) {
    state.depositTxHashes.set(txHash, userId);
  }
  decodeWithdrawals(state, data);
  for (const [userId, expiresAtMs] of (data.deadMansSwitches ?? []) as [number, number][]) {
    state.deadMansSwitches.set(userId, expiresAtMs);
  }
  rebuildClientOrderIdRegistry(state);
  decodeLifecycle(state, data);
  decodePools(state, data);
  decodeExclusiveMarkets(state, data);
  return state;
}

/** Snapshots written before withdrawals existed lack their counter, total and list. */
function decodeCountersAndTotals(state: ExchangeState, data: EncodedState): void {
  const [
    nextMarketId,
    nextOutcomeId,
    nextOptionId,
    nextOrderId,
    nextTradeId,
    nextPositionId,
    nextWithdrawalId,
    orderRequeues,
  ] = data.counters as number[];
  Object.assign(state.counters, {
    nextMarketId,
    nextOutcomeId,
    nextOptionId,
    nextOrderId,
    nextTradeId,
    nextPositionId,
    nextWithdrawalId: nextWithdrawalId ?? 1,
    orderRequeues: orderRequeues ?? 0,
  });
  const [deposited, withdrawn, feeIncome, withdrawalFeeIncome] = data.totals as string[];
  state.totals.deposited = BigInt(deposited!);
  state.totals.withdrawn = BigInt(withdrawn!);
  state.totals.feeIncome = BigInt(feeIncome!);
  state.totals.withdrawalFeeIncome = BigInt(withdrawalFeeIncome ?? "0");
}

function marketOfRow(row: Row): Market {
  const [marketId, title, modelType, status, tickUnits, minOrderLots, makerFeeBps, takerFeeBps] = row;
  const [marketProtectionUnits, limitProtectionUnits, startTimeMs, endTimeMs, creatorId, createdAtMs] =
    row.slice(8);
  return {
    marketId: marketId as number,
    title: title as string,
    modelType: modelType as ModelType,
    status: status as MarketStatus,
    tickUnits: tickUnits as number,
    minOrderLots: minOrderLots as number,
    makerFeeBps: makerFeeBps as number,
    takerFeeBps: takerFeeBps as number,
    marketProtectionUnits: marketProtectionUnits as number,
    limitProtectionUnits: limitProtectionUnits as number,
    startTimeMs: startTimeMs as number | null,
    endTimeMs: endTimeMs as number | null,
    creatorId: creatorId as number | null,
    createdAtMs: createdAtMs as number,
    outcomeIds: row[14] as number[],
    feeIncome: BigInt(row[15] as string),
  };
}

function accountOfRow(state: ExchangeState, row: Row): Account {
  const [userId, available, frozen, positions, clientOrderIds] = row;
  const account = newAccount(userId as number);
  account.available = BigInt(available as string);
  account.frozen = BigInt(frozen as string);
  for (const [positionId, optionId, shares, frozenShares, cost, realizedPnl] of positions as Row[]) {
    const option = state.options.get(optionId as number)!;
    const position: Position = {
      positionId: positionId as number,
      userId: userId as number,
      marketId: option.marketId,
      outcomeId: option.outcomeId,
      optionId: optionId as number,
      shares: BigInt(shares as string),
      frozenShares: BigInt(frozenShares as string),
      cost: BigInt(cost as string),
      realizedPnl: BigInt(realizedPnl as string),
    };
    account.positions.set(position.optionId, position);
  }
  // Snapshots from before the retention window have no time: such ids count as expired.
  for (const [clientOrderId, orderId, atMs] of clientOrderIds as [string, number, number?][]) {
    account.clientOrderIds.set(clientOrderId, { orderId, atMs: atMs ?? 0 });
  }
  return account;
}

/** A resting order from its row (orderRow), not yet on its book nor in the state's indexes. */
function orderOfRow(state: ExchangeState, row: Row): Order {
  const [orderId, userId, optionId, side, timeInForce, priceUnits, originalLots, remainingLots] = row;
  const [
    filledLots,
    filledNotional,
    feesPaid,
    frozenAmount,
    expiresAtMs,
    clientOrderId,
    createdAtMs,
    postOnly,
    timePriority,
  ] = row.slice(8);
  const option = state.options.get(optionId as number)!;
  return {
    orderId: orderId as number,
    userId: userId as number,
    marketId: option.marketId,
    outcomeId: option.outcomeId,
    optionId: option.optionId,
    optionIndex: option.optionIndex,
    side: side as OrderSide,
    timeInForce: timeInForce as "GTC" | "GTD",
    bookSide: bookSideOf(side as OrderSide, option.optionIndex),
    priceUnits: priceUnits as number,
    yesPriceUnits: yesPriceOf(priceUnits as number, option.optionIndex, priceUnitsPerUnit),
    originalLots: originalLots as number,
    remainingLots: remainingLots as number,
    timePriority: (timePriority as number | undefined) ?? (orderId as number),
    filledLots: filledLots as number,
    filledNotional: filledNotional as number,
    feesPaid: feesPaid as number,
    frozenAmount: frozenAmount as number,
    expiresAtMs: expiresAtMs as number | null,
    clientOrderId: clientOrderId as string | null,
    createdAtMs: createdAtMs as number,
    postOnly: postOnly === true,
    previous: null,
    next: null,
    userPrevious: null,
    userNext: null,
  };
}

function decodeWithdrawals(state: ExchangeState, data: EncodedState): void {
  for (const [withdrawalId, userId, amount, fee, address, status, requestedAtMs] of (data.withdrawals ??
    []) as Row[]) {
    state.withdrawals.set(withdrawalId as number, {
      withdrawalId: withdrawalId as number,
      userId: userId as number,
      amount: BigInt(amount as string),
      fee: BigInt(fee as string),
      address: address as string,
      status: status as WithdrawalStatus,
      requestedAtMs: requestedAtMs as number,
    });
  }
}

export function createStateCodec(bookKind: BookKind): StateCodec<ExchangeState> {
  return { encode: encodeState, decode: (text) => decodeState(text, bookKind) };
}
