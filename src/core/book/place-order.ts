// decide for PlaceOrder on an order book: the checks of the moment (market open, expiry, balance,
// price protection) and matching, once order-terms.ts has checked the order. Matching walks the book read-only
// in price-time priority and describes each step as an event; evolve applies them afterwards.
// Every price here is in price units and every quantity in lots (units.ts), so the arithmetic is
// exact integer arithmetic on JS numbers; bigint appears only where events carry money out.

import type { PlaceOrderCommand } from "../commands.js";
import type { CommandContext, Decision } from "../decider.js";
import { type RejectionCode, reject } from "../errors.js";
import type {
  CrossType,
  ExchangeEvent,
  OrderCancelledEvent,
  OrderExpiredEvent,
  OrderPlacedEvent,
  TradeExecutedEvent,
} from "../events.js";
import { makersPerTakerMax, openOrdersPerUserMax, ordersPerBookMax } from "../limits.js";
import type { Market, OptionRecord, Outcome } from "../market.js";
import { isWithinTradingWindow } from "../market.js";
import type { BookOrderTerms } from "../order-terms.js";
import type { ExchangeState } from "../state.js";
import { atomsOf, lotsToShares, priceUnitsPerUnit, priceUnitsToAtoms } from "../units.js";
import type { Account } from "../wallet/ledger.js";
import { affordableLots, buyReserveAtoms, feeAtoms } from "./fees.js";
import type { OrderBook } from "./order-book.js";
import {
  askSide,
  type BookSide,
  bidSide,
  bookSideOf,
  type Order,
  type OrderSide,
  type OrderStatus,
  yesPriceOf,
} from "./orders.js";

/** Stands in slot 0 of a PlaceOrder's events until OrderPlaced replaces it; never emitted. */
const placeholderEvent: ExchangeEvent = { type: "Placeholder" } as unknown as ExchangeEvent;

function refuse(code: RejectionCode): Decision<ExchangeEvent> {
  return { ok: false, rejection: reject(code) };
}

/** Where a PlaceOrder on an order book goes, and its terms as order-terms.ts worked them out. */
export interface BookPlacement {
  readonly market: Market;
  readonly outcome: Outcome;
  readonly option: OptionRecord;
  readonly bookTerms: BookOrderTerms;
}

/**
 * decide for PlaceOrder on an order-book market, once place-order.ts has checked the order against
 * the market (order-terms.ts, which worked out its terms) and seen that the clientOrderId is new:
 * the checks of the moment, risk, price protection, then matching, then the order's own event.
 */
export function decideBookOrder(
  state: ExchangeState,
  command: PlaceOrderCommand,
  context: CommandContext,
  account: Account | undefined,
  placement: BookPlacement,
): Decision<ExchangeEvent> {
  const { market, outcome, option, bookTerms: terms } = placement;
  const nowMs = context.nowMs;
  const closed = momentRejection(market, command, nowMs);
  if (closed !== undefined) return refuse(closed);
  const book = outcome.book;
  if (book === null) throw new Error("decide: an open orderbook market has no book");

  // Risk: the whole order must be covered before it may trade. A seller's position is found here
  // already; a buyer's is looked up at its first fill.
  let takerPositionId = 0;
  if (command.side === "SELL") {
    const position = account?.positions.get(option.optionId);
    if (position === undefined || position.shares < (command.shares as bigint))
      return refuse("INSUFFICIENT_SHARES");
    takerPositionId = position.positionId;
  } else if (!buyIsCovered(terms, account, market)) {
    return refuse("INSUFFICIENT_BALANCE");
  }

  const takerSide = bookSideOf(command.side, option.optionIndex);
  const yesLimit = takerYesLimit(terms, book, takerSide, placement, command.postOnly === true, nowMs);
  if (typeof yesLimit === "string") return refuse(yesLimit);

  // Slot 0 is kept for OrderPlaced, which is written last because it carries the final status
  // (Array.prototype.unshift showed up as the single most expensive line of this function).
  const events: ExchangeEvent[] = [placeholderEvent];
  const taker: Taker = {
    book,
    orderId: state.counters.nextOrderId,
    userId: command.userId,
    optionId: option.optionId,
    optionIndex: option.optionIndex,
    side: command.side,
    takerSide,
    yesLimit,
    lots: terms.kind === "MARKET_BUY" ? 0 : terms.lots,
    budget: terms.kind === "MARKET_BUY" ? terms.budgetAtoms : -1,
    makerFeeBps: market.makerFeeBps,
    takerFeeBps: market.takerFeeBps,
    nowMs,
  };
  const match = matchTaker(
    taker,
    positionIds.reset(state, takerPositionId),
    state.counters.nextTradeId,
    events,
  );
  const restLots = restingLots(command, terms, match, account, book);
  if (typeof restLots === "string") return refuse(restLots);
  const placed = placedEvent(command, placement, taker, match, restLots);
  // Only a post-only order carries the flag (a copy, on that rarer path only).
  events[0] = command.postOnly === true ? { ...placed, postOnly: true } : placed;
  return { ok: true, events };
}

