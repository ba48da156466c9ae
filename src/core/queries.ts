// Read-only queries over the state for the API: books, best prices, orders, balances, positions.
// Prices and quantities come out as bigint atoms (1e-8); the API formats them at the edge.

import type { BookLevel } from "./book/order-book.js";
import {
  askSide,
  bidSide,
  type Order,
  type OrderSide,
  type OrderStatus,
  statusOfRestingOrder,
} from "./book/orders.js";
import { userOrders } from "./book/user-orders.js";
import { type Rejection, reject } from "./errors.js";
import { defaultChallengeBondAtoms } from "./lifecycle/lifecycle.js";
import type { WinningOption } from "./lifecycle/resolution.js";
import { claimableAtoms, type PositionStatus, positionStatus } from "./lifecycle/settlement.js";
import type { Market, MarketStatus, ModelType, OptionRecord, Outcome } from "./market.js";
import { poolOptionPrice } from "./pools/queries.js";
import type { ExchangeState } from "./state.js";
import { atomsPerLot, lotsToShares, priceUnitsPerUnit, priceUnitsToAtoms } from "./units.js";
import type { Position } from "./wallet/positions.js";

export type QueryResult<T> = { ok: true; value: T } | { ok: false; rejection: Rejection };

/** Levels per side a snapshot returns unless asked for fewer: every level a book can have. */
export const bookDepthMax = priceUnitsPerUnit;

export interface BookLevelView {
  readonly price: bigint;
  readonly size: bigint;
}

export interface BookSnapshot {
  readonly marketId: number;
  readonly outcomeId: number;
  /** The option whose prices these are: Yes (the book as kept) or No (the mirror image). */
  readonly optionId: number;
  readonly assetId: string;
  readonly tickSize: bigint;
  readonly minOrderSize: bigint;
  /** High → low. */
  readonly bids: BookLevelView[];
  /** Low → high. */
  readonly asks: BookLevelView[];
}

export interface BestPrices {
  readonly bestBid: bigint | null;
  readonly bestAsk: bigint | null;
  readonly midPrice: bigint | null;
  readonly spread: bigint | null;
  readonly lastTradePrice: bigint | null;
}

interface BookAddress {
  readonly marketId: number;
  readonly outcomeId: number;
  /** null or the Yes option: Yes prices; the No option: No prices. */
  readonly optionId?: number | null;
}

interface ResolvedBook {
  market: Market;
  outcome: Outcome;
  option: OptionRecord;
  book: NonNullable<Outcome["book"]>;
}

function resolveBook(state: ExchangeState, address: BookAddress): QueryResult<ResolvedBook> {
  const market = state.markets.get(address.marketId);
  if (market === undefined) return { ok: false, rejection: reject("MARKET_NOT_FOUND") };
  const outcome = state.outcomes.get(address.outcomeId);
  if (outcome === undefined || outcome.marketId !== market.marketId) {
    return { ok: false, rejection: reject("OUTCOME_NOT_FOUND") };
  }
  const optionId = address.optionId ?? outcome.optionIds[0];
  const option = state.options.get(optionId);
  if (option === undefined || option.outcomeId !== outcome.outcomeId) {
    return { ok: false, rejection: reject("OPTION_NOT_FOUND") };
  }
  // A draft market has no book yet: DESIGN §3 answers 4054 for it.
  if (outcome.book === null) return { ok: false, rejection: reject("BOOK_NOT_INITIALIZED") };
  return { ok: true, value: { market, outcome, option, book: outcome.book } };
}

function levelView(level: BookLevel, mirror: boolean): BookLevelView {
  return {
    price: priceUnitsToAtoms(mirror ? priceUnitsPerUnit - level.priceUnits : level.priceUnits),
    size: lotsToShares(level.lots),
  };
}

/**
 * The book of one outcome, aggregated by price. For the No option the book is shown in No
 * prices: No bids are the Yes asks at 1 − p, No asks the Yes bids at 1 − p.
 */
