// What must hold after every command (TigerBeetle's "assert the positive and negative space").
// checkInvariants lists every violation; assertInvariants throws on the first list that is not
// empty. Tests call it after every step; the engine may call it after replay.

import { buyReserveAtoms } from "./book/fees.js";
import type { Order } from "./book/orders.js";
import { conversionAdvanceTotal, retiredNoSharesOf } from "./exclusive/exclusive-market.js";
import { checkExclusiveMarkets } from "./exclusive/invariants.js";
import { checkFinishedOutcomes, claimableAtoms, isFinished } from "./lifecycle/settlement.js";
import { checkPoolOutcome, platformPoolFundingNet } from "./pools/invariants.js";
import type { ExchangeState } from "./state.js";
import { lotsToShares } from "./units.js";
import type { Account } from "./wallet/ledger.js";

export function checkInvariants(state: ExchangeState): string[] {
  const problems: string[] = [];
  checkMoneyConserved(state, problems);
  problems.push(...checkExclusiveMarkets(state));
  checkOutstandingShares(state, problems);
  const holdings = tallyHoldings(state, problems);
  checkAccounts(state, holdings, problems);
  // Every armed dead-man's switch belongs to a user id and goes off at a whole millisecond.
  for (const [userId, expiresAtMs] of state.deadMansSwitches) {
    if (!Number.isSafeInteger(userId) || userId <= 0 || !Number.isSafeInteger(expiresAtMs))
      problems.push(`dead-man's switch of user ${userId}: bad deadline ${expiresAtMs}`);
  }
  checkBooks(state, holdings.ordersByOutcome, problems);
  return problems;
}

/** Money is conserved: what came in, less what went out, is exactly where it is now. */
function checkMoneyConserved(state: ExchangeState, problems: string[]): void {
  const { totals } = state;
  let balances = 0n;
  let collateral = 0n;
  let marketFees = 0n;
  for (const account of state.accounts.values()) {
    if (account.available < 0n) problems.push(`user ${account.userId}: negative available`);
    if (account.frozen < 0n) problems.push(`user ${account.userId}: negative frozen`);
    balances += account.available + account.frozen;
  }
  for (const outcome of state.outcomes.values()) {
    if (outcome.collateral < 0n) problems.push(`outcome ${outcome.outcomeId}: negative collateral`);
    collateral += outcome.collateral;
  }
  for (const market of state.markets.values()) marketFees += market.feeIncome;
  if (marketFees !== totals.feeIncome) problems.push("fee income of markets differs from the total");
  const fees = totals.feeIncome + totals.withdrawalFeeIncome;
  // The platform's AMM funding is money that came in besides deposits (pools/invariants.ts).
  const cameIn = totals.deposited - totals.withdrawn + platformPoolFundingNet(state);
  // Exclusive markets' conversions paid collateral ahead of their finish (exclusive/exclusive-market.ts).
  const heldNow = balances + collateral + fees - conversionAdvanceTotal(state);
  if (cameIn !== heldNow) {
    problems.push(
      `money not conserved: deposits − withdrawals + pool funding = ${cameIn}, ` +
        `balances + collateral + fees − conversion advances = ${heldNow}`,
    );
  }
}

/**
 * Every binary outcome: Yes outstanding = No outstanding = collateral units, until its market is
 * settled or void; from then on the collateral is exactly what is still to be claimed. In an
 * exclusive market the No outstanding counts the No shares conversions retired.
 */
function checkOutstandingShares(state: ExchangeState, problems: string[]): void {
  const outstanding = new Map<number, bigint>();
  const unclaimedPayout = new Map<number, bigint>();
  for (const account of state.accounts.values()) {
    for (const position of account.positions.values()) {
      if (position.shares < 0n || position.frozenShares < 0n) {
        problems.push(`position ${position.positionId}: negative shares`);
      }
      if (position.userId !== account.userId) problems.push(`position ${position.positionId}: wrong user`);
      const held = position.shares + position.frozenShares;
      outstanding.set(position.optionId, (outstanding.get(position.optionId) ?? 0n) + held);
      const owed = claimableAtoms(state, position);
      if (owed !== 0n)
        unclaimedPayout.set(position.outcomeId, (unclaimedPayout.get(position.outcomeId) ?? 0n) + owed);
    }
  }
  problems.push(...checkFinishedOutcomes(state, unclaimedPayout));
  for (const outcome of state.outcomes.values()) {
    const market = state.markets.get(outcome.marketId)!;
    if (isFinished(market)) continue;
    if (market.modelType !== "orderbook") {
      problems.push(...checkPoolOutcome(state, outcome, outstanding));
      continue;
    }
    const [yesId, noId] = outcome.optionIds;
    const yes = outstanding.get(yesId) ?? 0n;
    const no = (outstanding.get(noId) ?? 0n) + retiredNoSharesOf(state, market.marketId);
    if (yes !== outcome.collateral || no !== outcome.collateral) {
      problems.push(`outcome ${outcome.outcomeId}: Yes ${yes}, No ${no}, collateral ${outcome.collateral}`);
    }
  }
}