/** What the moment refuses: a market not open for trading now, a GTD expiry already past. */
function momentRejection(
  market: Market,
  command: PlaceOrderCommand,
  nowMs: number,
): RejectionCode | undefined {
  if (market.status !== "open") return "MARKET_NOT_OPEN";
  // Trading runs from startTime to endTime even between the scheduler's ticks: an operator may open
  // (publish) a market before its start, and the scheduler's CloseMarket may come a tick late.
  if (!isWithinTradingWindow(market, nowMs)) return "MARKET_NOT_OPEN";
  if (command.timeInForce === "GTD" && (command.expiresAtMs as number) <= nowMs) return "ORDER_EXPIRED";
  return undefined;
}

/** Risk for a buyer: a MARKET BUY's budget, or a LIMIT BUY in the worst case, must be available. */
function buyIsCovered(terms: BookOrderTerms, account: Account | undefined, market: Market): boolean {
  const available = account === undefined ? 0n : account.available;
  switch (terms.kind) {
    case "MARKET_BUY":
      // A bigint against a number compares exactly.
      return available >= terms.budgetAtoms;
    case "LIMIT":
      // Number(available) is exact below 2^53 and, above it, still larger than any order's need.
      return limitBuyIsCovered(Number(available), terms.lots, terms.limitUnits, market);
    case "MARKET_SELL":
      throw new Error("decide: a MARKET SELL has no buyer's risk");
    default: {
      const unreachable: never = terms;
      return unreachable;
    }
  }
}

/**
 * Whether `availableAtoms` cover a LIMIT BUY of `lots` at `priceUnits` in the worst case: every
 * lot at the limit price, paying the larger of the two fees. A new order and an amended one alike.
 */
export function limitBuyIsCovered(
  availableAtoms: number,
  lots: number,
  priceUnits: number,
  market: Market,
): boolean {
  const needed = lots * priceUnits;
  return availableAtoms >= needed + feeAtoms(needed, Math.max(market.makerFeeBps, market.takerFeeBps));
}

/**
 * The worst Yes price the taker may trade at, after price protection against the best opposite
 * price when the order arrives (DESIGN §8), or the refusal. A LIMIT order's own price, unless it
 * reaches too far or is post-only and would trade; a MARKET order's the best opposite price moved
 * by the market's protection.
 */
function takerYesLimit(
  terms: BookOrderTerms,
  book: OrderBook,
  takerSide: BookSide,
  placement: BookPlacement,
  postOnly: boolean,
  nowMs: number,
): number | RejectionCode {
  const { market } = placement;
  if (terms.kind === "LIMIT") {
    const yesLimit = yesPriceOf(terms.limitUnits, placement.option.optionIndex, priceUnitsPerUnit);
    if (isBeyondLimitProtection(book, takerSide, yesLimit, market)) return "PRICE_PROTECTION";
    // A post-only order rests or is refused; it never takes (order-shape.ts keeps it to GTC/GTD).
    if (postOnly && meetsLiveOrder(book, oppositeSide(takerSide), takerSide, yesLimit, nowMs))
      return "POST_ONLY_WOULD_TRADE";
    return yesLimit;
  }
  const bestOpposite = book.bestPrice(oppositeSide(takerSide));
  if (bestOpposite === -1) return "NO_LIQUIDITY";
  return takerSide === bidSide
    ? bestOpposite + market.marketProtectionUnits
    : bestOpposite - market.marketProtectionUnits;
}