export function bookSnapshot(
  state: ExchangeState,
  address: BookAddress,
  depthMax: number = bookDepthMax,
): QueryResult<BookSnapshot> {
  const resolved = resolveBook(state, address);
  if (!resolved.ok) return resolved;
  const { market, outcome, option, book } = resolved.value;
  const mirror = option.optionIndex === 1;
  const yesBids = book.levels(bidSide, depthMax);
  const yesAsks = book.levels(askSide, depthMax);
  return {
    ok: true,
    value: {
      marketId: market.marketId,
      outcomeId: outcome.outcomeId,
      optionId: option.optionId,
      assetId: option.assetId,
      tickSize: priceUnitsToAtoms(market.tickUnits),
      minOrderSize: lotsToShares(market.minOrderLots),
      bids: (mirror ? yesAsks : yesBids).map((level) => levelView(level, mirror)),
      asks: (mirror ? yesBids : yesAsks).map((level) => levelView(level, mirror)),
    },
  };
}

/** Best bid and ask, their midpoint and spread, and the last trade price, in the option's terms. */
export function bestPrices(state: ExchangeState, address: BookAddress): QueryResult<BestPrices> {
  const resolved = resolveBook(state, address);
  if (!resolved.ok) return resolved;
  const { outcome, option, book } = resolved.value;
  const mirror = option.optionIndex === 1;
  const yesBid = book.bestPrice(bidSide);
  const yesAsk = book.bestPrice(askSide);
  const inOptionTerms = (yesUnits: number): number => (mirror ? priceUnitsPerUnit - yesUnits : yesUnits);
  const bidUnits = mirror ? (yesAsk === -1 ? -1 : inOptionTerms(yesAsk)) : yesBid;
  const askUnits = mirror ? (yesBid === -1 ? -1 : inOptionTerms(yesBid)) : yesAsk;
  const bestBid = bidUnits === -1 ? null : priceUnitsToAtoms(bidUnits);
  const bestAsk = askUnits === -1 ? null : priceUnitsToAtoms(askUnits);
  const last = outcome.lastTradeYesPriceUnits;
  return {
    ok: true,
    value: {
      bestBid,
      bestAsk,
      // Half of a sum of tick multiples is exact in atoms (a tick is at least 10,000 atoms).
      midPrice: bestBid !== null && bestAsk !== null ? (bestBid + bestAsk) / 2n : null,
      spread: bestBid !== null && bestAsk !== null ? bestAsk - bestBid : null,
      // A pool's last trade left it at its current price, which is exact to the atom (the market
      // detail's digits); a book's last trade was on a tick.
      lastTradePrice:
        last === 0
          ? null
          : (poolOptionPrice(state, outcome.outcomeId, option.optionIndex) ??
            priceUnitsToAtoms(inOptionTerms(last))),
    },
  };
}

export interface OrderView {
  readonly orderId: number;
  readonly userId: number;
  readonly marketId: number;
  readonly outcomeId: number;
  readonly optionId: number;
  readonly side: OrderSide;
  readonly orderType: "LIMIT";
  readonly timeInForce: "GTC" | "GTD";
  readonly limitPrice: bigint;
  readonly shares: bigint;
  readonly filledShares: bigint;
  readonly remainingShares: bigint;
  /** Cash of the fills, fees excluded; avgPrice = filledAmount / filledShares. */
  readonly filledAmount: bigint;
  readonly feePaid: bigint;
  readonly frozenAmount: bigint;
  readonly status: OrderStatus;
  readonly expiresAtMs: number | null;
  readonly clientOrderId: string | null;
  readonly createdAtMs: number;
}

function orderView(order: Order): OrderView {
  return {
    orderId: order.orderId,
    userId: order.userId,
    marketId: order.marketId,
    outcomeId: order.outcomeId,
    optionId: order.optionId,
    side: order.side,
    orderType: "LIMIT",
    timeInForce: order.timeInForce,
    limitPrice: priceUnitsToAtoms(order.priceUnits),
    shares: lotsToShares(order.originalLots),
    filledShares: lotsToShares(order.filledLots),
    remainingShares: lotsToShares(order.remainingLots),
    filledAmount: BigInt(order.filledNotional),
    feePaid: BigInt(order.feesPaid),
    frozenAmount: BigInt(order.frozenAmount),
    status: statusOfRestingOrder(order),
    expiresAtMs: order.expiresAtMs,
    clientOrderId: order.clientOrderId,
    createdAtMs: order.createdAtMs,
  };
}

