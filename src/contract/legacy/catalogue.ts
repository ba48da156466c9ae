// GET /api/market/openapi/category, /market/list, /{marketId}/outcome, /top-holders (spec 001
// steps 2–4; the records are ours: docs/decisions.md "Legacy interface (spec 001)"). Ids are numbers.

import { Type } from "typebox";
import { PageParameters } from "./portfolio.js";

export const Category = Type.Object({ id: Type.Integer(), name: Type.String() });

export const MarketListQuery = Type.Object({
  ...PageParameters,
  categoryId: Type.Optional(
    Type.Integer({ minimum: 1, description: "Markets filed under this category (exactly)" }),
  ),
  status: Type.Optional(
    Type.String({
      maxLength: 16,
      description: "open, closed, resolving, settled or void (drafts are never listed)",
    }),
  ),
  keyword: Type.Optional(
    Type.String({ maxLength: 256, description: "Full-text search of title, tags, description" }),
  ),
});

export const MarketIdParams = Type.Object({ marketId: Type.String({ maxLength: 32 }) });
export const TopHoldersQuery = Type.Object({ marketId: Type.Optional(Type.String({ maxLength: 32 })) });

const Nullable = <T extends ReturnType<typeof Type.Integer> | ReturnType<typeof Type.Boolean>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const ListOption = {
  optionId: Type.Integer(),
  title: Type.String(),
  optionIndex: Type.Integer({ description: "0 = Yes, 1 = No" }),
  price: Type.Number(),
  chance: Type.Number(),
};

const RecordFields = {
  marketId: Type.Integer(),
  title: Type.String(),
  categoryId: Nullable(Type.Integer()),
  category: Type.String({ description: "The category's en-US name" }),
  status: Type.String({ description: "open, closed, resolving, settled, void (draft by id only)" }),
  modelType: Type.String({ description: "orderbook, AMM or parimutuel" }),
  coinId: Type.Integer({ description: "2 = USDT" }),
  volume: Type.Number({ description: "USDT traded" }),
  hotScore: Type.Number(),
  isOnline: Type.Boolean(),
  marketLogo: Type.String(),
  creatorId: Type.Integer({ description: "0 = the platform" }),
  startTime: Type.String({ description: "ISO 8601" }),
  endTime: Type.String({ description: "ISO 8601" }),
};

export const LegacyMarketRecord = Type.Object({
  ...RecordFields,
  outcomes: Type.Array(
    Type.Object({
      outcomeId: Type.Integer(),
      name: Type.String(),
      chance: Type.Number({ description: "The Yes option's chance" }),
      options: Type.Array(Type.Object(ListOption)),
    }),
  ),
});

export const LegacyMarketDetail = Type.Object({
  ...RecordFields,
  description: Type.String(),
  rules: Type.String(),
  tags: Type.String({ description: "Comma-separated" }),
  creatorName: Type.String(),
  clicks: Type.Integer(),
  makerFee: Type.Integer({ description: "Basis points" }),
  takerFee: Type.Integer({ description: "Basis points" }),
  buyFee: Type.Integer({ description: "Basis points" }),
  sellFee: Type.Integer({ description: "Basis points" }),
  buyMinAmount: Type.Number(),
  buyMaxAmount: Type.Number(),
  sellMinShares: Type.Number(),
  sellMaxShares: Type.Number(),
  challengeBondAmount: Type.Number(),
  ifHasChallenged: Nullable(Type.Boolean()),
  outcomes: Type.Array(
    Type.Object({
      outcomeId: Type.Integer(),
      name: Type.String(),
      title: Type.String(),
      description: Type.String(),
      chance: Type.Number(),
      options: Type.Array(
        Type.Object({
          ...ListOption,
          priceBuy: Type.Number({ description: "Best ask, else price" }),
          priceSell: Type.Number({ description: "Best bid, else price" }),
          isWin: Nullable(Type.Boolean()),
        }),
      ),
    }),
  ),
});

export const TopHolders = Type.Array(
  Type.Object({
    outcomeId: Type.Integer(),
    outcomeName: Type.String(),
    options: Type.Array(
      Type.Object({
        optionId: Type.Integer(),
        optionTitle: Type.String(),
        optionIndex: Type.Integer(),
        price: Type.Number(),
        holders: Type.Array(
          Type.Object({
            userId: Type.Integer(),
            userName: Type.String(),
            avatarUrl: Type.String(),
            shares: Type.Number({ description: "Free and frozen shares together" }),
          }),
        ),
      }),
    ),
  }),
);
