// Commands the exchange core decides. Plain data only (objects, arrays, strings, numbers,
// booleans, null, bigint): the engine journals them as JSON with tagged bigints. Amounts, shares
// and prices are bigint atoms (1e-8) as parsed by money.ts at the edge; optional inputs are null.

import type { OrderSide, OrderType, TimeInForce } from "./book/orders.js";
import type { ModelType } from "./market.js";
import type { PoolTermsInput } from "./pools/models.js";

export interface CreateMarketCommand {
  readonly type: "CreateMarket";
  readonly title: string;
  readonly modelType: ModelType;
  /** Each outcome of an orderbook market is binary; options null means ["Yes", "No"]. */
  readonly outcomes: readonly { readonly name: string; readonly options: readonly string[] | null }[];
  /** Price atoms; null = 0.01. One of 0.1, 0.01, 0.001, 0.0001. */
  readonly tickSize: bigint | null;
  /** Share atoms; null = 0.01 shares. A multiple of 0.0001. */
  readonly minOrderSize: bigint | null;
  readonly makerFeeBps: number | null;
  readonly takerFeeBps: number | null;
  /** Price atoms; null = 0.1. */
  readonly marketOrderPriceProtection: bigint | null;
  /** Price atoms; null = 0.5. */
  readonly limitOrderPriceProtection: bigint | null;
  readonly startTimeMs: number | null;
  readonly endTimeMs: number | null;
  readonly creatorId: number | null;
  /**
   * Catalogue metadata the core does not interpret (description, rules, category, tags, logos,
   * outcome titles, creator name): plain data copied as it is into MarketCreated, so it is
   * journaled atomically with the market and read models can project it. null when there is none.
   */
  readonly details: MarketDetails | null;
  /** AMM: liquidity, weights, buy/sell fees and bounds; parimutuel: settlement fee, stake bounds (pools/models.ts). */
  readonly pool?: PoolTermsInput | null;
  /** An exclusive market: exactly one outcome wins, No shares convert (exclusive/). Order books of ≥ 2 outcomes. */
  readonly exclusive?: boolean | null;
}

/** A JSON object of plain data (see src/engine/journal-codec.ts); the core never reads inside it. */
export type MarketDetails = { readonly [key: string]: unknown };

export interface OpenMarketCommand {
  readonly type: "OpenMarket";
  readonly marketId: number;
}

export interface CloseMarketCommand {
  readonly type: "CloseMarket";
  readonly marketId: number;
}

export interface DepositCommand {
  readonly type: "Deposit";
  readonly userId: number;
  /** Atoms, > 0. */
  readonly amount: bigint;
  /** Chain transaction hash; a second deposit with the same hash is refused (DEPOSIT_DUPLICATE). */
  readonly txHash: string;
}

export interface PlaceOrderCommand {
  readonly type: "PlaceOrder";
  readonly userId: number;
  readonly marketId: number;
  readonly outcomeId: number;
  readonly optionId: number;
  readonly side: OrderSide;
  readonly orderType: OrderType;
  /** LIMIT: price atoms in the option's own terms. MARKET: null. */
  readonly limitPrice: bigint | null;
  /** LIMIT and MARKET SELL: share atoms. MARKET BUY: null. */
  readonly shares: bigint | null;
  /** MARKET BUY: USDT atoms to spend, taker fee included. Otherwise null. */
  readonly amount: bigint | null;
  /** MARKET orders are always FAK. */
  readonly timeInForce: TimeInForce;
  /** GTD only: the order expires when nowMs reaches this. */
  readonly expiresAtMs: number | null;
  readonly clientOrderId: string | null;
  /**
   * LIMIT GTC/GTD only: the order must rest without trading; one that would trade at once is
   * refused (POST_ONLY_WOULD_TRADE). Absent (journal entries from before it existed) means false.
   */
  readonly postOnly?: boolean;
}

export interface CancelOrderCommand {
  readonly type: "CancelOrder";
  /** The caller; only the owner may cancel. */
  readonly userId: number;
  readonly orderId: number;
}

/**
 * Cancels every resting order of the user at once (mass-cancel.ts): all of them, those in one
 * market, or those on one book (outcome) of it. One command, one OrderCancelled per order.
 */
export interface CancelAllOrdersCommand {
  readonly type: "CancelAllOrders";
  readonly userId: number;
  readonly marketId: number | null;
  /** One book of the market; needs marketId. */
  readonly outcomeId: number | null;
}

/**
 * Changes a resting order's size or price (book/amend-order.ts): fewer shares at the same price keep
 * its place in the queue; any other change sends it to the back of its (new) level, where it may
 * trade at once unless it is post-only. Side, option, time in force and expiry stay.
 */
