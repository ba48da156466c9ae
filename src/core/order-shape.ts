// The checks of a PlaceOrder that depend on the command alone, whatever the market's model: which
// fields go with which side and order type, and the signs and ranges no market accepts. They run
// before the clientOrderId lookup (DESIGN §6, "validation comes before idempotency"), as do its
// checks against the market (order-terms.ts), so a request that reuses a clientOrderId is refused
// like any other bad request instead of being answered with the first order.

import type { PlaceOrderCommand } from "./commands.js";
import { type Rejection, reject } from "./errors.js";
import { ATOMS_PER_UNIT } from "./money.js";

function invalid(message: string): Rejection {
  return reject("INVALID_INPUT", message);
}

/** The first problem of the command's own shape, or undefined when it has none. */
export function orderShapeRejection(command: PlaceOrderCommand): Rejection | undefined {
  const { side, orderType, timeInForce } = command;
  if (side !== "BUY" && side !== "SELL") return invalid("side must be BUY or SELL");
  if (orderType === "LIMIT") {
    if (typeof command.limitPrice !== "bigint") return invalid("LIMIT order requires numeric limitPrice");
    if (typeof command.shares !== "bigint") return invalid("LIMIT order requires shares");
    if (command.amount !== null) return invalid("amount is only for MARKET BUY orders");
    if (timeInForce !== "GTC" && timeInForce !== "GTD" && timeInForce !== "FOK" && timeInForce !== "FAK") {
      return invalid("timeInForce must be GTC, GTD, FOK or FAK");
    }
    if (timeInForce === "GTD") {
      if (typeof command.expiresAtMs !== "number" || !Number.isSafeInteger(command.expiresAtMs)) {
        return invalid("GTD order requires expiresAt");
      }
    } else if (command.expiresAtMs !== null) {
      return invalid("expiresAt is only for GTD orders");
    }
    if (command.limitPrice <= 0n || command.limitPrice >= ATOMS_PER_UNIT) return reject("PRICE_OUT_OF_RANGE");
  } else if (orderType === "MARKET") {
    if (command.limitPrice !== null) return invalid("MARKET order takes no limitPrice");
    if (timeInForce !== "FAK") return invalid("MARKET orders are FAK");
    if (command.expiresAtMs !== null) return invalid("expiresAt is only for GTD orders");
    if (side === "BUY") {
      if (typeof command.amount !== "bigint") return invalid("MARKET BUY order requires amount");
      if (command.shares !== null) return invalid("MARKET BUY order takes amount, not shares");
    } else {
      if (typeof command.shares !== "bigint") return invalid("MARKET SELL order requires shares");
      if (command.amount !== null) return invalid("MARKET SELL order takes shares, not amount");
    }
  } else {
    return invalid("orderType must be LIMIT or MARKET");
  }
  if (command.postOnly !== undefined) {
    if (typeof command.postOnly !== "boolean") return invalid("postOnly must be true or false");
    // Only an order that may rest can promise to rest without trading.
    if (command.postOnly && (orderType !== "LIMIT" || (timeInForce !== "GTC" && timeInForce !== "GTD")))
      return invalid("postOnly is only for LIMIT orders with timeInForce GTC or GTD");
  }
  // No market takes a share count or an amount of zero or less.
  if (typeof command.shares === "bigint" && command.shares <= 0n) return reject("SIZE_TOO_SMALL");
  if (typeof command.amount === "bigint" && command.amount <= 0n) {
    return reject("AMOUNT_OUT_OF_RANGE", "amount must be positive");
  }
  return undefined;
}
