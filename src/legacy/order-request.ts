// The legacy order submit (spec 001 "Order submit request"): what is checked before an
// `fgRequestId` is handed out, and how an accepted request becomes the core's PlaceOrder command.
// Pure functions over the request and the committed core state; the route and the executor call them.
//
// Checked at submission (synchronous, an HTTP error and nothing queued): the body's shape, numeric
// ids, BUY/SELL amount/shares, bounds and precision, the order type against the market's model,
// that market, outcome and option exist, that the market trades now, and the balance or shares.
// Checked again at execution by the core itself, because state may change in between (another
// request of the queue spent the balance, the market closed): such a refusal is recorded as
// FAILED with `errorMsg` (docs/decisions.md, "Legacy interface").

import { feeAtoms } from "../core/book/fees.js";
import type { PlaceOrderCommand } from "../core/commands.js";
import { orderAmountAtomsMax, orderSharesMax } from "../core/limits.js";
import type { ModelType } from "../core/market.js";
import { isWithinTradingWindow } from "../core/market.js";
import { ATOMS_PER_UNIT, type Atoms, formatAtoms, parseAtoms } from "../core/money.js";
import type { ExchangeState } from "../core/state.js";
import { atomsPerLot, atomsPerPriceUnit } from "../core/units.js";
import type { LegacyOrderInstruction } from "../store/legacy.js";

export type LegacyOrderType = LegacyOrderInstruction["orderType"];
export const legacyOrderTypes: readonly LegacyOrderType[] = ["MARKET", "LIMIT", "PARIMUTUEL"];

/**
 * Which legacy order types each pricing model takes (DESIGN §8). A parimutuel stake is a BUY that
 * spends `amount`, so it runs as the core's MARKET BUY on a parimutuel market.
 */
export const orderTypesByModel: Readonly<Record<ModelType, readonly LegacyOrderType[]>> = {
  orderbook: ["MARKET", "LIMIT"],
  AMM: ["MARKET"],
  parimutuel: ["PARIMUTUEL"],
};

/** Spec 001's bounds on `amount`: 0.01 to 1,000,000 USDT. */
export const orderAmountAtomsMin = 1_000_000n;
export const legacyOrderAmountAtomsMax = 1_000_000n * ATOMS_PER_UNIT;
if (legacyOrderAmountAtomsMax > orderAmountAtomsMax)
  throw new Error("legacy amount bound exceeds the core's");

/** The body as received; the route's schema has checked only the JSON types. */
export interface OrderSubmitBody {
  readonly marketId?: number | undefined;
  readonly outcomeId?: number | undefined;
  readonly optionId?: number | undefined;
  readonly direction?: string | undefined;
  readonly orderType?: string | undefined;
  readonly amount?: number | string | undefined;
  readonly shares?: number | string | undefined;
  readonly price?: number | string | undefined;
}

/** Why a submission is refused, named for the legacy error table (src/api/legacy/errors.ts). */
export type OrderProblem =
  | { readonly kind: "parameter"; readonly field: string; readonly reason: string }
  | { readonly kind: "outcomeIdMissing" }
  | { readonly kind: "amountPrecision" }
  | { readonly kind: "amountNotInRange" }
  | { readonly kind: "sharePrecision" }
  | { readonly kind: "shareTooSmall" }
  | { readonly kind: "shareTooLarge" }
  | { readonly kind: "invalidPrice" }
  | { readonly kind: "marketNotFound" }
  | { readonly kind: "outcomeNotFound" }
  | { readonly kind: "optionNotFound" }
  | { readonly kind: "marketClosed" }
  | { readonly kind: "creatorMayNotTrade" }
  | { readonly kind: "balanceInsufficient"; readonly required: Atoms; readonly available: Atoms }
  | { readonly kind: "shareNotEnough"; readonly required: Atoms; readonly available: Atoms }
  | { readonly kind: "shareLockedInSellOrders"; readonly required: Atoms; readonly available: Atoms };

export type Checked<Value> = { ok: true; value: Value } | { ok: false; problem: OrderProblem };

/** The request after the checks that need no market. */
export interface ParsedOrder {
  readonly marketId: number;
  readonly outcomeId: number;
  readonly optionId: number;
  readonly direction: "BUY" | "SELL";
  readonly orderType: LegacyOrderType;
  readonly amount: Atoms | null;
  readonly shares: Atoms | null;
  readonly price: Atoms | null;
}