export interface AmendOrderCommand {
  readonly type: "AmendOrder";
  readonly userId: number;
  readonly orderId: number;
  /** The new total size in share atoms (more than what has filled), or null to keep it. */
  readonly shares: bigint | null;
  /** The new limit price in the order's option terms, or null to keep it. */
  readonly limitPrice: bigint | null;
}

/**
 * The dead-man's switch (dead-mans-switch.ts): a timeout arms (or re-arms) it to go off at the
 * commit time plus the timeout; 0 disarms it. When it goes off, every resting order of the user is
 * cancelled (TripDeadMansSwitch).
 */
export interface HeartbeatCommand {
  readonly type: "Heartbeat";
  readonly userId: number;
  /** 0, or deadMansSwitchTimeoutMsMin to deadMansSwitchTimeoutMsMax. */
  readonly timeoutMs: number;
}

/** Sent by the scheduler: the user's switch is due, so every resting order of the user is cancelled. */
export interface TripDeadMansSwitchCommand {
  readonly type: "TripDeadMansSwitch";
  readonly userId: number;
}

/** Sent by the scheduler: expires resting GTD orders whose expiresAtMs ≤ nowMs. */
export interface ExpireOrdersCommand {
  readonly type: "ExpireOrders";
}

/** The user asks to withdraw `amount`, paying `fee` (atoms): both are frozen until it ends. */
export interface RequestWithdrawalCommand {
  readonly type: "RequestWithdrawal";
  readonly userId: number;
  readonly amount: bigint;
  readonly fee: bigint;
  /** Where to send it; its format is checked by the wallet, not the core. */
  readonly address: string;
}

/** The user takes back a withdrawal that is still pending. */
export interface CancelWithdrawalCommand {
  readonly type: "CancelWithdrawal";
  readonly userId: number;
  readonly withdrawalId: number;
}

/** The operator approves a pending withdrawal; its funds stay frozen until it completes. */
export interface ApproveWithdrawalCommand {
  readonly type: "ApproveWithdrawal";
  readonly withdrawalId: number;
}

/** The operator refuses a pending or approved withdrawal; its funds come back. */
export interface RejectWithdrawalCommand {
  readonly type: "RejectWithdrawal";
  readonly withdrawalId: number;
}

/** The transfer went out: the amount leaves the platform and the fee becomes income. */
export interface CompleteWithdrawalCommand {
  readonly type: "CompleteWithdrawal";
  readonly withdrawalId: number;
}

/** The winning option the operator or creator names for one outcome. */
export interface WinnerChoice {
  readonly outcomeId: number;
  readonly winningOptionId: number;
}

/**
 * Proposes the result of a closed market (lifecycle/lifecycle.ts): the market becomes `resolving` and a
 * challenge window starts. proposerId is the market's creator, or null for the operator.
 */
export interface ResolveMarketCommand {
  readonly type: "ResolveMarket";
  readonly marketId: number;
  readonly proposerId: number | null;
  /** One per outcome of the market. */
  readonly winners: readonly WinnerChoice[];
  /** null = defaultChallengeWindowMs (24 h). */
  readonly challengeWindowMs: number | null;
  /** Atoms a challenger posts; null = defaultChallengeBondAtoms. */
  readonly challengeBond: bigint | null;
}

/** A user challenges a proposed resolution while its window is open, posting the bond. */
export interface ChallengeResolutionCommand {
  readonly type: "ChallengeResolution";
  readonly marketId: number;
  readonly userId: number;
  readonly reason: string;
}

/** The operator settles a resolving market now, with corrected winners or null for the proposal. */
export interface FinalizeMarketCommand {
  readonly type: "FinalizeMarket";
  readonly marketId: number;
  readonly winners: readonly WinnerChoice[] | null;
}

/** Sent by the scheduler: settles an unchallenged resolution whose window has ended. */
export interface SettleMarketCommand {
  readonly type: "SettleMarket";
  readonly marketId: number;
}

/** The operator voids a market that is not settled: everything is returned (lifecycle/lifecycle.ts). */
export interface VoidMarketCommand {
  readonly type: "VoidMarket";
  readonly marketId: number;
}

/** The owner claims one position of a settled or void market. */
export interface ClaimPositionCommand {
  readonly type: "ClaimPosition";
  readonly userId: number;
  readonly positionId: number;
}

/** The user claims every claimable position in one settled or void market (legacy claim). */
export interface ClaimMarketCommand {
  readonly type: "ClaimMarket";
  readonly userId: number;
  readonly marketId: number;
}