/** What resting orders, pending withdrawals and held bonds account for, tallied to check it against the accounts. */
interface Holdings {
  readonly frozenByUser: Map<number, bigint>;
  /** By `${userId}:${optionId}`. */
  readonly frozenSharesByPosition: Map<string, bigint>;
  readonly openByUser: Map<number, number>;
  readonly ordersByOutcome: Map<number, number>;
}

/**
 * Every frozen atom and share is backed by a resting order, a withdrawal or a bond: tallies them,
 * checking each resting order on the way.
 */
function tallyHoldings(state: ExchangeState, problems: string[]): Holdings {
  const holdings: Holdings = {
    frozenByUser: new Map(),
    frozenSharesByPosition: new Map(),
    openByUser: new Map(),
    ordersByOutcome: new Map(),
  };
  const { frozenByUser } = holdings;
  let withExpiry = 0;
  for (const order of state.orders.values()) {
    checkRestingOrder(state, order, holdings, problems);
    if (order.expiresAtMs !== null) withExpiry++;
  }
  // A withdrawal holds its amount and fee frozen until it completes or is released.
  for (const withdrawal of state.withdrawals.values()) {
    if (withdrawal.withdrawalId >= state.counters.nextWithdrawalId) {
      problems.push(`withdrawal ${withdrawal.withdrawalId}: id not yet issued`);
    }
    if (withdrawal.amount <= 0n || withdrawal.fee < 0n)
      problems.push(`withdrawal ${withdrawal.withdrawalId}: bad amount`);
    const held = withdrawal.amount + withdrawal.fee;
    frozenByUser.set(withdrawal.userId, (frozenByUser.get(withdrawal.userId) ?? 0n) + held);
  }
  // A challenge holds its bond frozen until the market settles or is voided.
  for (const resolution of state.resolutions.values()) {
    const challenge = resolution.challenge;
    if (challenge?.bondHeld)
      frozenByUser.set(challenge.userId, (frozenByUser.get(challenge.userId) ?? 0n) + challenge.bond);
  }
  if (withExpiry !== state.ordersWithExpiry.size)
    problems.push("expiry index holds orders that are not resting");
  return holdings;
}

/** One resting order is sound, and what it holds is added to the tallies. */
function checkRestingOrder(state: ExchangeState, order: Order, holdings: Holdings, problems: string[]): void {
  const { frozenByUser, frozenSharesByPosition, openByUser, ordersByOutcome } = holdings;
  const market = state.markets.get(order.marketId);
  if (market === undefined || market.status !== "open")
    problems.push(`order ${order.orderId}: market not open`);
  if (order.orderId >= state.counters.nextOrderId) problems.push(`order ${order.orderId}: id not yet issued`);
  if (!(order.remainingLots > 0)) problems.push(`order ${order.orderId}: nothing left but resting`);
  if (order.filledLots + order.remainingLots !== order.originalLots) {
    problems.push(`order ${order.orderId}: filled + remaining ≠ original`);
  }
  if (order.side === "BUY") {
    const reserve = market ? buyReserveAtoms(order.remainingLots, order.priceUnits, market.makerFeeBps) : -1;
    if (order.frozenAmount !== reserve)
      problems.push(`order ${order.orderId}: frozen ${order.frozenAmount} ≠ ${reserve}`);
    frozenByUser.set(order.userId, (frozenByUser.get(order.userId) ?? 0n) + BigInt(order.frozenAmount));
  } else {
    if (order.frozenAmount !== 0) problems.push(`order ${order.orderId}: a SELL freezes shares, not USDT`);
    const key = `${order.userId}:${order.optionId}`;
    frozenSharesByPosition.set(
      key,
      (frozenSharesByPosition.get(key) ?? 0n) + lotsToShares(order.remainingLots),
    );
  }
  openByUser.set(order.userId, (openByUser.get(order.userId) ?? 0) + 1);
  ordersByOutcome.set(order.outcomeId, (ordersByOutcome.get(order.outcomeId) ?? 0) + 1);
  if (order.expiresAtMs !== null && state.ordersWithExpiry.get(order.orderId) !== order)
    problems.push(`order ${order.orderId}: not indexed by expiry`);
}

