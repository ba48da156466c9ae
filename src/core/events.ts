// Events the exchange core emits. Each carries everything evolve needs and everything a read
// model needs (orders, trades, positions, balances, price points), so the journal alone explains
// the state. Plain data only; amounts, shares and prices are bigint atoms (1e-8), times are ms.

import type { OrderSide, OrderStatus, OrderType, TimeInForce } from "./book/orders.js";
import type { MarketDetails } from "./commands.js";
import type { ExclusiveEvent } from "./exclusive/events.js";
import type { ModelType } from "./market.js";
import type { PoolEvent } from "./pools/events.js";
import type { PoolTerms } from "./pools/models.js";

export interface MarketCreatedEvent {
  readonly type: "MarketCreated";
  readonly marketId: number;
  readonly title: string;
  readonly modelType: ModelType;
  readonly tickSize: bigint;
  readonly minOrderSize: bigint;
  readonly makerFeeBps: number;
  readonly takerFeeBps: number;
  readonly marketOrderPriceProtection: bigint;
  readonly limitOrderPriceProtection: bigint;
  readonly startTimeMs: number | null;
  readonly endTimeMs: number | null;
  readonly creatorId: number | null;
  /** The command's catalogue metadata, copied without interpretation (null when none). */
  readonly details: MarketDetails | null;
  /** AMM and parimutuel markets: their terms, defaults filled in. Absent on order-book markets. */
  readonly poolTerms?: PoolTerms;
  /** true for an exclusive market (exclusive/); absent otherwise. */
  readonly exclusive?: true;
  readonly createdAtMs: number;
  readonly outcomes: readonly {
    readonly outcomeId: number;
    readonly name: string;
    /** Index 0 is Yes, 1 is No. */
    readonly options: readonly {
      readonly optionId: number;
      readonly optionIndex: 0 | 1;
      readonly title: string;
      readonly assetId: string;
    }[];
  }[];
}

/** The market is published and its books exist, empty. */
export interface MarketOpenedEvent {
  readonly type: "MarketOpened";
  readonly marketId: number;
  readonly atMs: number;
}

/** Trading stopped; the OrderCancelled events for its resting orders come just before this one. */
export interface MarketClosedEvent {
  readonly type: "MarketClosed";
  readonly marketId: number;
  readonly atMs: number;
}

export interface DepositCreditedEvent {
  readonly type: "DepositCredited";
  readonly userId: number;
  readonly amount: bigint;
  readonly txHash: string;
  readonly atMs: number;
}

/**
 * An order was accepted. It comes first among the events of its command and already carries the
 * final outcome of the command for this order (status, fills, what rests); the TradeExecuted
 * events that follow give each fill.
 */
export interface OrderPlacedEvent {
  readonly type: "OrderPlaced";
  readonly orderId: number;
  readonly userId: number;
  readonly marketId: number;
  readonly outcomeId: number;
  readonly optionId: number;
  readonly side: OrderSide;
  readonly orderType: OrderType;
  readonly timeInForce: TimeInForce;
  /** LIMIT price in the option's terms; null for MARKET. */
  readonly limitPrice: bigint | null;
  /** Requested shares; null for a MARKET BUY (it has `amount`). */
  readonly shares: bigint | null;
  /** MARKET BUY budget; null otherwise. */
  readonly amount: bigint | null;
  readonly expiresAtMs: number | null;
  readonly clientOrderId: string | null;
  readonly createdAtMs: number;
  /** Status once this command is done: OPEN, PARTIALLY_FILLED (resting), FILLED or CANCELLED. */
  readonly status: OrderStatus;
  readonly filledShares: bigint;
  /** Cash of the fills (Σ shares × price), fees excluded. avgPrice = filledAmount / filledShares. */
  readonly filledAmount: bigint;
  /** Taker fees paid by this order's fills. */
  readonly feePaid: bigint;
  /** Shares left on the book (0 unless it rests). */
  readonly restingShares: bigint;
  /** USDT moved from available to frozen for the resting part of a BUY. */
  readonly frozenAmount: bigint;
  /** Shares moved from free to frozen for the resting part of a SELL. */
  readonly frozenShares: bigint;
  /** Present (true) only on a post-only order: it rested without trading and stays a maker. */
  readonly postOnly?: true;
}

/** The same clientOrderId came again: nothing happens, the first order stands. */
export interface OrderRepeatedEvent {
  readonly type: "OrderRepeated";
  readonly orderId: number;
  readonly userId: number;
  readonly clientOrderId: string;
  readonly atMs: number;
}

export type CrossType = "TRANSFER" | "MINT" | "MERGE";

/**
 * One fill between a resting maker order and the incoming taker order, at the maker's price.
 * TRANSFER: shares for cash; MINT: two buyers pay 1 USDT per new Yes+No pair into collateral;
 * MERGE: two sellers burn a pair and share 1 USDT of collateral.
 * Balance deltas are what evolve applies to each user's available and frozen USDT.
 */
