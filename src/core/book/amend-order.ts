// decide for AmendOrder (amend-order, DESIGN §9). The priority rule: fewer shares at the same price
// keep the order's place in its queue (nothing about it got better for the maker, so nobody behind
// it is passed); any other change (a new price, more shares) sends it to the back of its new level,
// as a cancel and a new order would, and it may then trade at once, as a taker, unless it is
// post-only. Either way it keeps its id, side, option, time in force and expiry, and what it holds
// frozen follows exactly: all of it is released and what its rest needs is frozen again.

import type { AmendOrderCommand } from "../commands.js";
import type { CommandContext, Decision } from "../decider.js";
import { reject } from "../errors.js";
import type { ExchangeEvent, OrderAmendedEvent } from "../events.js";
import { isId } from "../ids.js";
import { orderSharesMax } from "../limits.js";
import { isWithinTradingWindow, type Market } from "../market.js";
import type { ExchangeState } from "../state.js";
import {
  atomsOf,
  lotsToShares,
  orderSharesToLots,
  priceToUnits,
  priceUnitsPerUnit,
  priceUnitsToAtoms,
} from "../units.js";
import { buyReserveAtoms } from "./fees.js";
import type { OrderBook } from "./order-book.js";
import {
  askSide,
  bidSide,
  type Order,
  type OrderStatus,
  statusOfRestingOrder,
  yesPriceOf,
} from "./orders.js";
import {
  isBeyondLimitProtection,
  limitBuyIsCovered,
  matchTaker,
  meetsLiveOrder,
  positionIds,
  type TakerMatch,
} from "./place-order.js";

const atomsPerOne = 100_000_000n;

function invalid(message: string): Decision<ExchangeEvent> {
  return { ok: false, rejection: reject("INVALID_INPUT", message) };
}

function refuse(code: Parameters<typeof reject>[0]): Decision<ExchangeEvent> {
  return { ok: false, rejection: reject(code) };
}

/** The order's new price and size, checked as a new LIMIT order's would be. */
type NewTerms = { readonly priceUnits: number; readonly totalLots: number };

export function decideAmendOrder(
  state: ExchangeState,
  command: AmendOrderCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  const { userId, orderId, shares, limitPrice } = command;
  if (!isId(userId)) return invalid("userId must be a positive integer");
  if (shares !== null && typeof shares !== "bigint") return invalid("shares must be a number");
  if (limitPrice !== null && typeof limitPrice !== "bigint") return invalid("limitPrice must be a number");
  if (shares === null && limitPrice === null) return invalid("amend-order needs shares or limitPrice");
  const order = isId(orderId) ? state.orders.get(orderId) : undefined;
  if (order === undefined) {
    // Terminal orders are not kept in the core; an id that was issued is simply no longer open.
    return refuse(
      isId(orderId) && orderId < state.counters.nextOrderId ? "ORDER_NOT_AMENDABLE" : "ORDER_NOT_FOUND",
    );
  }
  // Someone else's order is "not found": its existence is none of the caller's business.
  if (order.userId !== userId) return refuse("ORDER_NOT_FOUND");
  const nowMs = context.nowMs;
  // An expired GTD order is waiting for the scheduler to take it off: it is over.
  if (order.expiresAtMs !== null && order.expiresAtMs <= nowMs) return refuse("ORDER_NOT_AMENDABLE");
  const market = state.markets.get(order.marketId)!;
  if (market.status !== "open" || !isWithinTradingWindow(market, nowMs)) return refuse("MARKET_NOT_OPEN");

  let priceUnits = order.priceUnits;
  if (limitPrice !== null) {
    if (limitPrice <= 0n || limitPrice >= atomsPerOne) return refuse("PRICE_OUT_OF_RANGE");
    const units = priceToUnits(limitPrice);
    if (!Number.isInteger(units) || units % market.tickUnits !== 0) return refuse("PRICE_NOT_ON_TICK");
    priceUnits = units;
  }
  let totalLots = order.originalLots;
  if (shares !== null) {
    if (shares <= 0n) return refuse("SIZE_TOO_SMALL");
    if (shares > orderSharesMax) return refuse("SIZE_TOO_LARGE");
    const lots = orderSharesToLots(shares);
    if (!Number.isInteger(lots)) return refuse("SHARES_NOT_ON_STEP");
    if (lots < market.minOrderLots) return refuse("SIZE_TOO_SMALL");
    if (lots <= order.filledLots) return invalid("shares must be more than what has filled");
    totalLots = lots;
  }
  const remainingLots = totalLots - order.filledLots;
  if (priceUnits === order.priceUnits) {
    // The same order again: nothing changes (accepted, so a retried amend answers alike).
    if (remainingLots === order.remainingLots) return { ok: true, events: [] };
    if (remainingLots < order.remainingLots)
      return { ok: true, events: [reducedInPlace(order, market, totalLots, nowMs)] };
  }
  const book = state.outcomes.get(order.outcomeId)!.book!;
  return decideRequeue(state, order, market, book, { priceUnits, totalLots }, context);
}

/** Fewer shares at the same price: the order keeps its place; the difference is released. */
function reducedInPlace(order: Order, market: Market, totalLots: number, nowMs: number): OrderAmendedEvent {
  const isBuy = order.side === "BUY";
  const restLots = totalLots - order.filledLots;
  return amendedEvent(order, {
    priorityKept: true,
    priceUnits: order.priceUnits,
    totalLots,
    status: statusOfRestingOrder(order),
    filledLots: order.filledLots,
    filledNotional: order.filledNotional,
    feesPaid: order.feesPaid,
    restLots,
    frozenAmount: isBuy ? buyReserveAtoms(restLots, order.priceUnits, market.makerFeeBps) : 0,
    nowMs,
  });
}