function oppositeSide(side: BookSide): BookSide {
  return side === bidSide ? askSide : bidSide;
}

/**
 * Whether a LIMIT order at `yesLimit` reaches further into the opposite side than the market's
 * protection allows. Only the aggressive direction is protected: a passive order never trades at a
 * bad price.
 */
export function isBeyondLimitProtection(
  book: OrderBook,
  takerSide: BookSide,
  yesLimit: number,
  market: Market,
): boolean {
  const bestOpposite = book.bestPrice(oppositeSide(takerSide));
  if (bestOpposite === -1) return false;
  const beyond = takerSide === bidSide ? yesLimit - bestOpposite : bestOpposite - yesLimit;
  return beyond > market.limitProtectionUnits;
}

/**
 * What the order's time in force and the limits make of the part matching left: the lots that
 * rest on the book (0 when none does), or the refusal.
 */
function restingLots(
  command: PlaceOrderCommand,
  terms: BookOrderTerms,
  match: TakerMatch,
  account: Account | undefined,
  book: OrderBook,
): number | RejectionCode {
  const { timeInForce } = command;
  if (timeInForce === "FOK" && match.remainingLots > 0) return "FOK_NOT_FILLED";
  if (match.filledLots === 0 && (timeInForce === "FAK" || terms.kind !== "LIMIT")) return "NO_LIQUIDITY";
  const rests =
    terms.kind === "LIMIT" && (timeInForce === "GTC" || timeInForce === "GTD") && !match.stoppedEarly;
  if (!rests || match.remainingLots === 0) return 0;
  if (account !== undefined && account.openOrderCount >= openOrdersPerUserMax) return "OPEN_ORDERS_LIMIT";
  if (book.orderCount >= ordersPerBookMax) return "BOOK_ORDERS_LIMIT";
  return match.remainingLots;
}

/** The new order's own event: what it asked for, what it filled, what rests and what that holds. */
function placedEvent(
  command: PlaceOrderCommand,
  placement: BookPlacement,
  taker: Taker,
  match: TakerMatch,
  restLots: number,
): OrderPlacedEvent {
  const terms = placement.bookTerms;
  const isBuy = command.side === "BUY";
  let status: OrderStatus;
  if (restLots > 0) status = match.filledLots === 0 ? "OPEN" : "PARTIALLY_FILLED";
  else if (terms.kind === "MARKET_BUY") status = match.budgetSpent ? "FILLED" : "CANCELLED";
  else status = match.remainingLots === 0 ? "FILLED" : "CANCELLED";
  // Only a LIMIT order rests (restingLots), so only its terms have a price to reserve at.
  const frozenAmount =
    restLots > 0 && isBuy && terms.kind === "LIMIT"
      ? buyReserveAtoms(restLots, terms.limitUnits, taker.makerFeeBps)
      : 0;
  // An order that rests untouched rests with the shares it asked for: no new bigint needed.
  const restingShares =
    restLots > 0 && restLots === taker.lots ? (command.shares as bigint) : lotsToShares(restLots);
  return {
    type: "OrderPlaced",
    orderId: taker.orderId,
    userId: command.userId,
    marketId: placement.market.marketId,
    outcomeId: placement.outcome.outcomeId,
    optionId: placement.option.optionId,
    side: command.side,
    orderType: command.orderType,
    timeInForce: command.timeInForce,
    limitPrice: command.limitPrice,
    shares: command.shares,
    amount: command.amount,
    expiresAtMs: command.expiresAtMs,
    clientOrderId: command.clientOrderId,
    createdAtMs: taker.nowMs,
    status,
    filledShares: lotsToShares(match.filledLots),
    filledAmount: atomsOf(match.filledNotional),
    feePaid: atomsOf(match.feePaid),
    restingShares,
    frozenAmount: atomsOf(frozenAmount),
    frozenShares: isBuy ? 0n : restingShares,
  };
}

