// How an exclusive market resolves and finishes (exclusive-market.ts, DESIGN §10). Its result names
// exactly one winning outcome: that outcome's Yes wins, and every other outcome's No. When it is
// settled or voided, ExclusiveMarketFinished takes from each outcome's collateral what its
// positions will not claim: the retired No shares' payout, which repays the conversions' advance,
// and the rounding dust of a void's payouts (payout.ts), which goes to the market's fee income.
// Afterwards each outcome's collateral is exactly what its positions can claim, as in any market.

import { marketOf, outcomeOf } from "../evolve-lookups.js";
import { type WinningOption, winnerOf } from "../lifecycle/resolution.js";
import type { Market } from "../market.js";
import type { ExchangeState } from "../state.js";
import type { Position } from "../wallet/positions.js";
import type { ExclusiveMarketFinishedEvent } from "./events.js";
import { exclusiveVoidPayoutAtoms } from "./payout.js";

export const exclusiveWinnersMessage =
  "an exclusive market has exactly one winning outcome: its Yes wins and every other outcome's No";

/** True when the winners of an exclusive market name one outcome's Yes and every other outcome's No. */
export function isExclusiveResult(state: ExchangeState, winners: readonly WinningOption[]): boolean {
  let yesWinners = 0;
  for (const winner of winners) {
    if (state.outcomes.get(winner.outcomeId)?.optionIds[0] === winner.optionId) yesWinners += 1;
  }
  return yesWinners === 1;
}

/** What a position of an exclusive market pays when it finishes with `winners` (null: voided). */
function payoutOf(
  state: ExchangeState,
  market: Market,
  position: Position,
  winners: readonly WinningOption[] | null,
): bigint {
  const held = position.shares + position.frozenShares;
  if (winners !== null) return winnerOf(winners, position.outcomeId) === position.optionId ? held : 0n;
  const { optionIndex } = state.options.get(position.optionId)!;
  return exclusiveVoidPayoutAtoms(held, optionIndex, market.outcomeIds.length);
}

/**
 * The event that finishes an exclusive market settling with `winners` or voided (null); none for
 * any other market. Positions cannot change any more (the market is closed or its orders are being
 * cancelled, which moves no held share), so what they will claim is known now.
 */
export function exclusiveFinishEvents(
  state: ExchangeState,
  market: Market,
  winners: readonly WinningOption[] | null,
  nowMs: number,
): ExclusiveMarketFinishedEvent[] {
  const exclusive = state.exclusiveMarkets.get(market.marketId);
  if (exclusive === undefined) return [];
  const owed = new Map<number, bigint>(market.outcomeIds.map((outcomeId) => [outcomeId, 0n]));
  for (const account of state.accounts.values()) {
    for (const position of account.positions.values()) {
      if (position.marketId !== market.marketId) continue;
      owed.set(
        position.outcomeId,
        owed.get(position.outcomeId)! + payoutOf(state, market, position, winners),
      );
    }
  }
  const released = market.outcomeIds.map((outcomeId) => ({
    outcomeId,
    amount: state.outcomes.get(outcomeId)!.collateral - owed.get(outcomeId)!,
  }));
  const releasedTotal = released.reduce((sum, each) => sum + each.amount, 0n);
  const dust = releasedTotal - exclusive.conversionAdvance;
  if (dust < 0n || released.some((each) => each.amount < 0n))
    throw new Error(`exclusive: market ${market.marketId} owes more than its collateral`);
  return [
    {
      type: "ExclusiveMarketFinished",
      marketId: market.marketId,
      voided: winners === null,
      outcomeCount: market.outcomeIds.length,
      retiredNoShares: exclusive.retiredNoShares,
      advance: exclusive.conversionAdvance,
      released,
      dust,
      atMs: nowMs,
    },
  ];
}

/** Applies the finish: the released collateral repays the advance, the dust becomes fee income. */
export function evolveExclusiveMarketFinished(
  state: ExchangeState,
  event: ExclusiveMarketFinishedEvent,
): void {
  const market = marketOf(state, event.marketId);
  const exclusive = state.exclusiveMarkets.get(market.marketId);
  if (exclusive === undefined || exclusive.conversionAdvance !== event.advance)
    throw new Error(`exclusive: market ${event.marketId} finishes with another advance`);
  if (market.status !== "settled" && market.status !== "void")
    throw new Error(`exclusive: market ${event.marketId} is not finished`);
  let releasedTotal = 0n;
  for (const { outcomeId, amount } of event.released) {
    const outcome = outcomeOf(state, outcomeId);
    outcome.collateral -= amount;
    if (outcome.collateral < 0n) throw new Error(`exclusive: outcome ${outcomeId} collateral below zero`);
    releasedTotal += amount;
  }
  if (releasedTotal !== event.advance + event.dust)
    throw new Error("exclusive: released collateral differs from advance + dust");
  exclusive.conversionAdvance = 0n;
  market.feeIncome += event.dust;
  state.totals.feeIncome += event.dust;
}