/** A resting order. Orders that filled, were cancelled or expired live in the read models. */
export function openOrderById(state: ExchangeState, orderId: number): OrderView | null {
  const order = state.orders.get(orderId);
  return order === undefined ? null : orderView(order);
}

/** A user's resting orders, oldest first, optionally in one market. */
export function openOrdersOfUser(
  state: ExchangeState,
  userId: number,
  marketId: number | null = null,
): OrderView[] {
  const views: OrderView[] = [];
  for (const order of userOrders(state.accounts.get(userId))) {
    if (marketId === null || order.marketId === marketId) views.push(orderView(order));
  }
  return views;
}

/** The order a user's clientOrderId named first, resting or not. */
export function orderIdByClientOrderId(
  state: ExchangeState,
  userId: number,
  clientOrderId: string,
): number | null {
  return state.accounts.get(userId)?.clientOrderIds.get(clientOrderId)?.orderId ?? null;
}

export interface BalanceView {
  readonly available: bigint;
  readonly frozen: bigint;
  readonly total: bigint;
}

export function balanceOf(state: ExchangeState, userId: number): BalanceView {
  const account = state.accounts.get(userId);
  if (account === undefined) return { available: 0n, frozen: 0n, total: 0n };
  return { available: account.available, frozen: account.frozen, total: account.available + account.frozen };
}

export interface PositionView {
  readonly positionId: number;
  readonly userId: number;
  readonly marketId: number;
  readonly outcomeId: number;
  readonly optionId: number;
  /** All shares held, free and frozen. */
  readonly shares: bigint;
  readonly availableShares: bigint;
  readonly frozenShares: bigint;
  readonly cost: bigint;
  /** cost / shares per share, rounded down; null with no shares. */
  readonly avgPrice: bigint | null;
  readonly realizedPnl: bigint;
  /** open until the market is settled or void, then settled, then claimed. */
  readonly status: PositionStatus;
  /** Atoms a claim would pay now (0 once claimed or while the market is unfinished). */
  readonly claimable: bigint;
}

const atomsPerShare = 100_000_000n;

function positionView(state: ExchangeState, position: Position): PositionView {
  const shares = position.shares + position.frozenShares;
  return {
    positionId: position.positionId,
    userId: position.userId,
    marketId: position.marketId,
    outcomeId: position.outcomeId,
    optionId: position.optionId,
    shares,
    availableShares: position.shares,
    frozenShares: position.frozenShares,
    cost: position.cost,
    avgPrice: shares === 0n ? null : (position.cost * atomsPerShare) / shares,
    realizedPnl: position.realizedPnl,
    status: positionStatus(state, position),
    claimable: claimableAtoms(state, position),
  };
}

/** A user's positions by position id, optionally in one market. */
export function positionsOfUser(
  state: ExchangeState,
  userId: number,
  marketId: number | null = null,
): PositionView[] {
  const account = state.accounts.get(userId);
  if (account === undefined) return [];
  return [...account.positions.values()]
    .filter((position) => marketId === null || position.marketId === marketId)
    .sort((a, b) => a.positionId - b.positionId)
    .map((position) => positionView(state, position));
}

