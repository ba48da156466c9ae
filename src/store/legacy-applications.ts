// The port of the creators and their market applications (spec 001 point 7): the records as they
// are stored and the store the legacy services use, written once for both adapters
// (src/store/sqlite/legacy-applications.ts, src/store/postgres/legacy-applications.ts). The rules (checks, title similarity, approval) are src/legacy/market-applications.ts.

import type { Page, PageRequest } from "./exchange-read-models.js";
import { pagedListOn, pagedListStatements } from "./paged-list.js";
import {
  type BoundStatements,
  ddl,
  type IntegerColumn,
  mapped,
  type Sql,
  sql,
  toBigint,
  toNumber,
  toNumberOrNull,
} from "./sql.js";

/** Titles compared for similarity at most, the newest of markets and of applications each. */
export const similarityCandidatesMax = 10_000;

export const applicationModelTypes = ["orderbook", "AMM", "parimutuel"] as const;
export type ApplicationModelType = (typeof applicationModelTypes)[number];
/** BINARY: two options, one outcome. MULTIPLE: one Yes/No outcome per option. */
export const applicationMarketTypes = ["BINARY", "MULTIPLE"] as const;
export type ApplicationMarketType = (typeof applicationMarketTypes)[number];
export type ApplicationStatus = "PENDING" | "APPROVED" | "REJECTED";

export interface ApplicationOption {
  readonly optionTitle: string;
  /** Atoms of 1 (8 decimals). */
  readonly weight: bigint;
}

/** A checked application, as stored. */
export interface ApplicationTerms {
  readonly title: string;
  readonly description: string;
  readonly categoryId: number;
  readonly modelType: ApplicationModelType;
  readonly marketType: ApplicationMarketType;
  /** Atoms. */
  readonly liquidity: bigint;
  readonly options: readonly ApplicationOption[];
  readonly startTimeMs: number;
  readonly endTimeMs: number;
}

export interface ApplicationRecord extends ApplicationTerms {
  readonly applicationId: number;
  readonly userId: number;
  readonly status: ApplicationStatus;
  /** The draft market an approval created; null before. */
  readonly marketId: number | null;
  readonly rejectReason: string | null;
  readonly createTimeMs: number;
  readonly updateTimeMs: number;
}

export type ApplicationProblem =
  | { readonly kind: "parameter"; readonly field: string; readonly reason: string }
  | { readonly kind: "liquidityTooLow" }
  | { readonly kind: "weightsDoNotAddUp" }
  | { readonly kind: "categoryNotFound" }
  | { readonly kind: "titleExists" }
  | { readonly kind: "duplicate" }
  | { readonly kind: "similar" };

export type Checked<Value> = { ok: true; value: Value } | { ok: false; problem: ApplicationProblem };

export interface ConflictCandidates {
  /** Titles of existing markets (every status). */
  readonly marketTitles: readonly string[];
  /** PENDING and APPROVED applications. */
  readonly applications: readonly { userId: number; status: ApplicationStatus; title: string }[];
}

export interface ApplicationFilter {
  readonly status?: ApplicationStatus | undefined;
  readonly userId?: number | undefined;
}

export interface LegacyApplicationStore {
  isCreator(userId: number): Promise<boolean>;
  /** Grants (true) or withdraws (false) the creator flag; idempotent. */
  setCreator(userId: number, creator: boolean, nowMs: number): Promise<void>;
  /** Checks the title against markets and applications, then stores a PENDING application. */
  submit(
    userId: number,
    terms: ApplicationTerms,
    nowMs: number,
    conflictOf: (candidates: ConflictCandidates) => ApplicationProblem | undefined,
  ): Promise<Checked<ApplicationRecord>>;
  find(applicationId: number): Promise<ApplicationRecord | undefined>;
  /** Newest first. */
  list(filter: ApplicationFilter, page: PageRequest): Promise<Page<ApplicationRecord>>;
  /** PENDING → APPROVED with its market, or PENDING → REJECTED; undefined when it was not PENDING. */
  review(
    applicationId: number,
    decision: { status: "APPROVED"; marketId: number } | { status: "REJECTED"; reason: string | null },
    nowMs: number,
  ): Promise<ApplicationRecord | undefined>;
}

