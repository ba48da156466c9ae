// decide for PlaceOrder on AMM and parimutuel markets (place-order.ts hands them over once the
// market, outcome and option are known). Only MARKET orders trade against a pool: an AMM BUY
// spends `amount`, an AMM SELL sells `shares`, a parimutuel BUY stakes `amount`. A refusal
// changes nothing. The accepted order is one OrderPlaced (status FILLED) and one PoolTradeExecuted.

import { isWithinTradingWindow } from "../book/place-order.js";
import type { PlaceOrderCommand } from "../commands.js";
import type { CommandContext, Decision } from "../decider.js";
import { type RejectionCode, reject } from "../errors.js";
import type { ExchangeEvent, OrderPlacedEvent } from "../events.js";
import type { Market, OptionRecord } from "../market.js";
import type { ExchangeState } from "../state.js";
import { decideAmmOrder } from "./amm/amm-order.js";
import type { PoolTradeExecutedEvent } from "./events.js";
import { decideParimutuelStake } from "./parimutuel/parimutuel-stake.js";

export type PoolDecision = Decision<ExchangeEvent>;

export function poolInvalid(message: string): PoolDecision {
  return { ok: false, rejection: reject("INVALID_INPUT", message) };
}

export function poolRefuse(code: RejectionCode, message?: string): PoolDecision {
  return { ok: false, rejection: reject(code, message) };
}

const modelNames = { AMM: "AMM", parimutuel: "parimutuel" } as const;

export function decidePoolOrder(
  state: ExchangeState,
  command: PlaceOrderCommand,
  context: CommandContext,
  market: Market,
  option: OptionRecord,
): PoolDecision {
  const terms = state.pools.terms.get(market.marketId);
  if (terms === undefined) throw new Error(`pool orders: market ${market.marketId} has no pool terms`);
  if (market.status !== "open" || !isWithinTradingWindow(market, context.nowMs))
    return poolRefuse("MARKET_NOT_OPEN");
  const { side, orderType } = command;
  if (side !== "BUY" && side !== "SELL") return poolInvalid("side must be BUY or SELL");
  const modelName = modelNames[terms.modelType];
  if (orderType === "LIMIT")
    return poolRefuse("MODEL_NOT_SUPPORTED", `LIMIT orders are not supported on ${modelName} markets`);
  if (orderType !== "MARKET") return poolInvalid("orderType must be LIMIT or MARKET");
  if (command.limitPrice !== null) return poolInvalid("MARKET order takes no limitPrice");
  if (command.timeInForce !== "FAK") return poolInvalid("MARKET orders are FAK");
  if (command.expiresAtMs !== null) return poolInvalid("expiresAt is only for GTD orders");
  if (side === "BUY") {
    if (typeof command.amount !== "bigint") return poolInvalid("MARKET BUY order requires amount");
    if (command.shares !== null) return poolInvalid("MARKET BUY order takes amount, not shares");
  } else {
    if (typeof command.shares !== "bigint") return poolInvalid("MARKET SELL order requires shares");
    if (command.amount !== null) return poolInvalid("MARKET SELL order takes shares, not amount");
  }
  if (terms.modelType === "AMM") return decideAmmOrder(state, command, context, market, option, terms);
  if (side === "SELL")
    return poolRefuse("MODEL_NOT_SUPPORTED", "SELL orders are not supported on parimutuel markets");
  return decideParimutuelStake(state, command, context, option, terms);
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