function parameter(field: string, reason: string): Checked<never> {
  return { ok: false, problem: { kind: "parameter", field, reason } };
}

function problem(
  kind: Exclude<
    OrderProblem["kind"],
    "parameter" | "balanceInsufficient" | "shareNotEnough" | "shareLockedInSellOrders"
  >,
): Checked<never> {
  return { ok: false, problem: { kind } as OrderProblem };
}

function isId(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0;
}

export function parseOrderSubmit(body: OrderSubmitBody): Checked<ParsedOrder> {
  if (body.marketId === undefined) return parameter("marketId", "is required");
  if (body.outcomeId === undefined) return problem("outcomeIdMissing");
  if (body.optionId === undefined) return parameter("optionId", "is required");
  for (const field of ["marketId", "outcomeId", "optionId"] as const) {
    if (!isId(body[field])) return parameter(field, "must be a positive integer");
  }
  const { direction, orderType } = body;
  if (direction !== "BUY" && direction !== "SELL") return parameter("direction", "must be BUY or SELL");
  if (orderType === undefined) return parameter("orderType", "is required");
  if (!(legacyOrderTypes as readonly string[]).includes(orderType)) {
    return parameter("orderType", "must be MARKET, LIMIT or PARIMUTUEL");
  }
  // Spec 001 rule 2: a BUY sends amount and no shares; a SELL sends shares and no amount.
  if (direction === "BUY") {
    if (body.amount === undefined) return parameter("amount", "is required for BUY");
    if (body.shares !== undefined) return parameter("shares", "is not used for BUY");
  } else {
    if (body.shares === undefined) return parameter("shares", "is required for SELL");
    if (body.amount !== undefined) return parameter("amount", "is not used for SELL");
  }
  if (orderType === "LIMIT" && body.price === undefined) return parameter("price", "is required for LIMIT");
  if (orderType !== "LIMIT" && body.price !== undefined) return parameter("price", "is only for LIMIT");
  if (orderType === "PARIMUTUEL" && direction === "SELL") {
    return parameter("direction", "a PARIMUTUEL stake is a BUY");
  }

  let amount: Atoms | null = null;
  if (body.amount !== undefined) {
    const parsed = parseAtoms(body.amount);
    if (!parsed.ok)
      return parsed.reason === "precision"
        ? problem("amountPrecision")
        : parameter("amount", "must be a number");
    if (parsed.atoms < orderAmountAtomsMin || parsed.atoms > legacyOrderAmountAtomsMax) {
      return problem("amountNotInRange");
    }
    amount = parsed.atoms;
  }
  let shares: Atoms | null = null;
  if (body.shares !== undefined) {
    const parsed = parseAtoms(body.shares);
    if (!parsed.ok)
      return parsed.reason === "precision"
        ? problem("sharePrecision")
        : parameter("shares", "must be a number");
    if (parsed.atoms <= 0n) return problem("shareTooSmall");
    if (parsed.atoms > orderSharesMax) return problem("shareTooLarge");
    shares = parsed.atoms;
  }
  let price: Atoms | null = null;
  if (body.price !== undefined) {
    const parsed = parseAtoms(body.price);
    if (!parsed.ok || parsed.atoms <= 0n || parsed.atoms >= ATOMS_PER_UNIT) return problem("invalidPrice");
    price = parsed.atoms;
  }
  return {
    ok: true,
    value: {
      marketId: body.marketId as number,
      outcomeId: body.outcomeId as number,
      optionId: body.optionId as number,
      direction,
      orderType: orderType as LegacyOrderType,
      amount,
      shares,
      price,
    },
  };
}

/**
 * The checks against committed state, and the instruction the queue will execute: prices rounded
 * down to the market's tick and shares down to the book's lot (spec 001: "Rounding: down").
 */
