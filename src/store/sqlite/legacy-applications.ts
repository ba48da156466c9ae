// SQLite adapter of the creators and their market applications (port: src/store/legacy-applications.ts):
// who may apply (a flag the operator sets), and the applications with their review. A submission's
// conflict checks (4041, 4010, 4013) and its insert run in one transaction, so two concurrent
// submissions of one title cannot both pass. Titles are compared with the exchange read models'
// `markets`, whose migrations this factory applies too (as the catalogue's does), so the comparison
// never silently finds nothing because this store was opened before the exchange.

import {
  type ApplicationFilter,
  type ApplicationMarketType,
  type ApplicationModelType,
  type ApplicationProblem,
  type ApplicationRecord,
  type ApplicationStatus,
  type ApplicationTerms,
  type Checked,
  type ConflictCandidates,
  type LegacyApplicationStore,
  similarityCandidatesMax,
} from "../legacy-applications.js";
import { pageWindow } from "../page-window.js";
import { applyMigrations, type SqliteDatabase } from "./database.js";
import { exchangeReadModelMigrations } from "./exchange-schema.js";

export type { ApplicationFilter, LegacyApplicationStore } from "../legacy-applications.js";

const applicationMigrations = [
  `CREATE TABLE legacy_creators (
     user_id INTEGER PRIMARY KEY,
     granted_at_ms INTEGER NOT NULL
   ) STRICT;
   CREATE TABLE legacy_market_applications (
     application_id INTEGER PRIMARY KEY AUTOINCREMENT,
     user_id INTEGER NOT NULL,
     title TEXT NOT NULL,
     description TEXT NOT NULL,
     category_id INTEGER NOT NULL,
     model_type TEXT NOT NULL,
     market_type TEXT NOT NULL,
     liquidity INTEGER NOT NULL,
     options TEXT NOT NULL,
     start_time_ms INTEGER NOT NULL,
     end_time_ms INTEGER NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('PENDING', 'APPROVED', 'REJECTED')),
     market_id INTEGER,
     reject_reason TEXT,
     create_time_ms INTEGER NOT NULL,
     update_time_ms INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX legacy_market_applications_by_status ON legacy_market_applications (status, application_id);
   CREATE INDEX legacy_market_applications_by_user ON legacy_market_applications (user_id, application_id);`,
];

interface ApplicationRow {
  application_id: number;
  user_id: number;
  title: string;
  description: string;
  category_id: number;
  model_type: string;
  market_type: string;
  liquidity: bigint;
  options: string;
  start_time_ms: number;
  end_time_ms: number;
  status: ApplicationStatus;
  market_id: number | null;
  reject_reason: string | null;
  create_time_ms: number;
  update_time_ms: number;
}

function recordOf(row: ApplicationRow): ApplicationRecord {
  const options = JSON.parse(row.options) as { optionTitle: string; weight: string }[];
  return {
    applicationId: Number(row.application_id),
    userId: Number(row.user_id),
    title: row.title,
    description: row.description,
    categoryId: Number(row.category_id),
    modelType: row.model_type as ApplicationModelType,
    marketType: row.market_type as ApplicationMarketType,
    liquidity: BigInt(row.liquidity),
    options: options.map((option) => ({ optionTitle: option.optionTitle, weight: BigInt(option.weight) })),
    startTimeMs: Number(row.start_time_ms),
    endTimeMs: Number(row.end_time_ms),
    status: row.status,
    marketId: row.market_id === null ? null : Number(row.market_id),
    rejectReason: row.reject_reason,
    createTimeMs: Number(row.create_time_ms),
    updateTimeMs: Number(row.update_time_ms),
  };
}

