// Market applications of spec 001 (point 7): a creator proposes a market, the operator approves it
// into a real draft market or rejects it. This module holds the rules that need no I/O: the
// application's own checks (liquidity 4035, weights 4039, times), title normalization and the
// similarity rule (4041 exact, 4010 duplicate, 4013 similar), and the CreateMarket command an
// approval submits. docs/decisions.md ("Legacy interface (spec 001)": "Creators", "Applications", "Review") explains each.

import {
  applicationOptionsMax,
  applicationOptionTitleLengthMax,
  applicationTitleLengthMax,
} from "../contract/legacy/applications.js";
import { type CreateMarketCommand, createMarketCommand } from "../core/commands.js";
import { atomsToNumber, parseAtoms } from "../core/money.js";
import { ammLiquidityAtomsMin, weightsSumAtoms } from "../core/pools/models.js";
import {
  type ApplicationMarketType,
  type ApplicationModelType,
  type ApplicationOption,
  type ApplicationProblem,
  type ApplicationRecord,
  type ApplicationStatus,
  type ApplicationTerms,
  applicationMarketTypes,
  applicationModelTypes,
  type Checked,
  type ConflictCandidates,
  similarityCandidatesMax,
} from "../store/legacy-applications.js";
import { marketDetailsOf } from "../store/market-details.js";

export const applicationDescriptionLengthMax = 20_000;
export const applicationOptionsMin = 2;
// The records and the store port live with the store (src/store/legacy-applications.ts).
export {
  type ApplicationMarketType,
  type ApplicationModelType,
  type ApplicationOption,
  type ApplicationProblem,
  type ApplicationRecord,
  type ApplicationStatus,
  type ApplicationTerms,
  applicationMarketTypes,
  applicationModelTypes,
  applicationOptionsMax,
  applicationOptionTitleLengthMax,
  applicationTitleLengthMax,
  type Checked,
  type ConflictCandidates,
  similarityCandidatesMax,
};
/** Spec 001: liquidity on market creation is at least 100 (4035). */
export const applicationLiquidityAtomsMin = ammLiquidityAtomsMin;
/** Two titles whose word sets overlap at least this much (Jaccard) are "similar" (4013). */
export const similarTitleJaccardMin = 0.8;

/** The body as the route's schema lets it through (types checked, values not yet). */
export interface ApplicationInput {
  readonly title: string;
  readonly description?: string | undefined;
  readonly categoryId: number;
  readonly modelType?: string | undefined;
  readonly marketType?: string | undefined;
  readonly liquidity: number | string;
  readonly outcomeOptionsVoList: readonly { optionTitle: string; weight: number | string }[];
  readonly startTime: string;
  readonly endTime: string;
}

const parameter = (field: string, reason: string): Checked<never> => ({
  ok: false,
  problem: { kind: "parameter", field, reason },
});

function parseIsoMs(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(value))
    return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

function caseInsensitive<Value extends string>(allowed: readonly Value[], value: string): Value | undefined {
  return allowed.find((candidate) => candidate.toLowerCase() === value.trim().toLowerCase());
}

/** The checks of the application itself, in the order their codes are reported. */
export function checkApplication(input: ApplicationInput, nowMs: number): Checked<ApplicationTerms> {
  const title = input.title.trim();
  if (title === "" || title.length > applicationTitleLengthMax) {
    return parameter("title", `must be 1 to ${applicationTitleLengthMax} characters`);
  }
  const modelType = caseInsensitive(applicationModelTypes, input.modelType ?? "orderbook");
  if (modelType === undefined)
    return parameter("modelType", `must be one of ${applicationModelTypes.join(", ")}`);
  const marketType = caseInsensitive(applicationMarketTypes, input.marketType ?? "BINARY");
  if (marketType === undefined) {
    return parameter("marketType", `must be one of ${applicationMarketTypes.join(", ")}`);
  }
  const list = input.outcomeOptionsVoList;
  if (list.length < applicationOptionsMin || list.length > applicationOptionsMax) {
    return parameter(
      "outcomeOptionsVoList",
      `must have ${applicationOptionsMin} to ${applicationOptionsMax} options`,
    );
  }
  if (marketType === "BINARY" && list.length !== 2) {
    return parameter("outcomeOptionsVoList", "a BINARY market has exactly 2 options");
  }
  const options: ApplicationOption[] = [];
  for (const [index, item] of list.entries()) {
    const optionTitle = item.optionTitle.trim();
    if (optionTitle === "" || optionTitle.length > applicationOptionTitleLengthMax) {
      return parameter(
        `outcomeOptionsVoList[${index}].optionTitle`,
        `must be 1 to ${applicationOptionTitleLengthMax} characters`,
      );
    }
    const weight = parseAtoms(item.weight);
    if (!weight.ok || weight.atoms <= 0n || weight.atoms >= weightsSumAtoms) {
      return parameter(
        `outcomeOptionsVoList[${index}].weight`,
        "must be a number strictly between 0 and 1 with at most 8 decimals",
      );
    }
    options.push({ optionTitle, weight: weight.atoms });
  }
  if (new Set(options.map((option) => option.optionTitle.toLowerCase())).size !== options.length) {
    return parameter("outcomeOptionsVoList", "option titles must differ");
  }
  const liquidity = parseAtoms(input.liquidity);
  if (!liquidity.ok) return parameter("liquidity", "must be a number with at most 8 decimals");
  if (liquidity.atoms < applicationLiquidityAtomsMin)
    return { ok: false, problem: { kind: "liquidityTooLow" } };
  // Exact: every weight is parsed to atoms, so 0.1 + 0.2 + 0.7 is 1 here, as a partner means it.
  const weightSum = options.reduce((sum, option) => sum + option.weight, 0n);
  if (weightSum !== weightsSumAtoms) return { ok: false, problem: { kind: "weightsDoNotAddUp" } };
  const startTimeMs = parseIsoMs(input.startTime);
  if (startTimeMs === undefined) return parameter("startTime", "must be an ISO 8601 time");
  const endTimeMs = parseIsoMs(input.endTime);
  if (endTimeMs === undefined) return parameter("endTime", "must be an ISO 8601 time");
  if (endTimeMs <= startTimeMs) return parameter("endTime", "must be after startTime");
  if (endTimeMs <= nowMs) return parameter("endTime", "must be in the future");
  const description = (input.description ?? "").trim();
  if (description.length > applicationDescriptionLengthMax) {
    return parameter("description", `must be at most ${applicationDescriptionLengthMax} characters`);
  }
  return {
    ok: true,
    value: {
      title,
      description,
      categoryId: input.categoryId,
      modelType,
      marketType,
      liquidity: liquidity.atoms,
      options,
      startTimeMs,
      endTimeMs,
    },
  };
}

