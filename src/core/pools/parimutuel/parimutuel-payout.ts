// Parimutuel payouts (DESIGN §3). At settlement the outcome's pool (every stake on either option)
// less the settlement fee is `distributable`; a winning position claims
// ⌊stake × distributable / winningStake⌋, rounded down, and the atoms rounding leaves (`dust`)
// go to the market's fee income with the fee, so nothing is created or lost.
// Nobody staked on the winner: no fee is taken and every stake is returned as it was.
// Void: every stake is returned as it was.

import { winnerOf } from "../../lifecycle/resolution.js";
import type { Market } from "../../market.js";
import type { ExchangeState } from "../../state.js";
import type { Position } from "../../wallet/positions.js";
import type { PoolBalances } from "../amm/fpmm.js";
import { atomsPerOne } from "../amm/fpmm.js";
import type { ParimutuelSettlement } from "../models.js";

const basisPointsPerOne = 10_000n;

/** An option's share of the pool, atoms of 1, rounded down; an empty pool gives each half. */
export function chanceOf(stakes: PoolBalances, index: 0 | 1): bigint {
  const total = stakes[0] + stakes[1];
  return total === 0n ? atomsPerOne / 2n : (stakes[index] * atomsPerOne) / total;
}

/** The pool's fee and what its winners share, before the per-position rounding. */
export function settlementFigures(
  stakes: PoolBalances,
  winningIndex: 0 | 1,
  settlementFeeBps: number,
): { fee: bigint; distributable: bigint; winningStake: bigint } {
  const total = stakes[0] + stakes[1];
  const winningStake = stakes[winningIndex];
  if (winningStake === 0n) return { fee: 0n, distributable: total, winningStake: 0n };
  const fee = (total * BigInt(settlementFeeBps)) / basisPointsPerOne;
  return { fee, distributable: total - fee, winningStake };
}

/** One position's payout under settled figures: its stake back when nobody won. */
export function stakePayout(stake: bigint, isWinner: boolean, settlement: ParimutuelSettlement): bigint {
  if (settlement.winningStake === 0n) return stake;
  return isWinner ? (stake * settlement.distributable) / settlement.winningStake : 0n;
}

/** What a parimutuel position pays when claimed (0 while its market is unfinished). */
export function parimutuelPayoutAtoms(state: ExchangeState, market: Market, position: Position): bigint {
  const stake = position.shares + position.frozenShares;
  if (market.status === "void") return stake;
  if (market.status !== "settled") return 0n;
  const settlement = state.pools.parimutuelPools.get(position.outcomeId)?.settlement ?? null;
  // Between MarketSettled and its PoolSettled (one command) the pool still holds everything.
  if (settlement === null) return 0n;
  const winners = state.resolutions.get(market.marketId)?.finalWinners ?? [];
  return stakePayout(stake, winnerOf(winners, position.outcomeId) === position.optionId, settlement);
}
