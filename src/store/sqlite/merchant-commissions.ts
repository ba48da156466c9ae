// Merchant commission (DESIGN §3 Fees): each merchant earns its `commissionRate` of the fees its
// users pay. A read model, projected in the same commit as the trade that charged the fee:
//
//   merchant_commissions(merchant_id, period, commission_rate_bps, fee_total, commission_total)
//
// - merchant_id: the partner (identity_partners.partner_id, the merchantId of the APIs);
// - period: the UTC month of the fee, 'YYYYMM' (the legacy monthly bill's billPeriod);
// - commission_rate_bps: the partner's rate when the fee was charged, in basis points; a rate that
//   changes mid-month starts a row of its own, so every fee earns the rate of its own time;
// - fee_total: the fees the merchant's users paid in that month at that rate, atoms;
// - commission_total: floor(fee_total × rate / 10,000), atoms: rounded down once over the month's
//   total (never per fee, which would lose an atom a trade). A month's commission is the sum of its rows.
//
// Fees counted: trading fees (makerFee, takerFee), both sides of every trade. AMM, parimutuel and
// settlement fees are to be added by calling `accrue` from their events. A forfeited challenge bond
// is not a fee a user paid for a service, so it earns no commission. A user with no merchant (only
// possible in tests that run the engine without identities) accrues nothing.

import type { ExchangeCommand } from "../../core/commands.js";
import type { ExchangeEvent } from "../../core/events.js";
import type { JournalEntry } from "../../engine/store.js";
import {
  type CommissionRow,
  commissionOf,
  forEachFee,
  type MerchantCommission,
  type MerchantCommissionReadModel,
  merchantCommissionMigrations,
  merchantCommissionStatements,
  periodOf,
} from "../merchant-commissions.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import type { SqliteProjector } from "./engine-store.js";
import { prepareSqlite, sqliteText } from "./statements.js";

export { type MerchantCommission, type MerchantCommissionReadModel, periodOf };

const migrations = merchantCommissionMigrations.map(sqliteText);

const basisPointsPerUnit = 10_000n;

/** The projector the exchange host runs in every commit, beside the exchange read models. */
export function createSqliteCommissionProjector(
  db: SqliteDatabase,
): SqliteProjector<ExchangeCommand, ExchangeEvent> {
  applyMigrations(db, "commissions", migrations);
  const identityExists =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'identity_users'").get() !==
    undefined;
  const merchantOf = identityExists
    ? db.prepare<[number], { partner_id: number; commission_rate_bps: number }>(
        `SELECT u.partner_id, p.commission_rate_bps FROM identity_users u
         JOIN identity_partners p ON p.partner_id = u.partner_id WHERE u.user_id = ?`,
      )
    : undefined;
  const current = db
    .prepare<[number, string, number], { fee_total: bigint }>(
      "SELECT fee_total FROM merchant_commissions WHERE merchant_id = ? AND period = ? AND commission_rate_bps = ?",
    )
    .safeIntegers(true);
  const upsert = db.prepare(
    `INSERT INTO merchant_commissions (merchant_id, period, commission_rate_bps, fee_total, commission_total)
     VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (merchant_id, period, commission_rate_bps)
     DO UPDATE SET fee_total = excluded.fee_total, commission_total = excluded.commission_total`,
  );

  // A batch's fees are summed per row in memory and each row is written once at the end: a row
  // read and rewritten for every side of every trade was a tenth of an order's projection.
  interface Accrued {
    readonly merchantId: number;
    readonly period: string;
    readonly rateBps: number;
    fee: bigint;
  }
  const accrued = new Map<string, Accrued>();
  const merchants = new Map<number, { partner_id: number; commission_rate_bps: number } | undefined>();
  const accrue = (userId: number, fee: bigint, timeMs: number): void => {
    if (fee === 0n || merchantOf === undefined) return;
    if (!merchants.has(userId)) merchants.set(userId, merchantOf.get(userId));
    const merchant = merchants.get(userId);
    if (merchant === undefined) return;
    const period = periodOf(timeMs);
    const rateBps = merchant.commission_rate_bps;
    const key = `${merchant.partner_id}|${period}|${rateBps}`;
    const row = accrued.get(key);
    if (row === undefined) accrued.set(key, { merchantId: merchant.partner_id, period, rateBps, fee });
    else row.fee += fee;
  };
  const flush = (): void => {
    for (const { merchantId, period, rateBps, fee } of accrued.values()) {
      const feeTotal = (current.get(merchantId, period, rateBps)?.fee_total ?? 0n) + fee;
      // Exact in bigint: fee totals times a rate can pass 2^63 long before they pass a JS number's 2^53.
      const commissionTotal = (feeTotal * BigInt(rateBps)) / basisPointsPerUnit;
      upsert.run(merchantId, period, rateBps, feeTotal, commissionTotal);
    }
  };

  return (_db, entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]) => {
    try {
      forEachFee(entries, accrue);
      flush();
    } finally {
      // Rates are read afresh each batch, so a rate changed between batches applies from the next.
      accrued.clear();
      merchants.clear();
    }
  };
}

export function createSqliteMerchantCommissions(db: SqliteDatabase): MerchantCommissionReadModel {
  applyMigrations(db, "commissions", migrations);
  const rows = prepareSqlite(db, merchantCommissionStatements.ofMerchant, { safeIntegers: true });
  return {
    commission: async (merchantId, period) =>
      commissionOf(merchantId, period, rows.all<CommissionRow>({ merchantId, period })),
  };
}
