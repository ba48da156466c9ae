// The catalogue metadata carried through the core as plain data (CreateMarket `details`): what
// POST /admin/markets writes and the detail reads. The core never looks inside; this module is the
// one place that knows its fields, and it reads defensively (old journals, missing fields).

import type { MarketDetails } from "../core/commands.js";

export interface CatalogOutcomeDetails {
  readonly title: string | undefined;
  readonly description: string | undefined;
  readonly outcomeLogo: string | undefined;
}

export interface CatalogDetails {
  readonly description: string;
  readonly rules: string;
  readonly categoryId: string | null;
  readonly tags: string;
  readonly topic: string;
  readonly dataResource: string;
  readonly marketLogo: string | undefined;
  readonly marketBanner: string | undefined;
  readonly buyFeeBps: number;
  readonly sellFeeBps: number;
  readonly creatorName: string | undefined;
  readonly creatorImage: string | undefined;
  /** In the market's outcome order. */
  readonly outcomes: readonly CatalogOutcomeDetails[];
}

/** What the admin route puts into `details`; every field optional except where noted. */
export interface CatalogDetailsInput {
  readonly description?: string;
  readonly rules?: string;
  readonly categoryId: string;
  readonly tags?: string;
  readonly topic?: string;
  readonly dataResource?: string;
  readonly marketLogo?: string;
  readonly marketBanner?: string;
  readonly buyFeeBps?: number;
  readonly sellFeeBps?: number;
  readonly creatorName?: string;
  readonly creatorImage?: string;
  readonly outcomes: readonly { title?: string; description?: string; outcomeLogo?: string }[];
}

/** The plain-data form journaled with the market. */
export function marketDetailsOf(input: CatalogDetailsInput): MarketDetails {
  // JSON.parse(JSON.stringify()) drops undefined fields, which the journal codec would refuse in arrays.
  return JSON.parse(JSON.stringify(input)) as MarketDetails;
}

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const integer = (value: unknown): number =>
  typeof value === "number" && Number.isInteger(value) ? value : 0;

export function catalogDetailsOf(details: MarketDetails | null): CatalogDetails {
  const source = details ?? {};
  const outcomes = Array.isArray(source.outcomes) ? (source.outcomes as unknown[]) : [];
  return {
    description: text(source.description) ?? "",
    rules: text(source.rules) ?? "",
    categoryId: text(source.categoryId) ?? null,
    tags: text(source.tags) ?? "",
    topic: text(source.topic) ?? "",
    dataResource: text(source.dataResource) ?? "",
    marketLogo: text(source.marketLogo),
    marketBanner: text(source.marketBanner),
    buyFeeBps: integer(source.buyFeeBps),
    sellFeeBps: integer(source.sellFeeBps),
    creatorName: text(source.creatorName),
    creatorImage: text(source.creatorImage),
    outcomes: outcomes.map((outcome) => {
      const fields = (typeof outcome === "object" && outcome !== null ? outcome : {}) as Record<
        string,
        unknown
      >;
      return {
        title: text(fields.title),
        description: text(fields.description),
        outcomeLogo: text(fields.outcomeLogo),
      };
    }),
  };
}

/** A market with no creatorId is the platform's own (DESIGN §5). */
export const platformCreator = { creatorId: "0", name: "predex" } as const;

/** The creator's name as the detail shows it and `searchBy=Creator` matches it. */
export function creatorNameOf(creatorId: number | null, details: CatalogDetails): string {
  if (creatorId === null) return platformCreator.name;
  return details.creatorName ?? `user${creatorId}`;
}