export function createSqliteLegacyApplicationStore(db: SqliteDatabase): LegacyApplicationStore {
  applyMigrations(db, "exchange", exchangeReadModelMigrations);
  applyMigrations(db, "legacy_applications", applicationMigrations);
  const creator = db.prepare<[number], { user_id: number }>(
    "SELECT user_id FROM legacy_creators WHERE user_id = ?",
  );
  const grant = db.prepare("INSERT OR IGNORE INTO legacy_creators (user_id, granted_at_ms) VALUES (?, ?)");
  const withdraw = db.prepare("DELETE FROM legacy_creators WHERE user_id = ?");
  const marketTitles = db.prepare<[number], { title: string }>(
    "SELECT title FROM markets ORDER BY market_id DESC LIMIT ?",
  );
  const openApplications = db.prepare<
    [number],
    { user_id: number; status: ApplicationStatus; title: string }
  >(
    `SELECT user_id, status, title FROM legacy_market_applications WHERE status IN ('PENDING', 'APPROVED')
     ORDER BY application_id DESC LIMIT ?`,
  );
  const insert = db.prepare(
    `INSERT INTO legacy_market_applications (user_id, title, description, category_id, model_type, market_type,
       liquidity, options, start_time_ms, end_time_ms, status, create_time_ms, update_time_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', ?, ?)`,
  );
  const byId = db
    .prepare<[number], ApplicationRow>("SELECT * FROM legacy_market_applications WHERE application_id = ?")
    .safeIntegers(true);
  const approve = db.prepare(
    `UPDATE legacy_market_applications SET status = 'APPROVED', market_id = ?, update_time_ms = ?
     WHERE application_id = ? AND status = 'PENDING'`,
  );
  const rejectStatement = db.prepare(
    `UPDATE legacy_market_applications SET status = 'REJECTED', reject_reason = ?, update_time_ms = ?
     WHERE application_id = ? AND status = 'PENDING'`,
  );
  const submit = db.transaction(
    (
      userId: number,
      terms: ApplicationTerms,
      nowMs: number,
      conflictOf: (candidates: ConflictCandidates) => ApplicationProblem | undefined,
    ): Checked<ApplicationRecord> => {
      const problem = conflictOf({
        marketTitles: marketTitles.all(similarityCandidatesMax).map((row) => row.title),
        applications: openApplications.all(similarityCandidatesMax).map((row) => ({
          userId: Number(row.user_id),
          status: row.status,
          title: row.title,
        })),
      });
      if (problem !== undefined) return { ok: false, problem };
      const options = JSON.stringify(
        terms.options.map((option) => ({
          optionTitle: option.optionTitle,
          weight: option.weight.toString(),
        })),
      );
      const { lastInsertRowid } = insert.run(
        userId,
        terms.title,
        terms.description,
        terms.categoryId,
        terms.modelType,
        terms.marketType,
        terms.liquidity,
        options,
        terms.startTimeMs,
        terms.endTimeMs,
        nowMs,
        nowMs,
      );
      return { ok: true, value: recordOf(byId.get(Number(lastInsertRowid))!) };
    },
  );
  const where = (filter: ApplicationFilter): { sql: string; values: (string | number)[] } => {
    const clauses: string[] = [];
    const values: (string | number)[] = [];
    if (filter.status !== undefined) {
      clauses.push("status = ?");
      values.push(filter.status);
    }
    if (filter.userId !== undefined) {
      clauses.push("user_id = ?");
      values.push(filter.userId);
    }
    return { sql: clauses.length === 0 ? "" : `WHERE ${clauses.join(" AND ")}`, values };
  };
  return {
    async isCreator(userId) {
      return creator.get(userId) !== undefined;
    },
    async setCreator(userId, isCreator, nowMs) {
      if (isCreator) grant.run(userId, nowMs);
      else withdraw.run(userId);
    },
    async submit(userId, terms, nowMs, conflictOf) {
      return submit.immediate(userId, terms, nowMs, conflictOf);
    },
    async find(applicationId) {
      const row = byId.get(applicationId);
      return row === undefined ? undefined : recordOf(row);
    },
    async list(filter, page) {
      const { sql, values } = where(filter);
      const total = (
        db.prepare(`SELECT count(*) AS total FROM legacy_market_applications ${sql}`).get(...values) as {
          total: number;
        }
      ).total;
      const { limit, offset } = pageWindow(page);
      const rows =
        total <= offset
          ? []
          : (db
              .prepare(
                `SELECT * FROM legacy_market_applications ${sql} ORDER BY application_id DESC LIMIT ? OFFSET ?`,
              )
              .safeIntegers(true)
              .all(...values, limit, offset) as ApplicationRow[]);
      return { total, records: rows.map(recordOf) };
    },
    async review(applicationId, decision, nowMs) {
      const changed =
        decision.status === "APPROVED"
          ? approve.run(decision.marketId, nowMs, applicationId)
          : rejectStatement.run(decision.reason, nowMs, applicationId);
      if (changed.changes === 0) return undefined;
      return recordOf(byId.get(applicationId)!);
    },
  };
}
