// What the pool models' decisions share: the shape of a decision, the refusals, and the two events
// of one filled pool order (OrderPlaced, status FILLED, and PoolTradeExecuted). The AMM
// (amm/amm-order.ts) and the parimutuel stake (parimutuel/parimutuel-stake.ts) build their fills
// with these; pools/orders.ts routes an order to one of them.

import type { PlaceOrderCommand } from "../commands.js";
import type { CommandContext, Decision } from "../decider.js";
import { type RejectionCode, reject } from "../errors.js";
import type { ExchangeEvent, OrderPlacedEvent } from "../events.js";
import type { ExchangeState } from "../state.js";
import type { PoolTradeExecutedEvent } from "./events.js";

export type PoolDecision = Decision<ExchangeEvent>;

export function poolRefuse(code: RejectionCode, message?: string): PoolDecision {
  return { ok: false, rejection: reject(code, message) };
}

/** The position id a fill for (user, option) uses: the existing one, or the next to be issued. */
export function positionIdFor(state: ExchangeState, userId: number, optionId: number): number {
  return state.accounts.get(userId)?.positions.get(optionId)?.positionId ?? state.counters.nextPositionId;
}

/** What one filled pool order changes; the rest of its events comes from the command and state. */
export interface PoolFill {
  readonly optionIndex: 0 | 1;
  readonly modelType: PoolTradeExecutedEvent["modelType"];
  readonly shares: bigint;
  readonly amount: bigint;
  readonly fee: bigint;
  readonly availableDelta: bigint;
  readonly collateralDelta: bigint;
  readonly poolAfter: readonly [bigint, bigint];
  readonly priceAfter: bigint;
}

/**
 * The OrderPlaced and PoolTradeExecuted of one filled pool order. Both are written as whole object
 * literals (no spreads) so every event of a type has one hidden class: this is the hot path.
 */
export function filledPoolOrder(
  state: ExchangeState,
  command: PlaceOrderCommand,
  context: CommandContext,
  fill: PoolFill,
): PoolDecision {
  const orderId = state.counters.nextOrderId;
  const placed: OrderPlacedEvent = {
    type: "OrderPlaced",
    orderId,
    userId: command.userId,
    marketId: command.marketId,
    outcomeId: command.outcomeId,
    optionId: command.optionId,
    side: command.side,
    orderType: "MARKET",
    timeInForce: "FAK",
    limitPrice: null,
    shares: command.shares,
    amount: command.amount,
    expiresAtMs: null,
    clientOrderId: command.clientOrderId,
    createdAtMs: context.nowMs,
    status: "FILLED",
    filledShares: fill.shares,
    filledAmount: fill.amount,
    feePaid: fill.fee,
    restingShares: 0n,
    frozenAmount: 0n,
    frozenShares: 0n,
  };
  const executed: PoolTradeExecutedEvent = {
    type: "PoolTradeExecuted",
    tradeId: state.counters.nextTradeId,
    orderId,
    userId: command.userId,
    marketId: command.marketId,
    outcomeId: command.outcomeId,
    optionId: command.optionId,
    positionId: positionIdFor(state, command.userId, command.optionId),
    modelType: fill.modelType,
    side: command.side,
    shares: fill.shares,
    amount: fill.amount,
    fee: fill.fee,
    availableDelta: fill.availableDelta,
    collateralDelta: fill.collateralDelta,
    poolAfter: fill.poolAfter,
    priceAfter: fill.priceAfter,
    atMs: context.nowMs,
  };
  return { ok: true, events: [placed, executed] };
}
