// The pools' part of settlement and void (lifecycle/lifecycle.ts appends these events after MarketSettled
// or MarketVoided). Afterwards each outcome's collateral is exactly what its positions can claim:
//
// - AMM: positions are paid as order-book ones (lifecycle/settlement.ts: a winning share 1, a losing one 0;
//   void, half a share, rounded down). Whatever else the collateral holds is the pool's and the
//   funder's shares plus the rounding dust of those payouts: it goes back to the platform.
// - Parimutuel, settled: the fee and the dust leave the pool for the market's fee income
//   (parimutuel/parimutuel-payout.ts). Void: nothing leaves, every stake is returned; the event still comes,
//   with no fee and no winning stake, so read models learn the claimable amounts from it.

import { type WinningOption, winnerOf } from "../lifecycle/resolution.js";
import type { Market } from "../market.js";
import type { ExchangeState } from "../state.js";
import type { PoolSettledEvent } from "./events.js";
import { settlementFigures, stakePayout } from "./parimutuel/parimutuel-payout.js";

/** Shares (or stakes) held per option id in one outcome, over every user. */
function heldByPosition(state: ExchangeState, outcomeId: number): { optionId: number; held: bigint }[] {
  const held: { optionId: number; held: bigint }[] = [];
  for (const account of state.accounts.values()) {
    for (const position of account.positions.values()) {
      if (position.outcomeId === outcomeId)
        held.push({ optionId: position.optionId, held: position.shares + position.frozenShares });
    }
  }
  return held;
}

/**
 * The PoolSettled events of a market that settles with `winners`, or is voided (winners null).
 * Empty for an order-book market.
 */
export function poolSettlementEvents(
  state: ExchangeState,
  market: Market,
  winners: readonly WinningOption[] | null,
  nowMs: number,
): PoolSettledEvent[] {
  const terms = state.pools.terms.get(market.marketId);
  if (terms === undefined) return [];
  const events: PoolSettledEvent[] = [];
  for (const outcomeId of market.outcomeIds) {
    const outcome = state.outcomes.get(outcomeId)!;
    const winningOptionId = winners === null ? undefined : winnerOf(winners, outcomeId);
    const base = { type: "PoolSettled" as const, marketId: market.marketId, outcomeId, atMs: nowMs };
    if (terms.modelType === "AMM") {
      let owed = 0n;
      for (const { optionId, held } of heldByPosition(state, outcomeId)) {
        if (winners === null) owed += held / 2n;
        else if (optionId === winningOptionId) owed += held;
      }
      events.push({
        ...base,
        modelType: "AMM",
        returnedToPlatform: outcome.collateral - owed,
        fee: 0n,
        dust: 0n,
        distributable: 0n,
        winningStake: 0n,
      });
      continue;
    }
    const pool = state.pools.parimutuelPools.get(outcomeId)!;
    const figures =
      winners === null
        ? { fee: 0n, distributable: pool.stakes[0] + pool.stakes[1], winningStake: 0n }
        : settlementFigures(
            pool.stakes,
            state.options.get(winningOptionId!)!.optionIndex,
            terms.settlementFeeBps,
          );
    const settlement = { ...figures, dust: 0n };
    let paid = 0n;
    for (const { optionId, held } of heldByPosition(state, outcomeId))
      paid += stakePayout(held, optionId === winningOptionId, settlement);
    events.push({
      ...base,
      modelType: "parimutuel",
      returnedToPlatform: 0n,
      fee: figures.fee,
      dust: figures.distributable - paid,
      distributable: figures.distributable,
      winningStake: figures.winningStake,
    });
  }
  return events;
}