/**
 * Whether an order at `yesLimit` on `takerSide` would meet a live order of the opposite side at
 * once. An expired GTD order does not count (it would leave the book, not trade); one of the same
 * user does (it would be cancelled by self-trade prevention, which a post-only order must not do).
 */
export function meetsLiveOrder(
  book: OrderBook,
  makerSide: BookSide,
  takerSide: BookSide,
  yesLimit: number,
  nowMs: number,
): boolean {
  for (let maker = book.first(makerSide); maker !== null; maker = book.next(maker)) {
    const makerYes = maker.yesPriceUnits;
    if (takerSide === bidSide ? makerYes > yesLimit : makerYes < yesLimit) return false;
    if (maker.expiresAtMs === null || maker.expiresAtMs > nowMs) return true;
  }
  return false;
}

/** The incoming order that walks the book: a new order, or an amended one sent to the back. */
export interface Taker {
  readonly book: OrderBook;
  readonly orderId: number;
  readonly userId: number;
  readonly optionId: number;
  readonly optionIndex: 0 | 1;
  readonly side: OrderSide;
  readonly takerSide: BookSide;
  /** The worst Yes price it may trade at, price units. */
  readonly yesLimit: number;
  /** Lots to fill; unused when it spends a budget. */
  readonly lots: number;
  /** A MARKET BUY's atoms to spend, taker fee included; -1 for an order of a number of lots. */
  readonly budget: number;
  readonly makerFeeBps: number;
  readonly takerFeeBps: number;
  readonly nowMs: number;
}

/** What one walk of the book did. One instance serves every decide (decide is synchronous). */
export class TakerMatch {
  remainingLots = 0;
  filledLots = 0;
  filledNotional = 0;
  feePaid = 0;
  /** It met makersPerTakerMax makers: what is left must not rest (it was not matched in full). */
  stoppedEarly = false;
  /** A budget order spent what it could. */
  budgetSpent = false;
}

const takerMatch = new TakerMatch();

/**
 * Walks the opposite side in price-time priority while prices cross, describing each step as an
 * event pushed to `events`: an expired maker leaves (OrderExpired), a maker of the same user is
 * cancelled (self-trade prevention), any other maker trades at its own price (TradeExecuted).
 */
export function matchTaker(
  taker: Taker,
  positions: PositionIds,
  firstTradeId: number,
  events: ExchangeEvent[],
): TakerMatch {
  const { book, takerSide, yesLimit, userId, optionIndex, takerFeeBps, nowMs } = taker;
  const byAmount = taker.budget >= 0;
  let budget = taker.budget;
  let nextTradeId = firstTradeId;
  let remainingLots = taker.lots;
  let filledLots = 0;
  let filledNotional = 0;
  let feePaid = 0;
  let makersTraded = 0;
  let stoppedEarly = false;
  let budgetSpent = false;
  for (let maker = book.first(oppositeSide(takerSide)); maker !== null; ) {
    const makerYes = maker.yesPriceUnits;
    if (takerSide === bidSide ? makerYes > yesLimit : makerYes < yesLimit) break;
    const next = book.next(maker);
    const expired = maker.expiresAtMs !== null && maker.expiresAtMs <= nowMs;
    if (expired || maker.userId === userId) {
      // An expired order never trades: it leaves the book as it is met. A resting order of the same
      // user is cancelled, never traded against (self-trade prevention).
      events.push(releaseEvent(expired ? "OrderExpired" : "OrderCancelled", maker, nowMs));
      maker = next;
      continue;
    }
    if (makersTraded === makersPerTakerMax) {
      stoppedEarly = true;
      break;
    }
    const takerPrice = optionIndex === 0 ? makerYes : priceUnitsPerUnit - makerYes;
    let fillLots = byAmount ? affordableLots(budget, takerPrice, takerFeeBps) : remainingLots;
    if (byAmount && fillLots === 0) {
      budgetSpent = true;
      break;
    }
    if (fillLots > maker.remainingLots) fillLots = maker.remainingLots;
    const takerNotional = fillLots * takerPrice;
    const takerFee = feeAtoms(takerNotional, takerFeeBps);
    const fill: Fill = { tradeId: nextTradeId++, maker, lots: fillLots, takerPrice, takerNotional, takerFee };
    events.push(tradeEvent(taker, fill, positions));
    makersTraded++;
    filledLots += fillLots;
    filledNotional += takerNotional;
    feePaid += takerFee;
    if (byAmount) {
      budget -= takerNotional + takerFee;
      // What is left cannot buy a lot here, nor anywhere worse: the budget is spent.
      if (fillLots < maker.remainingLots || budget < takerPrice) {
        budgetSpent = true;
        break;
      }
    } else {
      remainingLots -= fillLots;
      if (remainingLots === 0) break;
    }
    maker = next;
  }
  const match = takerMatch;
  match.remainingLots = remainingLots;
  match.filledLots = filledLots;
  match.filledNotional = filledNotional;
  match.feePaid = feePaid;
  match.stoppedEarly = stoppedEarly;
  match.budgetSpent = budgetSpent;
  return match;
}

