// decide for PlaceOrder on AMM and parimutuel markets (core/place-order.ts hands them over once the
// order has been checked against the market, order-terms.ts). Only MARKET orders trade against a
// pool: an AMM BUY spends `amount`, an AMM SELL sells `shares`, a parimutuel BUY stakes `amount`.
// A refusal changes nothing. The accepted order is one OrderPlaced (status FILLED) and one PoolTradeExecuted.

import type { PlaceOrderCommand } from "../commands.js";
import type { CommandContext } from "../decider.js";
import { isWithinTradingWindow, type Market, type OptionRecord } from "../market.js";
import type { ExchangeState } from "../state.js";
import { decideAmmOrder } from "./amm/amm-order.js";
import { type PoolDecision, poolRefuse } from "./fill.js";
import type { PoolTerms } from "./models.js";
import { decideParimutuelStake } from "./parimutuel/parimutuel-stake.js";

export function decidePoolOrder(
  state: ExchangeState,
  command: PlaceOrderCommand,
  context: CommandContext,
  placement: { readonly market: Market; readonly option: OptionRecord },
  terms: PoolTerms,
): PoolDecision {
  const { market, option } = placement;
  if (market.status !== "open" || !isWithinTradingWindow(market, context.nowMs))
    return poolRefuse("MARKET_NOT_OPEN");
  if (terms.modelType === "AMM") return decideAmmOrder(state, command, context, market, option, terms);
  return decideParimutuelStake(state, command, context, option);
}