/** Each account's frozen money, frozen shares, open orders and clientOrderIds match the tallies. */
function checkAccounts(state: ExchangeState, holdings: Holdings, problems: string[]): void {
  const { frozenByUser, frozenSharesByPosition, openByUser } = holdings;
  let rememberedClientOrderIds = 0;
  for (const account of state.accounts.values()) {
    const frozen = frozenByUser.get(account.userId) ?? 0n;
    if (account.frozen !== frozen)
      problems.push(
        `user ${account.userId}: frozen ${account.frozen} ≠ orders', withdrawals' and bonds' ${frozen}`,
      );
    const open = openByUser.get(account.userId) ?? 0;
    if (account.openOrderCount !== open) problems.push(`user ${account.userId}: open order count is wrong`);
    problems.push(...checkUserOrders(state, account));
    for (const position of account.positions.values()) {
      const frozenShares = frozenSharesByPosition.get(`${account.userId}:${position.optionId}`) ?? 0n;
      if (position.frozenShares !== frozenShares)
        problems.push(`position ${position.positionId}: frozen shares wrong`);
    }
    for (const [clientOrderId, { orderId }] of account.clientOrderIds) {
      if (orderId >= state.counters.nextOrderId)
        problems.push(`user ${account.userId}: clientOrderId for unissued order`);
      const registered = state.clientOrderIdRegistry.get(orderId);
      if (registered?.userId !== account.userId || registered.clientOrderId !== clientOrderId)
        problems.push(`user ${account.userId}: clientOrderId ${clientOrderId} missing from the registry`);
      rememberedClientOrderIds += 1;
    }
  }
  if (rememberedClientOrderIds !== state.clientOrderIdRegistry.size)
    problems.push("the clientOrderId registry holds ids no account remembers");
  for (const [userId] of frozenByUser)
    if (!state.accounts.has(userId)) problems.push(`order of unknown user ${userId}`);
}

/** Books: sound, holding exactly the resting orders of their outcome, never crossed at rest. */
function checkBooks(state: ExchangeState, ordersByOutcome: Map<number, number>, problems: string[]): void {
  for (const outcome of state.outcomes.values()) {
    const market = state.markets.get(outcome.marketId)!;
    const { book } = outcome;
    if (market.status === "draft") {
      if (book !== null) problems.push(`outcome ${outcome.outcomeId}: a draft market has a book`);
      continue;
    }
    // A market voided while still a draft never had a book.
    if (market.status === "void" && book === null) continue;
    if (book === null) {
      problems.push(`outcome ${outcome.outcomeId}: no book after opening`);
      continue;
    }
    try {
      book.validate();
    } catch (error) {
      problems.push(`outcome ${outcome.outcomeId}: ${(error as Error).message}`);
    }
    if (book.orderCount !== (ordersByOutcome.get(outcome.outcomeId) ?? 0)) {
      problems.push(
        `outcome ${outcome.outcomeId}: book holds ${book.orderCount} orders, state another count`,
      );
    }
    const bid = book.bestPrice(0);
    const ask = book.bestPrice(1);
    if (bid !== -1 && ask !== -1 && bid >= ask)
      problems.push(`outcome ${outcome.outcomeId}: crossed book ${bid}/${ask}`);
  }
}

/** The user's list of resting orders holds exactly them, in id order, linked both ways. */
function checkUserOrders(state: ExchangeState, account: Account): string[] {
  let listed = 0;
  let previous: Order | null = null;
  for (let order = account.firstOpenOrder; order !== null; order = order.userNext) {
    if (listed++ > account.openOrderCount) return [`user ${account.userId}: open-order list too long`];
    if (order.userPrevious !== previous) return [`user ${account.userId}: open-order list links broken`];
    if (order.userId !== account.userId || state.orders.get(order.orderId) !== order)
      return [`user ${account.userId}: open-order list holds order ${order.orderId}`];
    if (previous !== null && previous.orderId >= order.orderId)
      return [`user ${account.userId}: open-order list out of id order`];
    previous = order;
  }
  if (account.lastOpenOrder !== previous)
    return [`user ${account.userId}: open-order list has the wrong last`];
  if (listed !== account.openOrderCount) return [`user ${account.userId}: open-order list misses orders`];
  return [];
}

export function assertInvariants(state: ExchangeState): void {
  const problems = checkInvariants(state);
  if (problems.length > 0) throw new Error(`exchange invariants broken:\n${problems.join("\n")}`);
}