// ---- Written once for both adapters: the tables (their few dialect words switched), the row and
// its mapping, and the statements. Each adapter keeps its own submission transaction: SQLite's is
// synchronous (BEGIN IMMEDIATE), PostgreSQL's takes an advisory lock so that nodes take turns.

export const applicationMigrations: readonly Sql[] = [
  sql`CREATE TABLE legacy_creators (
     user_id ${ddl.int64} PRIMARY KEY,
     granted_at_ms ${ddl.int64} NOT NULL
   )${ddl.strict};
   CREATE TABLE legacy_market_applications (
     application_id ${ddl.autoId},
     user_id ${ddl.int64} NOT NULL,
     title text NOT NULL,
     description text NOT NULL,
     category_id ${ddl.int64} NOT NULL,
     model_type text NOT NULL,
     market_type text NOT NULL,
     liquidity ${ddl.int64} NOT NULL,
     options text NOT NULL,
     start_time_ms ${ddl.int64} NOT NULL,
     end_time_ms ${ddl.int64} NOT NULL,
     status text NOT NULL CHECK (status IN ('PENDING', 'APPROVED', 'REJECTED')),
     market_id ${ddl.int64},
     reject_reason text,
     create_time_ms ${ddl.int64} NOT NULL,
     update_time_ms ${ddl.int64} NOT NULL
   )${ddl.strict};
   CREATE INDEX legacy_market_applications_by_status ON legacy_market_applications (status, application_id);
   CREATE INDEX legacy_market_applications_by_user ON legacy_market_applications (user_id, application_id);`,
];

export interface ApplicationRow {
  application_id: IntegerColumn;
  user_id: IntegerColumn;
  title: string;
  description: string;
  category_id: IntegerColumn;
  model_type: string;
  market_type: string;
  liquidity: IntegerColumn;
  options: string;
  start_time_ms: IntegerColumn;
  end_time_ms: IntegerColumn;
  status: ApplicationStatus;
  market_id: IntegerColumn | null;
  reject_reason: string | null;
  create_time_ms: IntegerColumn;
  update_time_ms: IntegerColumn;
}

export function applicationOf(row: ApplicationRow): ApplicationRecord {
  const options = JSON.parse(row.options) as { optionTitle: string; weight: string }[];
  return {
    applicationId: toNumber(row.application_id),
    userId: toNumber(row.user_id),
    title: row.title,
    description: row.description,
    categoryId: toNumber(row.category_id),
    modelType: row.model_type as ApplicationModelType,
    marketType: row.market_type as ApplicationMarketType,
    liquidity: toBigint(row.liquidity),
    options: options.map((option) => ({ optionTitle: option.optionTitle, weight: BigInt(option.weight) })),
    startTimeMs: toNumber(row.start_time_ms),
    endTimeMs: toNumber(row.end_time_ms),
    status: row.status,
    marketId: toNumberOrNull(row.market_id),
    rejectReason: row.reject_reason,
    createTimeMs: toNumber(row.create_time_ms),
    updateTimeMs: toNumber(row.update_time_ms),
  };
}

type ApplicationInsert = {
  userId: number;
  title: string;
  description: string;
  categoryId: number;
  modelType: string;
  marketType: string;
  liquidity: bigint;
  options: string;
  startTimeMs: number;
  endTimeMs: number;
  nowMs: number;
};

/** What a submission inserts: the terms with the options as JSON text (weights as decimal strings). */
export function applicationInsert(userId: number, terms: ApplicationTerms, nowMs: number): ApplicationInsert {
  const options = terms.options.map((option) => ({
    optionTitle: option.optionTitle,
    weight: option.weight.toString(),
  }));
  return { ...terms, userId, options: JSON.stringify(options), nowMs };
}

export interface OpenApplicationRow {
  user_id: IntegerColumn;
  status: ApplicationStatus;
  title: string;
}

/** What a submission's title is compared with, from the two candidate reads. */
export function conflictCandidates(
  markets: readonly { title: string }[],
  open: readonly OpenApplicationRow[],
): ConflictCandidates {
  return {
    marketTitles: markets.map((row) => row.title),
    applications: open.map((row) => ({
      userId: toNumber(row.user_id),
      status: row.status,
      title: row.title,
    })),
  };
}

