// Events of the two pool models (DESIGN §3): the AMM's funding, a trade against an AMM pool or a
// stake in a parimutuel pool, and what a pool gives up when its market settles or is voided.
// Each carries every balance change it makes, so evolve and the read models need nothing else.

import type { OrderSide } from "../book/orders.js";

export type PoolModelType = "AMM" | "parimutuel";

/**
 * The platform funds one AMM outcome with `amount` atoms: `amount` complete sets enter the
 * outcome's collateral; `balances` trade in the pool, `funderShares` are the rest of the sets,
 * held for the platform (the funder) outside the pool.
 */
export interface AmmPoolFundedEvent {
  readonly type: "AmmPoolFunded";
  readonly marketId: number;
  readonly outcomeId: number;
  readonly amount: bigint;
  /** Pool share balances by option index (0 = first option, 1 = second). */
  readonly balances: readonly [bigint, bigint];
  readonly funderShares: readonly [bigint, bigint];
  readonly atMs: number;
}

/**
 * A MARKET order filled against a pool, right after its OrderPlaced. AMM BUY: `amount` (the
 * investment, fee excluded) enters the collateral and `shares` leave the pool; AMM SELL: `shares`
 * enter the pool and `amount` leaves the collateral, the fee taken from it. Parimutuel BUY: the
 * stake `amount` enters the pool and the position counts it as `shares` (one per atom staked).
 */
export interface PoolTradeExecutedEvent {
  readonly type: "PoolTradeExecuted";
  readonly tradeId: number;
  readonly orderId: number;
  readonly userId: number;
  readonly marketId: number;
  readonly outcomeId: number;
  readonly optionId: number;
  readonly positionId: number;
  readonly modelType: PoolModelType;
  readonly side: OrderSide;
  readonly shares: bigint;
  /** Cash into the pool (BUY) or out of it (SELL), fee excluded. Average price = amount / shares. */
  readonly amount: bigint;
  /** buyFee or sellFee, to the market's fee income (0 on parimutuel: its fee is at settlement). */
  readonly fee: bigint;
  /** The user's available balance change: −(amount + fee) for a BUY, amount − fee for a SELL. */
  readonly availableDelta: bigint;
  /** The outcome's collateral change: +amount for a BUY, −amount for a SELL. */
  readonly collateralDelta: bigint;
  /** AMM: the pool's share balances after; parimutuel: the stakes per option after. */
  readonly poolAfter: readonly [bigint, bigint];
  /** The traded option's marginal price (AMM) or chance (parimutuel) after, atoms of 1. */
  readonly priceAfter: bigint;
  readonly atMs: number;
}

/**
 * A pool's part of settlement or void, right after MarketSettled or MarketVoided. Afterwards the
 * outcome's collateral is exactly what its positions can still claim.
 * AMM: `returnedToPlatform` is what the pool's and the funder's shares redeem for, with every
 * atom of rounding dust of the positions' payouts; it leaves the collateral for the platform.
 * Parimutuel: `fee` (settlement fee) and `dust` (what rounding the payouts down leaves) leave the
 * collateral for the market's fee income; winners then claim ⌊stake × distributable / winningStake⌋.
 */
export interface PoolSettledEvent {
  readonly type: "PoolSettled";
  readonly marketId: number;
  readonly outcomeId: number;
  readonly modelType: PoolModelType;
  readonly returnedToPlatform: bigint;
  readonly fee: bigint;
  readonly dust: bigint;
  /** Parimutuel: the pool less the fee; 0 on AMM. */
  readonly distributable: bigint;
  /** Parimutuel: the winning option's stake; 0 when nobody won (stakes are returned) and on AMM. */
  readonly winningStake: bigint;
  readonly atMs: number;
}

export type PoolEvent = AmmPoolFundedEvent | PoolTradeExecutedEvent | PoolSettledEvent;
