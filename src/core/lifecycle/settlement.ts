// What a position is worth once its market is finished, and the invariants that replace
// "Yes outstanding = No outstanding = collateral" from then on. Settled: a winning orderbook share
// pays exactly 1 USDT, a losing one 0. Void: every share pays 0.5 USDT (in an exclusive market,
// a Yes share 1/n and a No share (n − 1)/n: exclusive/payout.ts). Payouts come out of the
// outcome's collateral, so the collateral left always equals what is still to be claimed.

import { exclusiveVoidPayoutAtoms } from "../exclusive/payout.js";
import type { Market } from "../market.js";
import { parimutuelPayoutAtoms } from "../pools/parimutuel/parimutuel-payout.js";
import type { ExchangeState } from "../state.js";
import type { Position } from "../wallet/positions.js";
import { winnerOf } from "./resolution.js";

export type PositionStatus = "open" | "settled" | "claimed";

/** Whether claims are allowed: the market has its final result, or was voided. */
export function isFinished(market: Market): boolean {
  return market.status === "settled" || market.status === "void";
}

/**
 * What the position pays when claimed, in atoms (0 while the market is unfinished). A share is
 * 1e8 atoms and a winning share pays 1 USDT = 1e8 atoms, so the payout equals the shares held.
 * In a void market, half of it: order-book shares are whole lots of 1e4 atoms, so this is exact.
 */
export function payoutAtoms(state: ExchangeState, position: Position): bigint {
  const market = state.markets.get(position.marketId);
  if (market === undefined) return 0n;
  // A parimutuel position is a stake, paid its share of the pool (pools/parimutuel/parimutuel-payout.ts).
  if (market.modelType === "parimutuel") return parimutuelPayoutAtoms(state, market, position);
  const held = position.shares + position.frozenShares;
  if (market.status === "void") {
    // An exclusive market's void pays each share its average over every possible winner (exclusive/payout.ts).
    if (!state.exclusiveMarkets.has(market.marketId)) return held / 2n;
    const { optionIndex } = state.options.get(position.optionId)!;
    return exclusiveVoidPayoutAtoms(held, optionIndex, market.outcomeIds.length);
  }
  if (market.status !== "settled") return 0n;
  const winners = state.resolutions.get(market.marketId)?.finalWinners ?? [];
  return winnerOf(winners, position.outcomeId) === position.optionId ? held : 0n;
}

export function positionStatus(state: ExchangeState, position: Position): PositionStatus {
  if (state.claims.has(position.positionId)) return "claimed";
  const market = state.markets.get(position.marketId);
  return market !== undefined && isFinished(market) ? "settled" : "open";
}

/** What the position can still claim: its payout until claimed, then 0. */
export function claimableAtoms(state: ExchangeState, position: Position): bigint {
  return state.claims.has(position.positionId) ? 0n : payoutAtoms(state, position);
}

/**
 * The collateral of a finished outcome must equal what its unclaimed positions can still claim,
 * so no claim can ever find it short and none of it is left unbacked. Returns the problems.
 */
export function checkFinishedOutcomes(
  state: ExchangeState,
  unclaimedPayoutByOutcome: ReadonlyMap<number, bigint>,
): string[] {
  const problems: string[] = [];
  for (const outcome of state.outcomes.values()) {
    const market = state.markets.get(outcome.marketId)!;
    if (!isFinished(market)) continue;
    const owed = unclaimedPayoutByOutcome.get(outcome.outcomeId) ?? 0n;
    if (owed !== outcome.collateral) {
      problems.push(
        `outcome ${outcome.outcomeId}: collateral ${outcome.collateral} ≠ unclaimed payouts ${owed}`,
      );
    }
  }
  for (const [positionId, amount] of state.claims) {
    if (amount <= 0n) problems.push(`claim of position ${positionId}: nothing paid`);
  }
  for (const resolution of state.resolutions.values()) {
    const market = state.markets.get(resolution.marketId);
    if (market === undefined || market.status === "draft" || market.status === "open")
      problems.push(`market ${resolution.marketId}: resolution of a market that never closed`);
    if (market?.status === "settled" && resolution.finalWinners === null)
      problems.push(`market ${resolution.marketId}: settled without final winners`);
    if (resolution.challenge?.bondHeld && market?.status !== "resolving")
      problems.push(`market ${resolution.marketId}: bond still held after resolving`);
  }
  return problems;
}
