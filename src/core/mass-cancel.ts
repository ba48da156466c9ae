// decide for the mass cancels: CancelAllOrders (cancel-all, DESIGN §9) takes every resting order of
// the user, or those in one market or on one book, off the book in one command; each still gets
// its own OrderCancelled event, so read models and channels see ordinary cancels. The user's own
// list of resting orders (book/user-orders.ts) bounds the work by openOrdersPerUserMax.

import { releaseEvent } from "./book/place-order.js";
import { userOrders } from "./book/user-orders.js";
import type { CancelAllOrdersCommand } from "./commands.js";
import type { CommandContext, Decision } from "./decider.js";
import { reject } from "./errors.js";
import type { ExchangeEvent, OrderCancelledEvent } from "./events.js";
import { isId } from "./ids.js";
import type { ExchangeState } from "./state.js";

/** Which of the user's orders a mass cancel takes: all (nulls), one market, or one book of it. */
export interface CancelScope {
  readonly marketId: number | null;
  readonly outcomeId: number | null;
}

/** An OrderCancelled for each of the user's resting orders in scope, oldest first. */
export function cancelEventsOfUser(
  state: ExchangeState,
  userId: number,
  scope: CancelScope,
  reason: OrderCancelledEvent["reason"],
  nowMs: number,
): OrderCancelledEvent[] {
  const events: OrderCancelledEvent[] = [];
  for (const order of userOrders(state.accounts.get(userId))) {
    if (scope.marketId !== null && order.marketId !== scope.marketId) continue;
    if (scope.outcomeId !== null && order.outcomeId !== scope.outcomeId) continue;
    events.push(releaseEvent("OrderCancelled", order, nowMs, reason));
  }
  return events;
}

export function decideCancelAllOrders(
  state: ExchangeState,
  command: CancelAllOrdersCommand,
  context: CommandContext,
): Decision<ExchangeEvent> {
  const { userId, marketId, outcomeId } = command;
  if (!isId(userId))
    return { ok: false, rejection: reject("INVALID_INPUT", "userId must be a positive integer") };
  if (outcomeId !== null && marketId === null)
    return { ok: false, rejection: reject("INVALID_INPUT", "outcomeId needs marketId") };
  if (marketId !== null) {
    const market = isId(marketId) ? state.markets.get(marketId) : undefined;
    if (market === undefined) return { ok: false, rejection: reject("MARKET_NOT_FOUND") };
    if (outcomeId !== null) {
      const outcome = isId(outcomeId) ? state.outcomes.get(outcomeId) : undefined;
      if (outcome === undefined || outcome.marketId !== marketId)
        return { ok: false, rejection: reject("OUTCOME_NOT_FOUND") };
    }
  }
  // Nothing to cancel is still an answer (count 0), not a refusal.
  return {
    ok: true,
    events: cancelEventsOfUser(state, userId, { marketId, outcomeId }, "USER", context.nowMs),
  };
}