export interface TradeExecutedEvent {
  readonly type: "TradeExecuted";
  readonly tradeId: number;
  readonly marketId: number;
  readonly outcomeId: number;
  readonly cross: CrossType;
  /** Trade price on the Yes book (the maker's price in Yes terms). */
  readonly yesPrice: bigint;
  readonly shares: bigint;
  readonly atMs: number;
  readonly makerOrderId: number;
  readonly makerUserId: number;
  readonly makerOptionId: number;
  readonly makerSide: OrderSide;
  readonly makerPositionId: number;
  /** The maker's price in its option's terms (its limit price). */
  readonly makerPrice: bigint;
  /** shares × makerPrice: what the maker pays (BUY) or receives before fee (SELL). */
  readonly makerNotional: bigint;
  readonly makerFee: bigint;
  readonly makerAvailableDelta: bigint;
  readonly makerFrozenDelta: bigint;
  /** The maker order after this fill. */
  readonly makerRemainingShares: bigint;
  readonly makerStatus: OrderStatus;
  readonly takerOrderId: number;
  readonly takerUserId: number;
  readonly takerOptionId: number;
  readonly takerSide: OrderSide;
  readonly takerPositionId: number;
  readonly takerPrice: bigint;
  readonly takerNotional: bigint;
  readonly takerFee: bigint;
  readonly takerAvailableDelta: bigint;
  /** +shares for MINT, −shares for MERGE, 0 for TRANSFER. */
  readonly collateralDelta: bigint;
}

/**
 * Why a resting order was cancelled: by its owner, by self-trade prevention, by the market closing
 * or being voided, or by the owner's dead-man's switch going off.
 */
export type CancelReason = "USER" | "SELF_TRADE" | "MARKET_CLOSED" | "MARKET_VOID" | "DEAD_MANS_SWITCH";

interface OrderReleased {
  readonly orderId: number;
  readonly userId: number;
  readonly marketId: number;
  readonly outcomeId: number;
  readonly optionId: number;
  readonly side: OrderSide;
  readonly filledShares: bigint;
  /** Shares that were still resting and now never will trade. */
  readonly remainingShares: bigint;
  /** USDT returned from frozen to available (BUY). */
  readonly releasedAmount: bigint;
  /** Shares returned from frozen to free (SELL). */
  readonly releasedShares: bigint;
  readonly atMs: number;
}

/** A resting order left the book without filling: status CANCELLED. */
export interface OrderCancelledEvent extends OrderReleased {
  readonly type: "OrderCancelled";
  readonly reason: CancelReason;
}

/** A resting GTD order reached expiresAtMs: status EXPIRED. */
export interface OrderExpiredEvent extends OrderReleased {
  readonly type: "OrderExpired";
}

/**
 * A resting order was changed by its owner. It comes first among the events of its command and
 * carries the order's state once the command is done; the TradeExecuted events that follow are its
 * fills as a taker (only when it was sent to the back at a price that crosses). What the order had
 * frozen is released and what its rest needs is frozen again: evolve applies the difference.
 */
export interface OrderAmendedEvent {
  readonly type: "OrderAmended";
  readonly orderId: number;
  readonly userId: number;
  readonly marketId: number;
  readonly outcomeId: number;
  readonly optionId: number;
  readonly side: OrderSide;
  /** True: fewer shares at the same price, its place in the queue kept. False: sent to the back. */
  readonly priorityKept: boolean;
  /** The order's limit price and total size from now on. */
  readonly limitPrice: bigint;
  readonly shares: bigint;
  /** OPEN or PARTIALLY_FILLED while it rests; FILLED (or CANCELLED when it met too many makers) otherwise. */
  readonly status: OrderStatus;
  /** Totals over the order's whole life, this command's fills included. */
  readonly filledShares: bigint;
  readonly filledAmount: bigint;
  readonly feePaid: bigint;
  /** Shares left on the book (0 when it no longer rests). */
  readonly restingShares: bigint;
  /** What the order held frozen before: USDT (BUY) or shares (SELL), all released. */
  readonly releasedAmount: bigint;
  readonly releasedShares: bigint;
  /** What its rest holds frozen now. */
  readonly frozenAmount: bigint;
  readonly frozenShares: bigint;
  readonly atMs: number;
}

/** The user's dead-man's switch was armed or re-armed: it goes off at expiresAtMs. */
export interface DeadMansSwitchArmedEvent {
  readonly type: "DeadMansSwitchArmed";
  readonly userId: number;
  readonly timeoutMs: number;
  readonly expiresAtMs: number;
  readonly atMs: number;
}

/** The user disarmed the switch (a heartbeat with timeout 0). */
export interface DeadMansSwitchDisarmedEvent {
  readonly type: "DeadMansSwitchDisarmed";
  readonly userId: number;
  readonly atMs: number;
}

/**
 * The switch went off (it was due at expiresAtMs): the OrderCancelled events of every resting order
 * of the user, reason DEAD_MANS_SWITCH, come just before this one, in the same command. Disarmed.
 */
export interface DeadMansSwitchTrippedEvent {
  readonly type: "DeadMansSwitchTripped";
  readonly userId: number;
  readonly expiresAtMs: number;
  /** How many orders it cancelled. */
  readonly cancelledOrders: number;
  readonly atMs: number;
}

