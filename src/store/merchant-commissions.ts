// The port of the merchant commission read model (DESIGN §3 Fees): each merchant's fees and
// commission per UTC month. src/store/sqlite/merchant-commissions.ts projects and reads it.

import type { ExchangeCommand } from "../core/commands.js";
import type { ExchangeEvent } from "../core/events.js";
import type { JournalEntry } from "../engine/store.js";
import { ddl, type IntegerColumn, type Sql, sql, toNumber } from "./sql.js";

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

// ---- What both adapters share: the table, which fees accrue, and the read. How a batch's fees are
// written is each adapter's (SQLite reads and rewrites each row in its commit; PostgreSQL sends
// column arrays to one statement that joins the identity tables).

export const merchantCommissionMigrations: readonly Sql[] = [
  sql`CREATE TABLE merchant_commissions (
     merchant_id ${ddl.int64} NOT NULL,
     period text NOT NULL,
     commission_rate_bps integer NOT NULL,
     fee_total ${ddl.int64} NOT NULL,
     commission_total ${ddl.int64} NOT NULL,
     PRIMARY KEY (merchant_id, period, commission_rate_bps)
   )${ddl.strictWithoutRowid};`,
];

/**
 * Each fee these entries charge, to `accrue`: trading fees (maker and taker, both sides of every
 * trade) and an AMM trade's buy or sell fee, which its user pays like a taker fee.
 */
export function forEachFee(
  entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[],
  accrue: (userId: number, fee: bigint, timeMs: number) => void,
): void {
  for (const entry of entries) {
    for (const event of entry.events) {
      if (event.type === "PoolTradeExecuted") accrue(event.userId, event.fee, event.atMs);
      if (event.type !== "TradeExecuted") continue;
      accrue(event.makerUserId, event.makerFee, event.atMs);
      accrue(event.takerUserId, event.takerFee, event.atMs);
    }
  }
}

export const merchantCommissionStatements = {
  ofMerchant: sql<{
    merchantId: number;
    period: string;
  }>`SELECT commission_rate_bps, fee_total, commission_total
     FROM merchant_commissions WHERE merchant_id = ${"merchantId"} AND period = ${"period"}
     ORDER BY commission_rate_bps`,
};

/** A row as both drivers read it here: money as bigint (SQLite through safeIntegers). */
export interface CommissionRow {
  commission_rate_bps: IntegerColumn;
  fee_total: bigint;
  commission_total: bigint;
}

export function commissionOf(
  merchantId: number,
  period: string,
  rows: readonly CommissionRow[],
): MerchantCommission {
  const byRate = rows.map((row) => ({
    rateBps: toNumber(row.commission_rate_bps),
    feeTotal: row.fee_total,
    commissionTotal: row.commission_total,
  }));
  return {
    merchantId,
    period,
    feeTotal: byRate.reduce((sum, row) => sum + row.feeTotal, 0n),
    commissionTotal: byRate.reduce((sum, row) => sum + row.commissionTotal, 0n),
    byRate,
  };
}
