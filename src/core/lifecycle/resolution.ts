// A market's resolution as the core keeps it (lifecycle.ts decides it): the proposed winners, the
// challenge if one was posted, and the final winners once the market settles. Settlement of the
// order book (settlement.ts) and of the pools (pools/settlement.ts) read the winners from here.

export interface WinningOption {
  readonly outcomeId: number;
  readonly optionId: number;
}

export interface Challenge {
  readonly userId: number;
  readonly bond: bigint;
  readonly reason: string;
  readonly atMs: number;
  /** True while the bond is frozen; false once it was returned or forfeited. */
  bondHeld: boolean;
}

/** A market's proposed, and then final, resolution. Kept for the life of the market. */
export interface MarketResolution {
  readonly marketId: number;
  /** The market's creator, or null when the operator proposed it. */
  readonly proposerId: number | null;
  /** One per outcome, in the market's outcome order. */
  readonly proposedWinners: readonly WinningOption[];
  readonly proposedAtMs: number;
  readonly windowEndsAtMs: number;
  readonly challengeBond: bigint;
  challenge: Challenge | null;
  /** Set when the market settles. */
  finalWinners: readonly WinningOption[] | null;
  settledAtMs: number | null;
}

/** The winning option of `outcomeId` in a list of winners, or undefined. */
export function winnerOf(winners: readonly WinningOption[], outcomeId: number): number | undefined {
  for (const winner of winners) if (winner.outcomeId === outcomeId) return winner.optionId;
  return undefined;
}
