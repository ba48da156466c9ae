// Schemas of the catalogue operations of spec 000: the market list record, category node, holders
// and live volume, each with exactly the spec's fields and JSON types (the response schemas also
// keep anything else from leaking), and the queries of list, category tree and search.

import { type Static, type TSchema, Type } from "typebox";
import { ErrorEnvelope } from "./envelope.js";
import { PageFields, PageFieldsSchema } from "./pagination.js";

/** Depth of the tree: the category node has level1Id and level2Id, so a node sits at most on level 3. */
export const categoryLevelsMax = 3;

const Url = Type.String({ description: "URL" });
const Time = Type.String({ description: "ISO 8601 UTC" });
const NullableTime = Type.Union([Time, Type.Null()], { description: "ISO 8601 UTC when set" });

export const ListOption = Type.Object({
  optionId: Type.String(),
  title: Type.String(),
  price: Type.String({ description: "Midpoint, else last trade, else 0.5 (decimal string)" }),
  chance: Type.Number({ description: "The price as a probability, 0 to 1" }),
  optionIndex: Type.Integer({ description: "0 = Yes, 1 = No" }),
});

export const ListOutcome = Type.Object({
  outcomeId: Type.String(),
  name: Type.String(),
  options: Type.Array(ListOption),
});

export const MarketListRecord = Type.Object({
  marketId: Type.String(),
  title: Type.String(),
  category: Type.String({ description: "The category's en-US display name; empty when it has none" }),
  status: Type.String({ description: "open, closed, resolving, settled, void (drafts are not listed)" }),
  coinId: Type.String({ description: 'Always "2" (USDT)' }),
  marketType: Type.Union([Type.String(), Type.Null()]),
  volume: Type.String({ description: "USDT traded (decimal string)" }),
  hotScore: Type.Number({ description: "Decayed recent volume and views (half-life 24 h)" }),
  isOnline: Type.Boolean(),
  marketLogo: Url,
  startTime: Time,
  endTime: Time,
  matchDate: NullableTime,
  matchStartTime: NullableTime,
  modelType: Type.String(),
  outcomes: Type.Array(ListOutcome),
});
export type MarketListRecord = Static<typeof MarketListRecord>;

export const MarketListQuery = Type.Object({
  ...PageFields,
  categoryId: Type.Optional(Type.String({ maxLength: 32, description: "Only markets of this category" })),
  status: Type.Optional(Type.String({ maxLength: 16, description: "Only markets in this status" })),
});
export type MarketListQuery = Static<typeof MarketListQuery>;

export const MarketListPage = Type.Object({
  ...PageFieldsSchema,
  records: Type.Array(MarketListRecord),
  totalRow: Type.Null(),
  empty: Type.Boolean({ description: "True when records is empty" }),
});
export type MarketListPage = Static<typeof MarketListPage>;

export const CategoryTreeQuery = Type.Object({
  // Strings here, checked by the handler: the spec answers a bad value with 400/1001 in the
  // envelope, not with the plain-text query-deserialization error a schema failure gives.
  category1Id: Type.Optional(Type.String({ maxLength: 32, description: "A level-1 category id (integer)" })),
  language: Type.Optional(
    Type.String({ maxLength: 32, description: "en-US, zh-CN, vi-VN, tr-TR, es-ES, pt-BR or ko-KR" }),
  ),
});
export type CategoryTreeQuery = Static<typeof CategoryTreeQuery>;

/** The node at `level` and below; the deepest level's children are always empty. */
function categoryNodeAt(level: number): TSchema {
  return Type.Object({
    id: Type.String(),
    level: Type.Integer({ minimum: 1, maximum: categoryLevelsMax }),
    level1Id: Type.Union([Type.String(), Type.Null()], { description: "Level-1 ancestor" }),
    level2Id: Type.Union([Type.String(), Type.Null()], { description: "Level-2 ancestor" }),
    name: Type.String(),
    nameDisplay: Type.String({ description: "In the chosen language, else en-US, else name" }),
    logoUrl: Type.String({ description: "URL, or empty" }),
    children:
      level >= categoryLevelsMax
        ? Type.Array(Type.Unknown(), { maxItems: 0 })
        : Type.Array(categoryNodeAt(level + 1)),
  });
}
/** A node of the category tree, as the schema below describes it (its recursion is typed here). */
export interface CategoryNode {
  readonly id: string;
  readonly level: number;
  /** The node's level-1 ancestor; null on level 1 itself. */
  readonly level1Id: string | null;
  /** The node's level-2 ancestor; null on levels 1 and 2. */
  readonly level2Id: string | null;
  readonly name: string;
  readonly nameDisplay: string;
  readonly logoUrl: string;
  readonly children: CategoryNode[];
}
export const CategoryNode = categoryNodeAt(1);
export const CategoryTree = Type.Array(CategoryNode);

export const Holder = Type.Object({
  userId: Type.String(),
  userName: Type.String(),
  avatarUrl: Url,
  userAvatarFrameUrl: Type.Union([Type.String(), Type.Null()]),
  share: Type.Number({ description: "Shares held, free and in resting SELL orders" }),
});

export const OptionHolders = Type.Object({
  outcomeId: Type.String(),
  optionId: Type.String(),
  optionTitle: Type.String(),
  assetId: Type.String(),
  yes: Type.Boolean(),
  optionIndex: Type.Integer(),
  price: Type.Number(),
  priceBuy: Type.Number(),
  priceSell: Type.Number(),
  holderVoList: Type.Array(Holder, { description: "Largest first, at most 10" }),
});

export const OutcomeHolders = Type.Object({
  outcomeId: Type.String(),
  outcomeName: Type.String(),
  outcomeTitle: Type.String(),
  outcomeLogo: Url,
  outcomeOptionHolderVoList: Type.Array(OptionHolders),
});
export const MarketHolders = Type.Array(OutcomeHolders);
export type MarketHolders = Static<typeof MarketHolders>;

export const LiveVolume = Type.Object({
  marketId: Type.String(),
  volume: Type.String({ description: "USDT traded (decimal string), as in the market record" }),
});
export type LiveVolume = Static<typeof LiveVolume>;

/** Characters of a search keyword read at most. */
export const searchKeywordLengthMax = 200;

export const SearchQuery = Type.Object({
  keyword: Type.String({
    minLength: 1,
    maxLength: searchKeywordLengthMax,
    description: "Words to find (each as a prefix, all required)",
  }),
  searchBy: Type.Optional(
    Type.Enum(["Market", "Creator"], {
      description: "Market (default): title, description, tags. Creator: the creator's name",
    }),
  ),
  ...PageFields,
});
export type SearchQuery = Static<typeof SearchQuery>;

/** Search: the records in `data`, `current, size, total, pages` beside it. */
export const searchResponses = {
  200: Type.Object({
    code: Type.Integer(),
    message: Type.String(),
    data: Type.Array(MarketListRecord),
    ...PageFieldsSchema,
  }),
  400: ErrorEnvelope,
  401: ErrorEnvelope,
  404: ErrorEnvelope,
  415: ErrorEnvelope,
  500: ErrorEnvelope,
};
