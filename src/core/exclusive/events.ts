// The events of exclusive markets (exclusive-market.ts): a conversion, and the repayment of what
// conversions advanced when the market finishes. Plain data; amounts and shares are bigint atoms.

/** A listed outcome's No position, whose `shares` the conversion burned. */
export interface BurnedNoLeg {
  readonly outcomeId: number;
  readonly optionId: number;
  readonly positionId: number;
  /**
   * What the sale of these shares counts as having brought, for the position's cost basis and
   * realised PnL (wallet/positions.ts recordSell): the cost they release, so a conversion realises
   * nothing, except where the USDT paid exceeds the whole cost released (convert.ts).
   */
  readonly proceeds: bigint;
}

/** An unlisted outcome's Yes position, which received `shares` new Yes shares. */
export interface MintedYesLeg {
  readonly outcomeId: number;
  readonly optionId: number;
  /** The user's position in that Yes option: an existing one, or a new id from the counter. */
  readonly positionId: number;
  /** The cost basis these shares carry over from the burned No shares (recordBuy), atoms. */
  readonly cost: bigint;
}

/**
 * `shares` No of each listed outcome became `shares` Yes of every other outcome plus `collateral`
 * = shares × (listed − 1) USDT to the user's available balance (one CONVERT ledger entry).
 */
export interface PositionsConvertedEvent {
  readonly type: "PositionsConverted";
  readonly marketId: number;
  readonly userId: number;
  readonly shares: bigint;
  readonly collateral: bigint;
  /** In the market's outcome order. */
  readonly burned: readonly BurnedNoLeg[];
  /** In the market's outcome order; never empty (at least one outcome is not listed). */
  readonly minted: readonly MintedYesLeg[];
  /** The command's journal sequence, as a decimal string: the ledger entry's reference. */
  readonly transactionId: string;
  readonly atMs: number;
}

/**
 * An exclusive market was settled or voided (it follows MarketSettled or MarketVoided in the same
 * command). Each outcome's collateral beyond what its positions will claim (`released`, in outcome
 * order) leaves it: `advance` of it repays what conversions paid ahead, the rest is rounding dust
 * of a void's payouts and goes to the market's fee income. Emitted for every exclusive market that
 * finishes, so read models learn from it how a void pays (a Yes share 1/n, a No share (n − 1)/n).
 */
export interface ExclusiveMarketFinishedEvent {
  readonly type: "ExclusiveMarketFinished";
  readonly marketId: number;
  readonly voided: boolean;
  readonly outcomeCount: number;
  readonly retiredNoShares: bigint;
  readonly advance: bigint;
  readonly released: readonly { readonly outcomeId: number; readonly amount: bigint }[];
  readonly dust: bigint;
  readonly atMs: number;
}

export type ExclusiveEvent = PositionsConvertedEvent | ExclusiveMarketFinishedEvent;
