// A user's holding of one option (DESIGN §3 Positions): shares free to sell, shares frozen in
// resting SELL orders, cost basis and realised PnL by the average-cost method. The functions here
// are exported so read models can keep the same figures from the events alone.

export interface Position {
  readonly positionId: number;
  readonly userId: number;
  readonly marketId: number;
  readonly outcomeId: number;
  readonly optionId: number;
  /** Shares free to sell, atoms. */
  shares: bigint;
  /** Shares frozen in resting SELL orders, atoms. */
  frozenShares: bigint;
  /** What the shares still held cost, fees included, atoms. avgPrice = cost / (shares + frozenShares). */
  cost: bigint;
  /** Proceeds less fees less the cost of what was sold, atoms; may be negative. */
  realizedPnl: bigint;
}

export function newPosition(
  positionId: number,
  userId: number,
  marketId: number,
  outcomeId: number,
  optionId: number,
): Position {
  return {
    positionId,
    userId,
    marketId,
    outcomeId,
    optionId,
    shares: 0n,
    frozenShares: 0n,
    cost: 0n,
    realizedPnl: 0n,
  };
}

/** A buy (transfer or mint) adds shares and what they cost, the fee included. */
export function recordBuy(position: Position, shares: bigint, notional: bigint, fee: bigint): void {
  position.shares += shares;
  position.cost += notional + fee;
}

/**
 * A sale (transfer or merge) takes shares out, from the frozen ones when a resting order sells.
 * The cost released is the held cost pro rata, rounded down, so the last sale releases the rest.
 */
export function recordSell(
  position: Position,
  shares: bigint,
  fromFrozen: boolean,
  notional: bigint,
  fee: bigint,
): void {
  const costReleased = costReleasedBySale(position, shares);
  if (fromFrozen) position.frozenShares -= shares;
  else position.shares -= shares;
  if (position.shares < 0n || position.frozenShares < 0n) {
    throw new Error(`positions: negative shares in position ${position.positionId}`);
  }
  position.cost -= costReleased;
  position.realizedPnl += notional - fee - costReleased;
}

/** The cost a sale of `shares` releases: the held cost pro rata, rounded down (recordSell). */
export function costReleasedBySale(position: Position, shares: bigint): bigint {
  const held = position.shares + position.frozenShares;
  // Selling everything releases all the cost, with no division to pay for.
  return shares === held ? position.cost : held === 0n ? 0n : (position.cost * shares) / held;
}

/** Moves shares between free and frozen (a SELL rests, or is cancelled or expires). */
export function freezeShares(position: Position, shares: bigint): void {
  position.shares -= shares;
  position.frozenShares += shares;
  if (position.shares < 0n || position.frozenShares < 0n) {
    throw new Error(`positions: negative shares in position ${position.positionId}`);
  }
}

/** Moves shares from frozen back to free (a SELL is cancelled or expires). */
export function unfreezeShares(position: Position, shares: bigint): void {
  position.frozenShares -= shares;
  position.shares += shares;
  if (position.frozenShares < 0n)
    throw new Error(`positions: negative frozen shares in position ${position.positionId}`);
}
