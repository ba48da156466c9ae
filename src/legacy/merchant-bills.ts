// Merchant bills of spec 001 (point 6): the monthly commission statement and the user bill detail.
// Pure: the route gathers the month's commission (merchant_commissions read model), the unclaimed
// payouts and the partner's rate; this module turns them into spec 001's records. Every field is
// defined in docs/decisions.md ("Legacy interface (spec 001)": "Monthly bill", "Bill detail").

import { atomsToNumber, formatAtoms } from "../core/money.js";
import type { MerchantCommission } from "../store/merchant-commissions.js";

/** The only currency (DESIGN §2). */
export const billCurrency = "USDT";
const basisPointsPerPercent = 100n;
/** commissionRate is shown in percent with at most this many decimals (rounded down). */
const ratePercentDecimals = 4n;

export interface BillPeriod {
  /** 'YYYYMM'. */
  readonly period: string;
  /** First instant of the month, UTC. */
  readonly startMs: number;
  /** First instant of the next month, UTC. */
  readonly endMs: number;
}

/** billPeriod as spec 001 sends it: the number YYYYMM (year 2000–9999, month 01–12); else undefined. */
export function parseBillPeriod(value: unknown): BillPeriod | undefined {
  if (typeof value !== "number" || !Number.isInteger(value)) return undefined;
  const year = Math.floor(value / 100);
  const month = value % 100;
  if (year < 2000 || year > 9999 || month < 1 || month > 12) return undefined;
  return {
    period: String(value),
    startMs: Date.UTC(year, month - 1, 1),
    endMs: Date.UTC(year, month, 1),
  };
}

/** The fee-weighted rate of the month in percent; the partner's current rate when no fee accrued. */
export function commissionRatePercent(commission: MerchantCommission, currentRateBps: number): number {
  if (commission.feeTotal === 0n) return currentRateBps / Number(basisPointsPerPercent);
  const weighted = commission.byRate.reduce((sum, row) => sum + row.feeTotal * BigInt(row.rateBps), 0n);
  const scale = 10n ** ratePercentDecimals;
  const scaled = (weighted * scale) / (commission.feeTotal * basisPointsPerPercent);
  return Number(scaled) / Number(scale);
}

export interface StatementInput {
  readonly merchantId: number;
  readonly billPeriod: BillPeriod;
  readonly commission: MerchantCommission;
  readonly currentRateBps: number;
  /** Payouts owed to the merchant's users by markets settled or voided in the month, still unclaimed. */
  readonly unclaimedPool: bigint;
  readonly nowMs: number;
}

export function monthlyStatement(input: StatementInput) {
  const { commission } = input;
  const tradeFeeTotal = commission.feeTotal;
  // The core charges no settlement fee on the markets it settles today (orderbook); parimutuel
  // settlement fees will accrue to merchant_commissions like trading fees, and show here.
  const settlementFeeTotal = 0n;
  const agentCommissionTotal = commission.commissionTotal;
  // No operator adjustment exists yet; the field is kept so statements keep their shape when it does.
  const adjustmentAmount = 0n;
  return {
    statementId: `${input.merchantId}-${input.billPeriod.period}`,
    merchantId: String(input.merchantId),
    periodMonth: input.billPeriod.period,
    currency: billCurrency,
    selfCommissionFee: atomsToNumber(tradeFeeTotal + settlementFeeTotal - agentCommissionTotal),
    tradeFeeTotal: atomsToNumber(tradeFeeTotal),
    settlementFeeTotal: atomsToNumber(settlementFeeTotal),
    unclaimedPoolTotal: atomsToNumber(input.unclaimedPool),
    agentCommissionTotal: atomsToNumber(agentCommissionTotal),
    commissionRate: commissionRatePercent(commission, input.currentRateBps),
    merchantTotalIncome: atomsToNumber(agentCommissionTotal + adjustmentAmount),
    adjustmentAmount: atomsToNumber(adjustmentAmount),
    createTime: new Date(input.billPeriod.startMs).toISOString(),
    // Figures of a running month are live; a finished month's were final when it ended.
    updateTime: new Date(Math.min(input.nowMs, input.billPeriod.endMs)).toISOString(),
  };
}

export type MonthlyStatement = ReturnType<typeof monthlyStatement>;

export interface BillTrade {
  readonly userId: number;
  readonly marketId: number;
  readonly outcomeId: number;
  readonly optionId: number;
  readonly side: "BUY" | "SELL";
  /** Atoms. */
  readonly price: bigint;
  readonly shares: bigint;
  readonly timeMs: number;
}

export interface BillOption {
  readonly title: string;
  readonly optionIndex: number;
}

/** One line of the user bill detail: the user's side of one trade. */
export function billDetailLine(
  trade: BillTrade,
  user: { merchantId: number; merchantUserId: string },
  option: BillOption | undefined,
) {
  return {
    userId: String(trade.userId),
    merchantUserId: user.merchantUserId,
    marketId: String(trade.marketId),
    outcomeId: String(trade.outcomeId),
    optionId: String(trade.optionId),
    optionTitle: option?.title ?? "",
    currency: billCurrency,
    merchantId: user.merchantId,
    optionIndex: option?.optionIndex ?? 0,
    type: trade.side,
    shares: atomsToNumber(trade.shares),
    tranDate: new Date(trade.timeMs).toISOString(),
    // price × shares, rounded down to the atom, fees excluded (as the activity's amount).
    amount: formatAtoms((trade.price * trade.shares) / 100_000_000n),
  };
}
