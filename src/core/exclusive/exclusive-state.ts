// What the core keeps of an exclusive market (exclusive-market.ts explains the accounting). Apart
// from the functions over it so that state.ts can hold it without importing them.

export interface ExclusiveMarket {
  readonly marketId: number;
  /** No shares of every outcome that conversions took out of circulation (B), atoms. */
  retiredNoShares: bigint;
  /**
   * Collateral conversions paid out before the market finished, atoms: B × (n − 1) while the market
   * is unfinished, 0 once its finish repaid it (ExclusiveMarketFinished).
   */
  conversionAdvance: bigint;
}
