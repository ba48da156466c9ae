// The port of the creators and their market applications (spec 001 point 7): the records as they
// are stored and the store the legacy services use; src/store/sqlite/legacy-applications.ts is its
// SQLite adapter. The rules (checks, title similarity, approval) are src/legacy/market-applications.ts.

import type { Page, PageRequest } from "./exchange-read-models.js";

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
