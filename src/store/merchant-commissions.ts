// The port of the merchant commission read model (DESIGN §3 Fees): each merchant's fees and
// commission per UTC month. src/store/sqlite/merchant-commissions.ts projects and reads it.

/** 'YYYYMM' of a time, in UTC. */
export function periodOf(timeMs: number): string {
  const date = new Date(timeMs);
  return `${date.getUTCFullYear()}${String(date.getUTCMonth() + 1).padStart(2, "0")}`;
}

export interface MerchantCommission {
  readonly merchantId: number;
  /** 'YYYYMM'. */
  readonly period: string;
  /** Fees the merchant's users paid in the period, atoms. */
  readonly feeTotal: bigint;
  /** What the merchant earned on them, atoms, rounded down per rate. */
  readonly commissionTotal: bigint;
  /** One entry per rate in force during the period, lowest first. */
  readonly byRate: readonly { rateBps: number; feeTotal: bigint; commissionTotal: bigint }[];
}

export interface MerchantCommissionReadModel {
  /** The merchant's fees and commission in one month (zeros when nothing accrued). */
  commission(merchantId: number, period: string): Promise<MerchantCommission>;
}
