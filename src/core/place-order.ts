import { decideBookOrder } from "./book/place-order.js";
import { rememberedOrderId } from "./client-order-ids.js";
import type { PlaceOrderCommand } from "./commands.js";
import type { CommandContext, Decision } from "./decider.js";
import { reject } from "./errors.js";
import type { ExchangeEvent } from "./events.js";
import { isId } from "./ids.js";
import { clientOrderIdLengthMax } from "./limits.js";
import { orderShapeRejection } from "./order-shape.js";
import { checkOrderTerms } from "./order-terms.js";
import { decidePoolOrder } from "./pools/orders.js";
import type { ExchangeState } from "./state.js";

function invalid(message: string): Decision<ExchangeEvent> {
  return { ok: false, rejection: reject("INVALID_INPUT", message) };
}

export function decidePlaceOrder(
  state: ExchangeState,
  command: PlaceOrderCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  const { userId, clientOrderId } = command;
  if (!isId(userId)) return invalid("userId must be a positive integer");
  const account = state.accounts.get(userId);

  // Validation comes before idempotency (DESIGN §6): only a request that would be accepted as a new
  // one, its shape and its terms against the market, may be answered with the first order of its
  // clientOrderId.
  const shapeRejection = orderShapeRejection(command);
  if (shapeRejection !== undefined) return { ok: false, rejection: shapeRejection };
  const terms = checkOrderTerms(state, command);
  if (!terms.ok) return terms;

  // A clientOrderId seen before names the first order; nothing new happens (DESIGN §8).
  if (clientOrderId !== null) {
    if (
      typeof clientOrderId !== "string" ||
      clientOrderId.length === 0 ||
      clientOrderId.length > clientOrderIdLengthMax
    ) {
      return invalid(`clientOrderId must be 1 to ${clientOrderIdLengthMax} characters`);
    }
    const firstOrderId = rememberedOrderId(account, clientOrderId, context.nowMs);
    if (firstOrderId !== undefined) {
      return {
        ok: true,
        events: [
          { type: "OrderRepeated", orderId: firstOrderId, userId, clientOrderId, atMs: context.nowMs },
        ],
      };
    }
  }

  // The market's model decides the rest.
  if (terms.poolTerms !== undefined) return decidePoolOrder(state, command, context, terms, terms.poolTerms);
  return decideBookOrder(state, command, context, account, terms);
}