/**
 * In an open exclusive market, `shares` No of each listed outcome become `shares` Yes of every other
 * outcome plus shares × (listed − 1) USDT (exclusive/convert.ts).
 */
export interface ConvertPositionsCommand {
  readonly type: "ConvertPositions";
  readonly userId: number;
  readonly marketId: number;
  /** 1 to n − 1 distinct outcomes of the market whose No shares are converted. */
  readonly outcomeIds: readonly number[];
  /** Share atoms of No converted per listed outcome; a multiple of 0.0001 shares. */
  readonly shares: bigint;
}

export type ExchangeCommand =
  | CreateMarketCommand
  | OpenMarketCommand
  | CloseMarketCommand
  | DepositCommand
  | PlaceOrderCommand
  | CancelOrderCommand
  | CancelAllOrdersCommand
  | AmendOrderCommand
  | HeartbeatCommand
  | TripDeadMansSwitchCommand
  | ExpireOrdersCommand
  | RequestWithdrawalCommand
  | CancelWithdrawalCommand
  | ApproveWithdrawalCommand
  | RejectWithdrawalCommand
  | CompleteWithdrawalCommand
  | ResolveMarketCommand
  | ChallengeResolutionCommand
  | FinalizeMarketCommand
  | SettleMarketCommand
  | VoidMarketCommand
  | ClaimPositionCommand
  | ClaimMarketCommand
  | ConvertPositionsCommand;

/** A CreateMarket command with the defaults filled in: binary Yes/No outcomes, orderbook model. */
export function createMarketCommand(
  fields: Partial<Omit<CreateMarketCommand, "type">> & { title: string },
): CreateMarketCommand {
  return {
    type: "CreateMarket",
    title: fields.title,
    modelType: fields.modelType ?? "orderbook",
    outcomes: fields.outcomes ?? [{ name: fields.title, options: null }],
    tickSize: fields.tickSize ?? null,
    minOrderSize: fields.minOrderSize ?? null,
    makerFeeBps: fields.makerFeeBps ?? null,
    takerFeeBps: fields.takerFeeBps ?? null,
    marketOrderPriceProtection: fields.marketOrderPriceProtection ?? null,
    limitOrderPriceProtection: fields.limitOrderPriceProtection ?? null,
    startTimeMs: fields.startTimeMs ?? null,
    endTimeMs: fields.endTimeMs ?? null,
    creatorId: fields.creatorId ?? null,
    details: fields.details ?? null,
    pool: fields.pool ?? null,
    ...(fields.exclusive === undefined ? {} : { exclusive: fields.exclusive }),
  };
}

type PlaceOrderFields = Omit<
  PlaceOrderCommand,
  | "type"
  | "orderType"
  | "limitPrice"
  | "shares"
  | "amount"
  | "timeInForce"
  | "expiresAtMs"
  | "clientOrderId"
  | "postOnly"
>;

/** A LIMIT order (GTC unless told otherwise). */
export function limitOrderCommand(
  fields: PlaceOrderFields & {
    limitPrice: bigint;
    shares: bigint;
    timeInForce?: TimeInForce;
    expiresAtMs?: number | null;
    clientOrderId?: string | null;
    postOnly?: boolean;
  },
): PlaceOrderCommand {
  const command: PlaceOrderCommand = {
    type: "PlaceOrder",
    userId: fields.userId,
    marketId: fields.marketId,
    outcomeId: fields.outcomeId,
    optionId: fields.optionId,
    side: fields.side,
    orderType: "LIMIT",
    limitPrice: fields.limitPrice,
    shares: fields.shares,
    amount: null,
    timeInForce: fields.timeInForce ?? "GTC",
    expiresAtMs: fields.expiresAtMs ?? null,
    clientOrderId: fields.clientOrderId ?? null,
  };
  // Only a post-only order carries the flag, so every other command keeps its journal shape.
  return fields.postOnly === undefined ? command : { ...command, postOnly: fields.postOnly };
}

/** A MARKET order: BUY spends `amount`, SELL sells `shares`; always FAK. */
export function marketOrderCommand(
  fields: PlaceOrderFields & {
    amount?: bigint | null;
    shares?: bigint | null;
    clientOrderId?: string | null;
  },
): PlaceOrderCommand {
  return {
    type: "PlaceOrder",
    userId: fields.userId,
    marketId: fields.marketId,
    outcomeId: fields.outcomeId,
    optionId: fields.optionId,
    side: fields.side,
    orderType: "MARKET",
    limitPrice: null,
    shares: fields.shares ?? null,
    amount: fields.amount ?? null,
    timeInForce: "FAK",
    expiresAtMs: null,
    clientOrderId: fields.clientOrderId ?? null,
  };
}
