// Merchant commission on PostgreSQL (the SQLite twin and the rules: src/store/sqlite/merchant-commissions.ts):
// each merchant earns its `commissionRate` of the fees its users pay, per UTC month and per rate in
// force, rounded down once over the month's total. Projected in the trade's own commit.
//
// Per batch the fees are summed per (user, month) in memory and written with ONE statement that
// finds each user's merchant and current rate in the identity tables (identity_users.partner_id,
// identity_partners.commission_rate_bps: the PostgreSQL identity store keeps SQLite's table and
// column names) and adds them to the month's row; the commission is recomputed from the new total in
// numeric, so a fee total times a rate never overflows 64 bits. No read round trip; in the engine the
// statement is a part of the exchange projector's flush (createCommissionAccrual), not one of its own.

import type { ExchangeCommand } from "../../core/commands.js";
import type { ExchangeEvent } from "../../core/events.js";
import type { JournalEntry } from "../../engine/store.js";
import {
  type CommissionRow,
  commissionOf,
  forEachFee,
  type MerchantCommissionReadModel,
  merchantCommissionMigrations,
  merchantCommissionStatements,
  periodOf,
} from "../merchant-commissions.js";
import type { PostgresClient, PostgresPool } from "./database.js";
import type { PostgresProjector } from "./engine-store.js";
import { applyPostgresMigrations } from "./migrations.js";
import { postgresText, preparePostgres } from "./statements.js";

export const postgresMerchantCommissionMigrations: readonly string[] =
  merchantCommissionMigrations.map(postgresText);

export async function applyPostgresMerchantCommissionMigrations(pool: PostgresPool): Promise<void> {
  await applyPostgresMigrations(pool, "commissions", postgresMerchantCommissionMigrations);
}

/**
 * The accrual as SQL whose three arrays (user ids, periods, fees) are $1–$3: a statement of its own,
 * or a data-modifying `WITH` part of the exchange's flush (joinParts renumbers its parameters; one
 * round trip fewer per batch, src/store/postgres/exchange-projector.ts).
 */
export const commissionAccrualSql = `INSERT INTO merchant_commissions AS m (merchant_id, period, commission_rate_bps, fee_total, commission_total)
         SELECT u.partner_id, a.period, p.commission_rate_bps, sum(a.fee)::bigint,
                div(sum(a.fee) * p.commission_rate_bps, 10000)::bigint
         FROM unnest($1::bigint[], $2::text[], $3::bigint[]) AS a(user_id, period, fee)
         JOIN identity_users u ON u.user_id = a.user_id
         JOIN identity_partners p ON p.partner_id = u.partner_id
         GROUP BY u.partner_id, a.period, p.commission_rate_bps
         ON CONFLICT (merchant_id, period, commission_rate_bps) DO UPDATE
           SET fee_total = m.fee_total + excluded.fee_total,
               commission_total = div((m.fee_total + excluded.fee_total)::numeric * excluded.commission_rate_bps, 10000)::bigint`;

const accrueStatement = { name: "predex-commissions-accrue", text: commissionAccrualSql };

const identityExistsStatement = {
  name: "predex-commissions-identity-exists",
  text: "SELECT to_regclass('identity_users') IS NOT NULL AND to_regclass('identity_partners') IS NOT NULL AS present",
};

/** How long a projector without identity tables waits before it looks for them again. */
const identityRecheckMs = 10_000;

/** A batch's fees summed per (user, month): the accrual's three arrays, in order. */
export type CommissionFees = readonly [userIds: number[], periods: string[], fees: bigint[]];

export interface CommissionAccrual {
  /** The fees these entries accrue, or undefined when nothing does (no fee, or no identity tables). */
  feesOf(
    client: PostgresClient | PostgresPool,
    entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[],
  ): Promise<CommissionFees | undefined>;
}

/**
 * The fees to accrue per batch. Without identity tables (an engine on a database no API node has
 * migrated yet, or tests of the exchange alone) nothing accrues, as on SQLite; it looks again at
 * most every 10 s, so an engine started before its API nodes starts accruing once they exist.
 */
export function createCommissionAccrual(): CommissionAccrual {
  let identityPresent = false;
  let checkedAtMs = Number.NEGATIVE_INFINITY;
  const identityTablesExist = async (client: PostgresClient | PostgresPool): Promise<boolean> => {
    if (identityPresent) return true;
    const now = Date.now();
    if (now - checkedAtMs < identityRecheckMs) return false;
    checkedAtMs = now;
    identityPresent = (await client.query<{ present: boolean }>(identityExistsStatement)).rows[0]!.present;
    return identityPresent;
  };

  return {
    async feesOf(client, entries) {
      // Summed per (user, month) here; the statement groups users by merchant and rate.
      const fees = new Map<string, { userId: number; period: string; fee: bigint }>();
      const accrue = (userId: number, fee: bigint, timeMs: number): void => {
        if (fee === 0n) return;
        const period = periodOf(timeMs);
        const key = `${userId}|${period}`;
        const row = fees.get(key);
        if (row === undefined) fees.set(key, { userId, period, fee });
        else row.fee += fee;
      };
      forEachFee(entries, accrue);
      if (fees.size === 0 || !(await identityTablesExist(client))) return undefined;
      const rows = [...fees.values()];
      return [rows.map((row) => row.userId), rows.map((row) => row.period), rows.map((row) => row.fee)];
    },
  };
}

/** The commission projector on its own: one statement per batch that has fees. */
export function createPostgresCommissionProjector(): PostgresProjector<ExchangeCommand, ExchangeEvent> {
  const accrual = createCommissionAccrual();
  return async (client, entries) => {
    const fees = await accrual.feesOf(client, entries);
    if (fees !== undefined) await client.query({ ...accrueStatement, values: [...fees] });
  };
}

const ofMerchant = preparePostgres("predex-commissions-of-merchant", merchantCommissionStatements.ofMerchant);

export async function openPostgresMerchantCommissions(
  pool: PostgresPool,
): Promise<MerchantCommissionReadModel> {
  await applyPostgresMerchantCommissionMigrations(pool);
  return {
    commission: async (merchantId, period) =>
      commissionOf(
        merchantId,
        period,
        (await ofMerchant.query<CommissionRow>(pool, { merchantId, period })).rows,
      ),
  };
}