/** Any other change: off the book, then in again at the back as a taker would come, keeping its id. */
function decideRequeue(
  state: ExchangeState,
  order: Order,
  market: Market,
  book: OrderBook,
  terms: NewTerms,
  context: CommandContext,
): Decision<ExchangeEvent> {
  const { priceUnits, totalLots } = terms;
  const { userId } = order;
  const nowMs = context.nowMs;
  const isBuy = order.side === "BUY";
  const remainingLots = totalLots - order.filledLots;
  const account = state.accounts.get(userId)!;

  // Risk: what the order holds comes back first; the new size must then be covered in the worst
  // case (every lot at the limit, the larger fee), as for a new order.
  let takerPositionId = 0;
  if (isBuy) {
    const availableAtoms = Number(account.available) + order.frozenAmount;
    if (!limitBuyIsCovered(availableAtoms, remainingLots, priceUnits, market))
      return refuse("INSUFFICIENT_BALANCE");
  } else {
    const position = account.positions.get(order.optionId)!;
    if (position.shares + lotsToShares(order.remainingLots) < lotsToShares(remainingLots))
      return refuse("INSUFFICIENT_SHARES");
    takerPositionId = position.positionId;
  }

  // Price protection and post-only, against the opposite side as it is (DESIGN §8, §9).
  const takerSide = order.bookSide;
  const makerSide = takerSide === bidSide ? askSide : bidSide;
  const yesLimit = yesPriceOf(priceUnits, order.optionIndex, priceUnitsPerUnit);
  if (isBeyondLimitProtection(book, takerSide, yesLimit, market)) return refuse("PRICE_PROTECTION");
  if (order.postOnly && meetsLiveOrder(book, makerSide, takerSide, yesLimit, nowMs))
    return refuse("POST_ONLY_WOULD_TRADE");

  const fills: ExchangeEvent[] = [];
  const match = matchTaker(
    {
      book,
      orderId: order.orderId,
      userId,
      optionId: order.optionId,
      optionIndex: order.optionIndex,
      side: order.side,
      takerSide,
      yesLimit,
      lots: remainingLots,
      budget: -1,
      makerFeeBps: market.makerFeeBps,
      takerFeeBps: market.takerFeeBps,
      nowMs,
    },
    positionIds.reset(state, takerPositionId),
    state.counters.nextTradeId,
    fills,
  );
  return { ok: true, events: [requeuedEvent(order, terms, match, market, nowMs), ...fills] };
}

/** The requeued order's event, once it has walked the book as a taker: what it filled, what rests. */
function requeuedEvent(
  order: Order,
  terms: NewTerms,
  match: TakerMatch,
  market: Market,
  nowMs: number,
): OrderAmendedEvent {
  const { priceUnits, totalLots } = terms;
  // What is left rests, unless it met too many makers (then, as for a new order, it is cancelled).
  const restLots = match.stoppedEarly ? 0 : match.remainingLots;
  const filledLots = order.filledLots + match.filledLots;
  let status: OrderStatus;
  if (restLots > 0) status = filledLots === 0 ? "OPEN" : "PARTIALLY_FILLED";
  else status = match.remainingLots === 0 ? "FILLED" : "CANCELLED";
  const isBuy = order.side === "BUY";
  return amendedEvent(order, {
    priorityKept: false,
    priceUnits,
    totalLots,
    status,
    filledLots,
    filledNotional: order.filledNotional + match.filledNotional,
    feesPaid: order.feesPaid + match.feePaid,
    restLots,
    frozenAmount: restLots > 0 && isBuy ? buyReserveAtoms(restLots, priceUnits, market.makerFeeBps) : 0,
    nowMs,
  });
}

interface Amendment {
  readonly priorityKept: boolean;
  readonly priceUnits: number;
  readonly totalLots: number;
  readonly status: OrderStatus;
  readonly filledLots: number;
  readonly filledNotional: number;
  readonly feesPaid: number;
  readonly restLots: number;
  /** USDT the rest of a BUY holds frozen from now on (atoms). */
  readonly frozenAmount: number;
  readonly nowMs: number;
}

function amendedEvent(order: Order, change: Amendment): OrderAmendedEvent {
  const isBuy = order.side === "BUY";
  const restingShares = lotsToShares(change.restLots);
  return {
    type: "OrderAmended",
    orderId: order.orderId,
    userId: order.userId,
    marketId: order.marketId,
    outcomeId: order.outcomeId,
    optionId: order.optionId,
    side: order.side,
    priorityKept: change.priorityKept,
    limitPrice: priceUnitsToAtoms(change.priceUnits),
    shares: lotsToShares(change.totalLots),
    status: change.status,
    filledShares: lotsToShares(change.filledLots),
    filledAmount: atomsOf(change.filledNotional),
    feePaid: atomsOf(change.feesPaid),
    restingShares,
    releasedAmount: isBuy ? atomsOf(order.frozenAmount) : 0n,
    releasedShares: isBuy ? 0n : lotsToShares(order.remainingLots),
    frozenAmount: atomsOf(change.frozenAmount),
    frozenShares: isBuy ? 0n : restingShares,
    atMs: change.nowMs,
  };
}
