import { decideBookOrder } from "./book/place-order.js";
import { rememberedOrderId } from "./client-order-ids.js";
import type { PlaceOrderCommand } from "./commands.js";
import type { CommandContext, Decision } from "./decider.js";
import { reject } from "./errors.js";
import type { ExchangeEvent } from "./events.js";
import { isId } from "./ids.js";
import { clientOrderIdLengthMax } from "./limits.js";
import { orderShapeRejection } from "./order-shape.js";
import { decidePoolOrder } from "./pools/orders.js";
import type { ExchangeState } from "./state.js";

function invalid(message: string): Decision<ExchangeEvent> {
  return { ok: false, rejection: reject("INVALID_INPUT", message) };
}

function refuse(code: Parameters<typeof reject>[0]): Decision<ExchangeEvent> {
  return { ok: false, rejection: reject(code) };
}

export function decidePlaceOrder(
  state: ExchangeState,
  command: PlaceOrderCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  const { userId, clientOrderId } = command;
  if (!isId(userId)) return invalid("userId must be a positive integer");
  const account = state.accounts.get(userId);

  // Validation comes before idempotency (DESIGN §6): only a well-formed request may be answered
  // with the first order of its clientOrderId.
  const shapeRejection = orderShapeRejection(command);
  if (shapeRejection !== undefined) return { ok: false, rejection: shapeRejection };

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

  // Where: market, outcome, option; then the market's model decides the rest.
  const market = state.markets.get(command.marketId);
  if (market === undefined) return refuse("MARKET_NOT_FOUND");
  const outcome = state.outcomes.get(command.outcomeId);
  if (outcome === undefined || outcome.marketId !== market.marketId) return refuse("OUTCOME_NOT_FOUND");
  const option = state.options.get(command.optionId);
  if (option === undefined || option.outcomeId !== outcome.outcomeId) return refuse("OPTION_NOT_FOUND");
  if (market.modelType !== "orderbook") return decidePoolOrder(state, command, context, market, option);
  return decideBookOrder(state, command, context, account, market, outcome, option);
}