/** A withdrawal was asked for: amount + fee move from available to frozen. */
export interface WithdrawalRequestedEvent {
  readonly type: "WithdrawalRequested";
  readonly withdrawalId: number;
  readonly userId: number;
  readonly amount: bigint;
  readonly fee: bigint;
  readonly address: string;
  readonly atMs: number;
}

export interface WithdrawalApprovedEvent {
  readonly type: "WithdrawalApproved";
  readonly withdrawalId: number;
  readonly userId: number;
  readonly atMs: number;
}

/** Cancelled by the user or rejected by the operator: amount + fee go back to available. */
export interface WithdrawalReleasedEvent {
  readonly type: "WithdrawalReleased";
  readonly withdrawalId: number;
  readonly userId: number;
  readonly amount: bigint;
  readonly fee: bigint;
  readonly reason: "CANCELLED" | "REJECTED";
  readonly atMs: number;
}

/** Sent: amount + fee leave frozen; the amount leaves the platform, the fee is platform income. */
export interface WithdrawalCompletedEvent {
  readonly type: "WithdrawalCompleted";
  readonly withdrawalId: number;
  readonly userId: number;
  readonly amount: bigint;
  readonly fee: bigint;
  readonly atMs: number;
}

/** A result was proposed for a closed market: it is `resolving` until windowEndsAtMs or the operator. */
export interface MarketResolvedEvent {
  readonly type: "MarketResolved";
  readonly marketId: number;
  /** The market's creator, or null for the operator. */
  readonly proposerId: number | null;
  /** The proposed winning option of every outcome, in the market's outcome order. */
  readonly winners: readonly { readonly outcomeId: number; readonly optionId: number }[];
  readonly challengeBond: bigint;
  readonly windowEndsAtMs: number;
  readonly atMs: number;
}

/** A user challenged the proposed result: the bond moves from available to frozen. */
export interface ResolutionChallengedEvent {
  readonly type: "ResolutionChallenged";
  readonly marketId: number;
  readonly userId: number;
  readonly bond: bigint;
  readonly reason: string;
  readonly atMs: number;
}

/** The challenger's bond comes back (the challenge was right, or the market was voided): frozen → available. */
export interface ChallengeBondReturnedEvent {
  readonly type: "ChallengeBondReturned";
  readonly marketId: number;
  readonly userId: number;
  readonly amount: bigint;
  readonly atMs: number;
}

/** The proposal stood: the bond leaves the challenger's frozen balance for the market's fee income. */
export interface ChallengeBondForfeitedEvent {
  readonly type: "ChallengeBondForfeited";
  readonly marketId: number;
  readonly userId: number;
  readonly amount: bigint;
  readonly atMs: number;
}

/** The market's final result; claims are allowed from now on. */
export interface MarketSettledEvent {
  readonly type: "MarketSettled";
  readonly marketId: number;
  readonly winners: readonly { readonly outcomeId: number; readonly optionId: number }[];
  /** The operator's finalize, or the scheduler when the window ended unchallenged. */
  readonly by: "OPERATOR" | "WINDOW_ENDED";
  readonly atMs: number;
}

/** The market was voided; its resting orders were cancelled just before. Every share pays 0.5. */
export interface MarketVoidedEvent {
  readonly type: "MarketVoided";
  readonly marketId: number;
  readonly atMs: number;
}

/** A position's payout left the outcome's collateral for the owner's available balance. */
export interface PositionClaimedEvent {
  readonly type: "PositionClaimed";
  readonly positionId: number;
  readonly userId: number;
  readonly marketId: number;
  readonly outcomeId: number;
  readonly optionId: number;
  /** Shares the position held when claimed. */
  readonly shares: bigint;
  readonly amount: bigint;
  /** Shared by the claims of one command: its journal sequence, as a decimal string. */
  readonly transactionId: string;
  readonly atMs: number;
}

/** The market lifecycle events lifecycle/lifecycle.ts applies. */
export type LifecycleEvent =
  | MarketResolvedEvent
  | ResolutionChallengedEvent
  | ChallengeBondReturnedEvent
  | ChallengeBondForfeitedEvent
  | MarketSettledEvent
  | MarketVoidedEvent;

export type ExchangeEvent =
  | MarketCreatedEvent
  | MarketOpenedEvent
  | MarketClosedEvent
  | DepositCreditedEvent
  | OrderPlacedEvent
  | OrderRepeatedEvent
  | TradeExecutedEvent
  | OrderCancelledEvent
  | OrderExpiredEvent
  | OrderAmendedEvent
  | DeadMansSwitchArmedEvent
  | DeadMansSwitchDisarmedEvent
  | DeadMansSwitchTrippedEvent
  | WithdrawalRequestedEvent
  | WithdrawalApprovedEvent
  | WithdrawalReleasedEvent
  | WithdrawalCompletedEvent
  | LifecycleEvent
  | PositionClaimedEvent
  | PoolEvent
  | ExclusiveEvent;