export const applicationStatements = {
  creator: sql<{ userId: number }>`SELECT 1 AS creator FROM legacy_creators WHERE user_id = ${"userId"}`,
  grant: sql<{ userId: number; nowMs: number }>`INSERT INTO legacy_creators (user_id, granted_at_ms)
    VALUES (${"userId"}, ${"nowMs"}) ON CONFLICT DO NOTHING`,
  withdraw: sql<{ userId: number }>`DELETE FROM legacy_creators WHERE user_id = ${"userId"}`,
  // The newest markets first (drafts included: a title being set up is taken too).
  marketTitles: sql<{ limit: number }>`SELECT title FROM markets ORDER BY market_id DESC LIMIT ${"limit"}`,
  openApplications: sql<{ limit: number }>`SELECT user_id, status, title FROM legacy_market_applications
    WHERE status IN ('PENDING', 'APPROVED') ORDER BY application_id DESC LIMIT ${"limit"}`,
  insert: sql<ApplicationInsert>`INSERT INTO legacy_market_applications (user_id, title, description,
      category_id, model_type, market_type, liquidity, options, start_time_ms, end_time_ms, status,
      create_time_ms, update_time_ms)
    VALUES (${"userId"}, ${"title"}, ${"description"}, ${"categoryId"}, ${"modelType"}, ${"marketType"},
      ${"liquidity"}, ${"options"}, ${"startTimeMs"}, ${"endTimeMs"}, 'PENDING', ${"nowMs"}, ${"nowMs"})
    RETURNING *`,
  byId: sql<{
    applicationId: number;
  }>`SELECT * FROM legacy_market_applications WHERE application_id = ${"applicationId"}`,
  approve: sql<{ applicationId: number; marketId: number; nowMs: number }>`UPDATE legacy_market_applications
    SET status = 'APPROVED', market_id = ${"marketId"}, update_time_ms = ${"nowMs"}
    WHERE application_id = ${"applicationId"} AND status = 'PENDING' RETURNING *`,
  reject: sql<{
    applicationId: number;
    reason: string | null;
    nowMs: number;
  }>`UPDATE legacy_market_applications
    SET status = 'REJECTED', reject_reason = ${"reason"}, update_time_ms = ${"nowMs"}
    WHERE application_id = ${"applicationId"} AND status = 'PENDING' RETURNING *`,
};

type ApplicationListParams = { status?: string | undefined; userId?: number | undefined };

export const applicationListStatements = pagedListStatements<ApplicationListParams>({
  applications: {
    select: sql`*`,
    from: sql`legacy_market_applications`,
    orderBy: sql`application_id DESC`,
    filters: {
      status: sql<ApplicationListParams>`status = ${"status"}`,
      user: sql<ApplicationListParams>`user_id = ${"userId"}`,
    },
  },
});

/** The store on bound statements; `submit` is the adapter's (its transaction). */
export function applicationStoreOn(
  statements: BoundStatements<typeof applicationStatements>,
  listStatements: BoundStatements<typeof applicationListStatements>,
  submit: LegacyApplicationStore["submit"],
): LegacyApplicationStore {
  const paged = pagedListOn(listStatements);
  return {
    isCreator: async (userId) => (await statements.creator.row({ userId })) !== undefined,
    async setCreator(userId, creator, nowMs) {
      if (creator) await statements.grant.run({ userId, nowMs });
      else await statements.withdraw.run({ userId });
    },
    submit,
    find: async (applicationId) =>
      mapped(await statements.byId.row<ApplicationRow>({ applicationId }), applicationOf),
    list: (filter, page) =>
      paged(
        "applications",
        [
          ...(filter.status === undefined ? [] : ["status"]),
          ...(filter.userId === undefined ? [] : ["user"]),
        ],
        filter,
        page,
        applicationOf,
      ),
    async review(applicationId, decision, nowMs) {
      const row =
        decision.status === "APPROVED"
          ? await statements.approve.row<ApplicationRow>({
              applicationId,
              marketId: decision.marketId,
              nowMs,
            })
          : await statements.reject.row<ApplicationRow>({ applicationId, reason: decision.reason, nowMs });
      return mapped(row, applicationOf);
    },
  };
}