export function checkOrderAgainstState(
  state: Readonly<ExchangeState>,
  userId: number,
  order: ParsedOrder,
  nowMs: number,
): Checked<LegacyOrderInstruction> {
  const market = state.markets.get(order.marketId);
  if (market === undefined) return problem("marketNotFound");
  const outcome = state.outcomes.get(order.outcomeId);
  if (outcome === undefined || outcome.marketId !== market.marketId) return problem("outcomeNotFound");
  const option = state.options.get(order.optionId);
  if (option === undefined || option.outcomeId !== outcome.outcomeId) return problem("optionNotFound");
  if (!orderTypesByModel[market.modelType].includes(order.orderType)) {
    return parameter("orderType", `${order.orderType} does not trade on ${market.modelType} markets`);
  }
  if (market.status !== "open" || !isWithinTradingWindow(market, nowMs)) return problem("marketClosed");
  // Spec 001's 5002: a creator proposes the result of its own market, so it may not trade on it.
  if (market.creatorId === userId) return problem("creatorMayNotTrade");

  const account = state.accounts.get(userId);
  const available = account?.available ?? 0n;
  const tickAtoms = BigInt(market.tickUnits) * atomsPerPriceUnit;
  const minimumShares = BigInt(market.minOrderLots) * atomsPerLot;
  const price = order.price === null ? null : (order.price / tickAtoms) * tickAtoms;
  if (price !== null && price <= 0n) return problem("invalidPrice");

  let shares = order.shares === null ? null : (order.shares / atomsPerLot) * atomsPerLot;
  if (order.direction === "BUY") {
    const amount = order.amount as Atoms;
    if (order.orderType === "LIMIT") {
      // A LIMIT BUY spends at most `amount`: the most lots whose cost and worst-case fee fit in it.
      shares = affordableShares(amount, price as Atoms, Math.max(market.makerFeeBps, market.takerFeeBps));
      if (shares < minimumShares) return problem("shareTooSmall");
    }
    if (available < amount)
      return { ok: false, problem: { kind: "balanceInsufficient", required: amount, available } };
  } else {
    const wanted = shares as Atoms;
    if (wanted < minimumShares) return problem("shareTooSmall");
    const position = account?.positions.get(option.optionId);
    const free = position?.shares ?? 0n;
    if (free < wanted) {
      const kind =
        free + (position?.frozenShares ?? 0n) >= wanted ? "shareLockedInSellOrders" : "shareNotEnough";
      return { ok: false, problem: { kind, required: wanted, available: free } };
    }
  }
  return {
    ok: true,
    value: {
      marketId: order.marketId,
      outcomeId: order.outcomeId,
      optionId: order.optionId,
      direction: order.direction,
      orderType: order.orderType,
      coreOrderType: order.orderType === "LIMIT" ? "LIMIT" : "MARKET",
      price: price === null ? null : formatAtoms(price),
      // A LIMIT BUY runs on the shares its amount buys; other BUYs spend the amount itself.
      amount:
        order.direction === "BUY" && order.orderType !== "LIMIT" ? formatAtoms(order.amount as Atoms) : null,
      shares:
        shares === null || (order.direction === "BUY" && order.orderType !== "LIMIT")
          ? null
          : formatAtoms(shares),
    },
  };
}

function affordableShares(amount: Atoms, price: Atoms, feeBps: number): Atoms {
  // cost(lots) = lots × price/1e4 atoms: one lot is 1e-4 shares.
  const lotCost = price / atomsPerLot;
  let lots = amount / lotCost;
  while (lots > 0n) {
    const notional = lots * lotCost;
    if (notional + BigInt(feeAtoms(Number(notional), feeBps)) <= amount) break;
    lots -= 1n;
  }
  return lots * atomsPerLot;
}

/**
 * The core command for a queued request. Its clientOrderId is derived from the fgRequestId, and the
 * core makes a clientOrderId idempotent per user: executing a request again (after a crash between
 * the engine's commit and the queue's own record) returns the first order instead of placing a second.
 */
export function placeOrderCommand(
  requestId: string,
  userId: number,
  instruction: LegacyOrderInstruction,
): PlaceOrderCommand {
  const atoms = (text: string | null) =>
    text === null ? null : (parseAtoms(text) as { atoms: Atoms }).atoms;
  return {
    type: "PlaceOrder",
    userId,
    marketId: instruction.marketId,
    outcomeId: instruction.outcomeId,
    optionId: instruction.optionId,
    side: instruction.direction,
    orderType: instruction.coreOrderType,
    limitPrice: atoms(instruction.price),
    shares: atoms(instruction.shares),
    amount: atoms(instruction.amount),
    // A legacy LIMIT order rests until filled (GTC); MARKET orders are always FAK in the core.
    timeInForce: instruction.coreOrderType === "LIMIT" ? "GTC" : "FAK",
    expiresAtMs: null,
    clientOrderId: clientOrderIdOf(requestId),
  };
}

/** Prefixed so a request id can never collide with a clientOrderId the user chose on the current interface. */
export function clientOrderIdOf(requestId: string): string {
  return `fg:${requestId}`;
}