/**
 * Position ids for one command: existing ones from the state, new ones from the counter. One
 * instance is reused by every decide (decide is synchronous), so the hot path allocates nothing.
 */
export class PositionIds {
  private state: ExchangeState | null = null;
  private nextPositionId = 0;
  /** (userId, optionId, positionId) triples created in this command. */
  private readonly created: number[] = [];
  private createdCount = 0;
  /** The taker's position id once looked up: the taker is in every trade of its command. */
  private takerPositionId = 0;

  reset(state: ExchangeState, takerPositionId: number): PositionIds {
    this.state = state;
    this.nextPositionId = state.counters.nextPositionId;
    // A count rather than `created.length = 0`, which is a runtime call on every order.
    this.createdCount = 0;
    this.takerPositionId = takerPositionId;
    return this;
  }

  takerIdFor(userId: number, optionId: number): number {
    if (this.takerPositionId === 0) this.takerPositionId = this.idFor(userId, optionId);
    return this.takerPositionId;
  }

  idFor(userId: number, optionId: number): number {
    const existing = this.state!.accounts.get(userId)?.positions.get(optionId);
    if (existing !== undefined) return existing.positionId;
    const created = this.created;
    const end = this.createdCount * 3;
    for (let index = 0; index < end; index += 3) {
      if (created[index] === userId && created[index + 1] === optionId) return created[index + 2]!;
    }
    const positionId = this.nextPositionId++;
    created[end] = userId;
    created[end + 1] = optionId;
    created[end + 2] = positionId;
    this.createdCount++;
    return positionId;
  }
}

export const positionIds = new PositionIds();

/** One fill of a taker against one resting maker, as matchTaker found it. */
interface Fill {
  readonly tradeId: number;
  readonly maker: Order;
  readonly lots: number;
  /** The taker's price in its own option's terms, price units. */
  readonly takerPrice: number;
  readonly takerNotional: number;
  readonly takerFee: number;
}

