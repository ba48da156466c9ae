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

/** How many users' partners the projector keeps between steps (a few MB at most). */
const keptPartnersLimit = 1_000_000;

/** The projector the exchange host runs in every commit, beside the exchange read models. */
export function createSqliteCommissionProjector(
  db: SqliteDatabase,
): SqliteProjector<ExchangeCommand, ExchangeEvent> {
  applyMigrations(db, "commissions", migrations);
  const partners = createPartnerRates(db);
  const accruals = createCommissionAccruals(db);
  const periodAt = createPeriodOf();
  const accrue = (userId: number, fee: bigint, timeMs: number): void => {
    if (fee === 0n) return;
    const partnerId = partners.partnerOf(userId);
    if (partnerId === undefined) return;
    const rateBps = partners.rateOf(partnerId);
    if (rateBps === undefined) return;
    accruals.add(partnerId, periodAt(timeMs), rateBps, fee);
  };
  return (_db, entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]) => {
    try {
      forEachFee(entries, accrue);
      accruals.flush();
    } finally {
      // Rates are read afresh each batch, so a rate changed between batches applies from the next.
      accruals.clear();
      partners.endStep();
    }
  };
}

/**
 * A user's partner and a partner's rate. A user's partner never changes (nothing updates
 * identity_users.partner_id), so a user's partner, once found, is kept across steps: the look-up
 * was most of this projector's statements. A user not found is not kept (the user may be registered
 * later, and accrue from then on); it is looked up again once a step. Rates can change: they are
 * read once a step (cleared by endStep), and a step sees one rate, as a rate change is caught up to
 * before it is written.
 */
function createPartnerRates(db: SqliteDatabase) {
  const identityExists =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'identity_users'").get() !==
    undefined;
  const partnerOfUser = identityExists
    ? db.prepare<[number], { partner_id: number }>("SELECT partner_id FROM identity_users WHERE user_id = ?")
    : undefined;
  const rateOfPartner = identityExists
    ? db.prepare<[number], { commission_rate_bps: number }>(
        "SELECT commission_rate_bps FROM identity_partners WHERE partner_id = ?",
      )
    : undefined;
  const partners = new Map<number, number>();
  const missingThisStep = new Set<number>();
  const rates = new Map<number, number | undefined>();
  return {
    partnerOf(userId: number): number | undefined {
      const kept = partners.get(userId);
      if (kept !== undefined || partnerOfUser === undefined || missingThisStep.has(userId)) return kept;
      const found = partnerOfUser.get(userId)?.partner_id;
      if (found === undefined) {
        missingThisStep.add(userId);
        return undefined;
      }
      // Bounded: past a million users the map starts over (each is read again once).
      if (partners.size >= keptPartnersLimit) partners.clear();
      partners.set(userId, found);
      return found;
    },
    rateOf(partnerId: number): number | undefined {
      if (!rates.has(partnerId)) rates.set(partnerId, rateOfPartner?.get(partnerId)?.commission_rate_bps);
      return rates.get(partnerId);
    },
    endStep(): void {
      rates.clear();
      missingThisStep.clear();
    },
  };
}

/**
 * A batch's fees summed per row in memory, each row written once at the end: a row read and
 * rewritten for every side of every trade was a tenth of an order's projection.
 */
function createCommissionAccruals(db: SqliteDatabase) {
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
  const accrued = new Map<string, { merchantId: number; period: string; rateBps: number; fee: bigint }>();
  return {
    add(merchantId: number, period: string, rateBps: number, fee: bigint): void {
      const key = `${merchantId}|${period}|${rateBps}`;
      const row = accrued.get(key);
      if (row === undefined) accrued.set(key, { merchantId, period, rateBps, fee });
      else row.fee += fee;
    },
    flush(): void {
      for (const { merchantId, period, rateBps, fee } of accrued.values()) {
        const feeTotal = (current.get(merchantId, period, rateBps)?.fee_total ?? 0n) + fee;
        // Exact in bigint: fee totals times a rate can pass 2^63 long before they pass a JS number's 2^53.
        const commissionTotal = (feeTotal * BigInt(rateBps)) / basisPointsPerUnit;
        upsert.run(merchantId, period, rateBps, feeTotal, commissionTotal);
      }
    },
    clear: () => accrued.clear(),
  };
}

/**
 * periodOf, remembering the last month's bounds: a step's fees are nearly all in one month, and a
 * Date and a string for each fee were half of this projector's JavaScript.
 */
export function createPeriodOf(): (timeMs: number) => string {
  let fromMs = 0;
  let toMs = -1;
  let period = "";
  return (timeMs) => {
    if (timeMs < fromMs || timeMs >= toMs) {
      const date = new Date(timeMs);
      fromMs = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
      toMs = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
      period = periodOf(timeMs);
    }
    return period;
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
