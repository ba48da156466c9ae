// decide for PlaceOrder on AMM and parimutuel markets (core/place-order.ts hands them over once the
// market, outcome and option are known). Only MARKET orders trade against a pool: an AMM BUY
// spends `amount`, an AMM SELL sells `shares`, a parimutuel BUY stakes `amount`. A refusal
// changes nothing. The accepted order is one OrderPlaced (status FILLED) and one PoolTradeExecuted.

import type { PlaceOrderCommand } from "../commands.js";
import type { CommandContext } from "../decider.js";
import { isWithinTradingWindow, type Market, type OptionRecord } from "../market.js";
import type { ExchangeState } from "../state.js";
import { decideAmmOrder } from "./amm/amm-order.js";
import { type PoolDecision, poolInvalid, poolRefuse } from "./fill.js";
import { decideParimutuelStake } from "./parimutuel/parimutuel-stake.js";

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