/** "Exact" title (4041): equal once trimmed, whitespace runs collapsed and case folded. */
export function exactTitleKey(title: string): string {
  return title.normalize("NFKC").trim().replace(/\s+/g, " ").toLowerCase();
}

/** The words of a title: letters and digits only, case folded. */
export function titleWords(title: string): ReadonlySet<string> {
  return new Set(
    title
      .normalize("NFKC")
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word !== ""),
  );
}

/** Jaccard similarity of the word sets: |A ∩ B| / |A ∪ B|, 1 for two titles with the same words. */
export function titleSimilarity(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const word of a) if (b.has(word)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/**
 * 4041 before 4010 before 4013: a market with the exact title; the same user's PENDING application
 * with the same words; any market or PENDING/APPROVED application whose words are similar.
 */
export function findTitleConflict(
  title: string,
  userId: number,
  candidates: ConflictCandidates,
): ApplicationProblem | undefined {
  const key = exactTitleKey(title);
  if (candidates.marketTitles.some((existing) => exactTitleKey(existing) === key))
    return { kind: "titleExists" };
  const words = titleWords(title);
  const sameWords = (other: string) => titleSimilarity(words, titleWords(other)) === 1;
  if (
    candidates.applications.some(
      (application) =>
        application.userId === userId && application.status === "PENDING" && sameWords(application.title),
    )
  ) {
    return { kind: "duplicate" };
  }
  const similar = (other: string) => titleSimilarity(words, titleWords(other)) >= similarTitleJaccardMin;
  if (
    candidates.marketTitles.some(similar) ||
    candidates.applications.some((application) => similar(application.title))
  ) {
    return { kind: "similar" };
  }
  return undefined;
}

/**
 * The draft market an approval creates, with the applicant as its creator. BINARY: one outcome
 * whose two options are the application's, first option first (it is "Yes", index 0). MULTIPLE:
 * one Yes/No outcome per option, named after it. AMM pools start at the weights (MULTIPLE: the
 * option's weight is its outcome's Yes price) and are funded with `liquidity`.
 */
export function approvalCommand(
  application: ApplicationRecord,
  creator: { userName: string; avatarUrl: string },
): CreateMarketCommand {
  const binary = application.marketType === "BINARY";
  const outcomes = binary
    ? [{ name: application.title, options: application.options.map((option) => option.optionTitle) }]
    : application.options.map((option) => ({ name: option.optionTitle, options: ["Yes", "No"] }));
  const weights = binary
    ? application.options.map((option) => option.weight)
    : [application.options[0]!.weight, weightsSumAtoms - application.options[0]!.weight];
  return createMarketCommand({
    title: application.title,
    modelType: application.modelType,
    outcomes,
    startTimeMs: application.startTimeMs,
    endTimeMs: application.endTimeMs,
    creatorId: application.userId,
    details: marketDetailsOf({
      categoryId: String(application.categoryId),
      description: application.description,
      creatorName: creator.userName,
      creatorImage: creator.avatarUrl,
      outcomes: outcomes.map(() => ({})),
    }),
    pool:
      application.modelType === "AMM"
        ? { liquidity: application.liquidity, weights }
        : application.modelType === "parimutuel"
          ? {}
          : null,
  });
}

/** The application as both the legacy apply answer and the operator's list show it. */
export function applicationView(application: ApplicationRecord) {
  return {
    applicationId: application.applicationId,
    userId: application.userId,
    title: application.title,
    description: application.description,
    categoryId: application.categoryId,
    modelType: application.modelType,
    marketType: application.marketType,
    liquidity: atomsToNumber(application.liquidity),
    outcomeOptionsVoList: application.options.map((option) => ({
      optionTitle: option.optionTitle,
      weight: atomsToNumber(option.weight),
    })),
    startTime: new Date(application.startTimeMs).toISOString(),
    endTime: new Date(application.endTimeMs).toISOString(),
    status: application.status,
    marketId: application.marketId,
    rejectReason: application.rejectReason,
    createTime: new Date(application.createTimeMs).toISOString(),
    updateTime: new Date(application.updateTimeMs).toISOString(),
  };
}
