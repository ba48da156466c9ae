// What the platform keeps, beside the engine's in-memory state, about trading: every order with its
// current status, both sides of every trade, every balance movement, positions, price points,
// deposits, and the market catalogue. Projected from the engine's events inside each commit (so a
// read model is never ahead of or behind the journal), queried by the API routes. Asynchronous so a
// PostgreSQL adapter can implement it as it is; the SQLite adapter answers synchronously inside.

import type { MarketDetails } from "../core/commands.js";
import type { CrossType } from "../core/events.js";
import type {
  MarketStatus,
  ModelType,
  OrderSide,
  OrderStatus,
  OrderType,
  PositionStatus,
  TimeInForce,
} from "../core/exchange.js";

/** Rows per page the queries return at most, whatever a caller asks (spec 000: pageSize ≤ 100). */
export const readModelPageSizeMax = 100;

export interface PageRequest {
  /** 1-based. */
  readonly page: number;
  /** 1 to readModelPageSizeMax. */
  readonly pageSize: number;
}

export interface Page<Record> {
  readonly records: Record[];
  /** Rows matching the filter across all pages. */
  readonly total: number;
}

export interface OrderRecord {
  readonly orderId: number;
  readonly userId: number;
  readonly marketId: number;
  readonly outcomeId: number;
  readonly optionId: number;
  readonly side: OrderSide;
  readonly orderType: OrderType;
  readonly timeInForce: TimeInForce;
  /** Atoms, in the order's option terms; null for MARKET. */
  readonly limitPrice: bigint | null;
  /** Requested shares; null for a MARKET BUY. */
  readonly shares: bigint | null;
  /** MARKET BUY budget; null otherwise. */
  readonly amount: bigint | null;
  readonly filledShares: bigint;
  /** Cash of the fills, fees excluded. */
  readonly filledAmount: bigint;
  readonly feePaid: bigint;
  readonly status: OrderStatus;
  readonly clientOrderId: string | null;
  readonly expiresAtMs: number | null;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

export type TradeRole = "MAKER" | "TAKER";

/** One side of a trade: each trade has a MAKER row and a TAKER row. */
export interface TradeRecord {
  readonly tradeId: number;
  readonly orderId: number;
  readonly userId: number;
  readonly marketId: number;
  readonly outcomeId: number;
  readonly optionId: number;
  readonly side: OrderSide;
  readonly role: TradeRole;
  readonly cross: CrossType;
  /** Atoms, in this side's option terms. */
  readonly price: bigint;
  readonly shares: bigint;
  readonly fee: bigint;
  readonly timeMs: number;
}

/**
 * Kinds of USDT movement. DEPOSIT credits; FREEZE and UNFREEZE move between available and frozen
 * (an order rests, is cancelled, expires, or a fill needs less than was reserved); TRADE is the
 * cash of a fill (negative for a buyer); FEE a trading fee. The market lifecycle adds
 * CHALLENGE_BOND (a challenger's bond frozen; refId the market id), BOND_RETURN (it comes back to
 * available), BOND_FORFEIT (it leaves the frozen balance for the market's fee income) and CLAIM
 * (a position's payout, winning shares × 1 or 0.5 a share in a void market, 1/n a Yes and
 * (n − 1)/n a No share in a void exclusive market of n outcomes; refId the claim's
 * transactionId).
 */
export const ledgerEntryTypes = [
  "DEPOSIT",
  "FREEZE",
  "UNFREEZE",
  "TRADE",
  "FEE",
  "CHALLENGE_BOND",
  "BOND_RETURN",
  "BOND_FORFEIT",
  "CLAIM",
  // The wallet's entries, refId the withdrawal id: WITHDRAWAL_FREEZE (amount + fee move from
  // available to frozen at the request), WITHDRAWAL_UNFREEZE (they come back: cancelled, rejected,
  // or released at completion just before the debit), WITHDRAWAL (the amount leaves available) and
  // WITHDRAWAL_FEE (the fee leaves available). Completion releases and then debits, as a maker's
  // fill does (UNFREEZE then TRADE), so the amounts of a user's entries always add up to `available`.
  "WITHDRAWAL_FREEZE",
  "WITHDRAWAL_UNFREEZE",
  "WITHDRAWAL",
  "WITHDRAWAL_FEE",
  // A conversion in an exclusive market (DESIGN §10): the USDT it paid, shares × (listed − 1), which
  // may be 0; refId the conversion's transactionId. One entry per conversion.
  "CONVERT",
] as const;
export type LedgerEntryType = (typeof ledgerEntryTypes)[number];

export interface LedgerEntryRecord {
  readonly entryId: number;
  readonly userId: number;
  readonly type: LedgerEntryType;
  /** Change of the available balance, atoms (negative for a debit). */
  readonly amount: bigint;
  /** Change of the frozen balance, atoms. */
  readonly frozenDelta: bigint;
  readonly availableAfter: bigint;
  readonly frozenAfter: bigint;
  /** The deposit's txHash, the order id (FREEZE, UNFREEZE), the trade id (TRADE, FEE) or the withdrawal id (WITHDRAWAL_*). */
  readonly refId: string;
  readonly timeMs: number;
}

export interface PositionRecord {
  readonly positionId: number;
  readonly userId: number;
  readonly marketId: number;
  readonly outcomeId: number;
  readonly optionId: number;
  /** Free shares. */
  readonly shares: bigint;
  /** Shares frozen in resting SELL orders. */
  readonly frozenShares: bigint;
  readonly cost: bigint;
  readonly realizedPnl: bigint;
  /** open until the market is settled or void, then settled, then claimed. */
  readonly status: PositionStatus;
  /** What a claim would pay now, atoms (0 while open and once claimed). */
  readonly claimable: bigint;
  /** What the claim paid, atoms (0 until claimed). */
  readonly claimedAmount: bigint;
  readonly claimTransactionId: string | null;
}

export interface PricePointRecord {
  readonly optionId: number;
  readonly marketId: number;
  readonly outcomeId: number;
  /** Atoms, in the option's own terms. */
  readonly price: bigint;
  readonly tradeId: number;
  readonly timeMs: number;
}

export interface DepositRecord {
  readonly txHash: string;
  readonly userId: number;
  readonly amount: bigint;
  readonly creditedAtMs: number;
}

/** PENDING and APPROVED hold frozen funds; COMPLETED, CANCELLED and REJECTED are final. */
export type WithdrawalRecordStatus = (typeof withdrawalRecordStatuses)[number];

export interface WithdrawalRecord {
  readonly withdrawalId: number;
  readonly userId: number;
  /** Atoms sent to the address (the fee is on top). */
  readonly amount: bigint;
  readonly fee: bigint;
  readonly address: string;
  readonly status: WithdrawalRecordStatus;
  readonly requestedAtMs: number;
  /** When the status last changed (the request time while PENDING). */
  readonly updatedAtMs: number;
}

export const withdrawalRecordStatuses = [
  "PENDING",
  "APPROVED",
  "COMPLETED",
  "CANCELLED",
  "REJECTED",
] as const;

export interface WithdrawalFilter {
  /** One user's; every user's when undefined (the operator's review). */
  readonly userId?: number | undefined;
  readonly status?: WithdrawalRecordStatus | undefined;
}

export interface LedgerFilter {
  /** Only entries of this type. */
  readonly type?: LedgerEntryType | undefined;
}

export interface CatalogOption {
  readonly optionId: number;
  readonly optionIndex: number;
  readonly title: string;
  readonly assetId: string;
}

export interface CatalogOutcome {
  readonly outcomeId: number;
  readonly name: string;
  /** Yes first (optionIndex order). */
  readonly options: readonly CatalogOption[];
}

export interface CatalogMarket {
  readonly marketId: number;
  readonly title: string;
  readonly modelType: ModelType;
  readonly status: MarketStatus;
  readonly categoryId: string | null;
  readonly description: string;
  readonly rules: string;
  /** Comma-separated. */
  readonly tags: string;
  readonly creatorId: number | null;
  readonly startTimeMs: number | null;
  readonly endTimeMs: number | null;
  readonly createdAtMs: number;
  readonly openedAtMs: number | null;
  readonly closedAtMs: number | null;
  /** USDT that changed hands in trades, atoms. */
  readonly volume: bigint;
  /** Trading fees the market earned, atoms. */
  readonly feeIncome: bigint;
  /** An exclusive market (DESIGN §10): exactly one outcome wins, No shares convert. */
  readonly exclusive: boolean;
  /** The CreateMarket command's pass-through metadata, as journaled. */
  readonly details: MarketDetails | null;
  readonly outcomes: readonly CatalogOutcome[];
}

export interface OrderFilter {
  readonly userId: number;
  readonly marketId?: number | undefined;
  /** Only OPEN and PARTIALLY_FILLED. */
  readonly openOnly?: boolean;
}

export interface UserFilter {
  readonly userId: number;
  readonly marketId?: number | undefined;
}

export interface PositionFilter extends UserFilter {
  readonly status?: PositionStatus | undefined;
}

/** A market's resolution as the read models keep it (null fields until that step happens). */
export interface MarketResolutionRecord {
  readonly resolvedAtMs: number | null;
  readonly challengeWindowEndsAtMs: number | null;
  readonly challengeBond: bigint | null;
  readonly challenged: boolean;
  readonly settledAtMs: number | null;
  readonly voidedAtMs: number | null;
}

export interface ExchangeReadModels {
  orderById(orderId: number): Promise<OrderRecord | undefined>;
  /** Newest first. */
  orders(filter: OrderFilter, page: PageRequest): Promise<Page<OrderRecord>>;
  /** This order's side of each of its trades, oldest first. */
  tradesOfOrder(orderId: number): Promise<TradeRecord[]>;
  /** The user's side of each trade, newest first. */
  trades(filter: UserFilter, page: PageRequest): Promise<Page<TradeRecord>>;
  /** Newest first. */
  ledger(userId: number, page: PageRequest, filter?: LedgerFilter): Promise<Page<LedgerEntryRecord>>;
  /** By position id. */
  positions(filter: PositionFilter, page: PageRequest): Promise<Page<PositionRecord>>;
  /** One position, whoever owns it. */
  positionById(positionId: number): Promise<PositionRecord | undefined>;
  /** Oldest first, within [fromMs, toMs]. */
  pricePoints(optionId: number, fromMs: number, toMs: number, limit: number): Promise<PricePointRecord[]>;
  depositByTxHash(txHash: string): Promise<DepositRecord | undefined>;
  /** The user's deposits, newest first. */
  deposits(userId: number, page: PageRequest): Promise<Page<DepositRecord>>;
  /** One withdrawal, whoever owns it, in any status. */
  withdrawalById(withdrawalId: number): Promise<WithdrawalRecord | undefined>;
  /** Withdrawals matching the filter, newest first. */
  withdrawals(filter: WithdrawalFilter, page: PageRequest): Promise<Page<WithdrawalRecord>>;
  market(marketId: number): Promise<CatalogMarket | undefined>;
}