function tradeEvent(taker: Taker, fill: Fill, positions: PositionIds): TradeExecutedEvent {
  const { maker, lots, takerPrice, takerNotional, takerFee } = fill;
  const makerFeeBps = taker.makerFeeBps;
  const makerNotional = lots * maker.priceUnits;
  const makerFee = feeAtoms(makerNotional, makerFeeBps);
  const makerRemaining = maker.remainingLots - lots;
  let makerAvailableDelta: number;
  let makerFrozenDelta: number;
  if (maker.side === "BUY") {
    // The maker's reserve shrinks with its remaining lots; what the fill did not cost comes back.
    const released = maker.frozenAmount - buyReserveAtoms(makerRemaining, maker.priceUnits, makerFeeBps);
    makerFrozenDelta = -released;
    makerAvailableDelta = released - makerNotional - makerFee;
  } else {
    makerFrozenDelta = 0;
    makerAvailableDelta = makerNotional - makerFee;
  }
  const shares = lotsToShares(lots);
  const makerNotionalAtoms = atomsOf(makerNotional);
  const cross: CrossType =
    maker.optionIndex === taker.optionIndex ? "TRANSFER" : maker.side === "BUY" ? "MINT" : "MERGE";
  const makerPositionId = positions.idFor(maker.userId, maker.optionId);
  const takerPositionId = positions.takerIdFor(taker.userId, taker.optionId);
  return {
    type: "TradeExecuted",
    tradeId: fill.tradeId,
    marketId: maker.marketId,
    outcomeId: maker.outcomeId,
    cross,
    yesPrice: priceUnitsToAtoms(maker.yesPriceUnits),
    shares,
    atMs: taker.nowMs,
    makerOrderId: maker.orderId,
    makerUserId: maker.userId,
    makerOptionId: maker.optionId,
    makerSide: maker.side,
    makerPositionId,
    makerPrice: priceUnitsToAtoms(maker.priceUnits),
    makerNotional: makerNotionalAtoms,
    makerFee: atomsOf(makerFee),
    makerAvailableDelta: atomsOf(makerAvailableDelta),
    makerFrozenDelta: atomsOf(makerFrozenDelta),
    makerRemainingShares: lotsToShares(makerRemaining),
    makerStatus: makerRemaining === 0 ? "FILLED" : "PARTIALLY_FILLED",
    takerOrderId: taker.orderId,
    takerUserId: taker.userId,
    takerOptionId: taker.optionId,
    takerSide: taker.side,
    takerPositionId,
    takerPrice: priceUnitsToAtoms(takerPrice),
    // In a transfer both sides have the same notional: one bigint serves both.
    takerNotional: takerNotional === makerNotional ? makerNotionalAtoms : atomsOf(takerNotional),
    takerFee: atomsOf(takerFee),
    takerAvailableDelta: atomsOf(
      taker.side === "BUY" ? -(takerNotional + takerFee) : takerNotional - takerFee,
    ),
    collateralDelta: cross === "MINT" ? shares : cross === "MERGE" ? -shares : 0n,
  };
}

/** A resting order leaves the book unfilled: what it had frozen comes back. */
export function releaseEvent(type: "OrderExpired", order: Order, nowMs: number): OrderExpiredEvent;
export function releaseEvent(
  type: "OrderCancelled",
  order: Order,
  nowMs: number,
  reason?: OrderCancelledEvent["reason"],
): OrderCancelledEvent;
export function releaseEvent(
  type: "OrderExpired" | "OrderCancelled",
  order: Order,
  nowMs: number,
): OrderExpiredEvent | OrderCancelledEvent;
export function releaseEvent(
  type: "OrderExpired" | "OrderCancelled",
  order: Order,
  nowMs: number,
  reason: OrderCancelledEvent["reason"] = "SELF_TRADE",
): OrderExpiredEvent | OrderCancelledEvent {
  const isBuy = order.side === "BUY";
  const remainingShares = lotsToShares(order.remainingLots);
  const filledShares = lotsToShares(order.filledLots);
  const releasedAmount = isBuy ? atomsOf(order.frozenAmount) : 0n;
  const releasedShares = isBuy ? 0n : remainingShares;
  // Two literal shapes rather than a spread: this is on the hot path of every cancel.
  if (type === "OrderExpired") {
    return {
      type,
      orderId: order.orderId,
      userId: order.userId,
      marketId: order.marketId,
      outcomeId: order.outcomeId,
      optionId: order.optionId,
      side: order.side,
      filledShares,
      remainingShares,
      releasedAmount,
      releasedShares,
      atMs: nowMs,
    };
  }
  return {
    type,
    reason,
    orderId: order.orderId,
    userId: order.userId,
    marketId: order.marketId,
    outcomeId: order.outcomeId,
    optionId: order.optionId,
    side: order.side,
    filledShares,
    remainingShares,
    releasedAmount,
    releasedShares,
    atMs: nowMs,
  };
}
