// Turns a create-order body (JSON numbers, string ids, ISO times) into the core's PlaceOrder command.
// Decimals become atoms here, at the edge; more than 8 decimals is refused, never rounded (DESIGN §6).
// Whether the order makes sense for its market (tick, size, balance, status) is the core's call.

import type { CreateOrderRequest } from "../../contract/partner/trading.js";
import { parseId } from "../../contract/wire-format.js";
import type { PlaceOrderCommand } from "../../core/commands.js";
import { type Rejection, reject } from "../../core/errors.js";
import { parseAtoms } from "../../core/money.js";

export type Parsed<Value> = { ok: true; value: Value } | { ok: false; rejection: Rejection };

const isoTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/** A request id (string or number) → a positive integer, or undefined: such an id names nothing. */
export function requestId(value: string | number): number | undefined {
  return parseId(typeof value === "number" ? String(value) : value);
}

/** An ISO 8601 time with a zone → ms, or undefined. */
export function parseIsoTime(text: string): number | undefined {
  if (!isoTimePattern.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

function atomsOf(field: string, value: number): Parsed<bigint> {
  const parsed = parseAtoms(value);
  if (parsed.ok) return { ok: true, value: parsed.atoms };
  return parsed.reason === "precision"
    ? { ok: false, rejection: reject("PRECISION_EXCEEDED", `${field} has more than 8 decimal places`) }
    : { ok: false, rejection: reject("INVALID_INPUT", `${field} must be a finite number`) };
}

function invalid(message: string): Parsed<never> {
  return { ok: false, rejection: reject("INVALID_INPUT", message) };
}

export function placeOrderCommand(body: CreateOrderRequest, userId: number): Parsed<PlaceOrderCommand> {
  const marketId = requestId(body.marketId);
  if (marketId === undefined) return { ok: false, rejection: reject("MARKET_NOT_FOUND") };
  const outcomeId = requestId(body.outcomeId);
  if (outcomeId === undefined) return { ok: false, rejection: reject("OUTCOME_NOT_FOUND") };
  const optionId = requestId(body.optionId);
  if (optionId === undefined) return { ok: false, rejection: reject("OPTION_NOT_FOUND") };

  let limitPrice: bigint | null = null;
  if (body.orderType === "LIMIT") {
    // The spec's own words: a missing limitPrice, a string or null are all "not numeric".
    if (typeof body.limitPrice !== "number") return invalid("LIMIT order requires numeric limitPrice");
    const price = atomsOf("limitPrice", body.limitPrice);
    if (!price.ok) return price;
    limitPrice = price.value;
    if (body.shares === undefined) return invalid("LIMIT order requires shares");
  } else if (body.limitPrice !== undefined && body.limitPrice !== null) {
    return invalid("MARKET order takes no limitPrice");
  }
  let shares: bigint | null = null;
  if (body.shares !== undefined) {
    const parsed = atomsOf("shares", body.shares);
    if (!parsed.ok) return parsed;
    shares = parsed.value;
  }
  let amount: bigint | null = null;
  if (body.amount !== undefined) {
    const parsed = atomsOf("amount", body.amount);
    if (!parsed.ok) return parsed;
    amount = parsed.value;
  }
  let expiresAtMs: number | null = null;
  if (body.expiresAt !== undefined) {
    const parsed = parseIsoTime(body.expiresAt);
    if (parsed === undefined) return invalid("expiresAt must be an ISO 8601 time, e.g. 2026-11-22T10:00:00Z");
    expiresAtMs = parsed;
  }
  const timeInForce = body.timeInForce ?? (body.orderType === "MARKET" ? "FAK" : "GTC");
  const command: PlaceOrderCommand = {
    type: "PlaceOrder",
    userId,
    marketId,
    outcomeId,
    optionId,
    side: body.side,
    orderType: body.orderType,
    limitPrice,
    shares,
    amount,
    timeInForce,
    expiresAtMs,
    clientOrderId: body.clientOrderId ?? null,
  };
  // Whether postOnly fits the order (LIMIT GTC/GTD) is the core's check (order-shape.ts).
  return { ok: true, value: body.postOnly === undefined ? command : { ...command, postOnly: body.postOnly } };
}