export interface MarketView {
  readonly marketId: number;
  readonly title: string;
  readonly modelType: ModelType;
  readonly status: MarketStatus;
  readonly tickSize: bigint;
  readonly minOrderSize: bigint;
  readonly makerFeeBps: number;
  readonly takerFeeBps: number;
  readonly marketOrderPriceProtection: bigint;
  readonly limitOrderPriceProtection: bigint;
  readonly startTimeMs: number | null;
  readonly endTimeMs: number | null;
  readonly creatorId: number | null;
  readonly createdAtMs: number;
  readonly feeIncome: bigint;
  /** An exclusive market (DESIGN §10): exactly one outcome wins, No shares convert. */
  readonly exclusive: boolean;
  /** The bond a challenge of this market's resolution costs (the default until it is resolved). */
  readonly challengeBond: bigint;
  /** null until a result is proposed. */
  readonly resolution: {
    readonly proposedWinners: readonly WinningOption[];
    readonly windowEndsAtMs: number;
    readonly challenged: boolean;
    /** null until settled. */
    readonly finalWinners: readonly WinningOption[] | null;
  } | null;
  readonly outcomes: {
    readonly outcomeId: number;
    readonly name: string;
    readonly collateral: bigint;
    readonly options: {
      readonly optionId: number;
      readonly optionIndex: 0 | 1;
      readonly title: string;
      readonly assetId: string;
    }[];
  }[];
}

export function marketById(state: ExchangeState, marketId: number): MarketView | null {
  const market = state.markets.get(marketId);
  if (market === undefined) return null;
  const resolution = state.resolutions.get(marketId);
  return {
    marketId: market.marketId,
    title: market.title,
    modelType: market.modelType,
    status: market.status,
    tickSize: priceUnitsToAtoms(market.tickUnits),
    minOrderSize: BigInt(market.minOrderLots) * atomsPerLot,
    makerFeeBps: market.makerFeeBps,
    takerFeeBps: market.takerFeeBps,
    marketOrderPriceProtection: priceUnitsToAtoms(market.marketProtectionUnits),
    limitOrderPriceProtection: priceUnitsToAtoms(market.limitProtectionUnits),
    startTimeMs: market.startTimeMs,
    endTimeMs: market.endTimeMs,
    creatorId: market.creatorId,
    createdAtMs: market.createdAtMs,
    feeIncome: market.feeIncome,
    exclusive: state.exclusiveMarkets.has(marketId),
    challengeBond: resolution?.challengeBond ?? defaultChallengeBondAtoms,
    resolution:
      resolution === undefined
        ? null
        : {
            proposedWinners: resolution.proposedWinners,
            windowEndsAtMs: resolution.windowEndsAtMs,
            challenged: resolution.challenge !== null,
            finalWinners: resolution.finalWinners,
          },
    outcomes: market.outcomeIds.map((outcomeId) => {
      const outcome = state.outcomes.get(outcomeId)!;
      return {
        outcomeId,
        name: outcome.name,
        collateral: outcome.collateral,
        options: outcome.optionIds.map((optionId) => {
          const option = state.options.get(optionId)!;
          return { optionId, optionIndex: option.optionIndex, title: option.title, assetId: option.assetId };
        }),
      };
    }),
  };
}

/** The option record behind an asset id (for /prices-history?market=). */
export function optionByAssetId(state: ExchangeState, assetId: string): OptionRecord | null {
  const optionId = Number(assetId.slice(-12));
  const option = Number.isSafeInteger(optionId) ? state.options.get(optionId) : undefined;
  return option !== undefined && option.assetId === assetId ? option : null;
}

export interface WithdrawalView {
  readonly withdrawalId: number;
  readonly userId: number;
  readonly amount: bigint;
  readonly fee: bigint;
  readonly address: string;
  readonly status: "PENDING" | "APPROVED";
  readonly requestedAtMs: number;
}

/** A withdrawal that still holds funds (pending or approved); finished ones live in the read models. */
export function heldWithdrawalById(state: ExchangeState, withdrawalId: number): WithdrawalView | null {
  const withdrawal = state.withdrawals.get(withdrawalId);
  return withdrawal === undefined ? null : { ...withdrawal };
}

/** A user's position by its id, with its status and what it can claim; null when not the user's. */
export function positionOfUserById(
  state: ExchangeState,
  userId: number,
  positionId: number,
): PositionView | null {
  const account = state.accounts.get(userId);
  if (account === undefined) return null;
  for (const position of account.positions.values())
    if (position.positionId === positionId) return positionView(state, position);
  return null;
}
