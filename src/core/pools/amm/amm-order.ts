// An AMM MARKET order against its outcome's pool (fpmm.ts).
//
// BUY `amount`: the buy fee (⌊amount × buyFee⌋) goes to the market's fee income, the rest is
// invested; the user pays exactly `amount`. SELL `shares`: the pool returns r (rounded down), the
// sell fee ⌊r × sellFee⌋ is taken from it, the user receives r − fee.
//
// Price protection (marketOrderPriceProtection, DESIGN §8): the worst price an order trades at is
// the option's marginal price after it (the last share is the dearest to buy and the cheapest to
// sell). An order is refused whole (PRICE_PROTECTION) when that marginal price is more than the
// protection above (BUY) or below (SELL) the marginal price when it arrives; fees are not part of
// the comparison, they are a fixed rate and not slippage.

import type { PlaceOrderCommand } from "../../commands.js";
import type { CommandContext } from "../../decider.js";
import type { Market, OptionRecord } from "../../market.js";
import type { ExchangeState } from "../../state.js";
import { priceUnitsToAtoms } from "../../units.js";
import { filledPoolOrder, type PoolDecision, poolRefuse } from "../fill.js";
import type { AmmTerms } from "../models.js";
import { feeOf, marginalPrice, priceMovedBeyond, quoteBuy, quoteSell } from "./fpmm.js";

export function decideAmmOrder(
  state: ExchangeState,
  command: PlaceOrderCommand,
  context: CommandContext,
  market: Market,
  option: OptionRecord,
  terms: AmmTerms,
): PoolDecision {
  const pool = state.pools.ammPools.get(option.outcomeId);
  if (pool === undefined) throw new Error(`amm: outcome ${option.outcomeId} has no pool`);
  const index = option.optionIndex;
  const protection = priceUnitsToAtoms(market.marketProtectionUnits);
  const account = state.accounts.get(command.userId);

  if (command.side === "BUY") {
    const amount = command.amount as bigint;
    if ((account?.available ?? 0n) < amount) return poolRefuse("INSUFFICIENT_BALANCE");
    const fee = feeOf(amount, terms.buyFeeBps);
    const invest = amount - fee;
    const quote = quoteBuy(pool.balances, index, invest);
    if (quote.shares <= 0n) return poolRefuse("SIZE_TOO_SMALL");
    if (priceMovedBeyond(pool.balances, quote.balancesAfter, index, true, protection))
      return poolRefuse("PRICE_PROTECTION");
    return filledPoolOrder(state, command, context, {
      optionIndex: index,
      modelType: "AMM",
      shares: quote.shares,
      amount: invest,
      fee,
      availableDelta: -amount,
      collateralDelta: invest,
      poolAfter: quote.balancesAfter,
      priceAfter: marginalPrice(quote.balancesAfter, index),
    });
  }

  const shares = command.shares as bigint;
  const position = account?.positions.get(option.optionId);
  if (position === undefined || position.shares < shares) return poolRefuse("INSUFFICIENT_SHARES");
  const quote = quoteSell(pool.balances, index, shares);
  const fee = feeOf(quote.returned, terms.sellFeeBps);
  if (quote.returned - fee <= 0n) return poolRefuse("SIZE_TOO_SMALL");
  if (priceMovedBeyond(pool.balances, quote.balancesAfter, index, false, protection))
    return poolRefuse("PRICE_PROTECTION");
  return filledPoolOrder(state, command, context, {
    optionIndex: index,
    modelType: "AMM",
    shares,
    amount: quote.returned,
    fee,
    availableDelta: quote.returned - fee,
    collateralDelta: -quote.returned,
    poolAfter: quote.balancesAfter,
    priceAfter: marginalPrice(quote.balancesAfter, index),
  });
}
