// A parimutuel stake: a MARKET BUY of `amount` on one option. The whole amount joins the
// outcome's pool (its collateral) and the option's stake; no fee now, the settlement fee comes
// out of the pool at settlement. The position counts the stake as shares, one per atom staked,
// so its average price is 1 and its payout at settlement is its share of the pool.

import type { PlaceOrderCommand } from "../../commands.js";
import type { CommandContext } from "../../decider.js";
import type { OptionRecord } from "../../market.js";
import type { ExchangeState } from "../../state.js";
import { filledPoolOrder, type PoolDecision, poolRefuse } from "../fill.js";
import { chanceOf } from "./parimutuel-payout.js";

export function decideParimutuelStake(
  state: ExchangeState,
  command: PlaceOrderCommand,
  context: CommandContext,
  option: OptionRecord,
): PoolDecision {
  const pool = state.pools.parimutuelPools.get(option.outcomeId);
  if (pool === undefined) throw new Error(`parimutuel: outcome ${option.outcomeId} has no pool`);
  const amount = command.amount as bigint;
  if ((state.accounts.get(command.userId)?.available ?? 0n) < amount)
    return poolRefuse("INSUFFICIENT_BALANCE");
  const index = option.optionIndex;
  const stakesAfter: readonly [bigint, bigint] =
    index === 0 ? [pool.stakes[0] + amount, pool.stakes[1]] : [pool.stakes[0], pool.stakes[1] + amount];
  return filledPoolOrder(state, command, context, {
    optionIndex: index,
    modelType: "parimutuel",
    shares: amount,
    amount,
    fee: 0n,
    availableDelta: -amount,
    collateralDelta: amount,
    poolAfter: stakesAfter,
    priceAfter: chanceOf(stakesAfter, index),
  });
}
