// POST /api/market/openapi/market/apply and POST /api/market/openapi/challenge (spec 001 point 7;
// bodies beyond `outcomeOptionsVoList`, `modelType` and `marketType` are ours: docs/decisions.md).

import { type Static, Type } from "typebox";

/** Spec 001 "Limits": a market title has at most 200 characters. */
export const applicationTitleLengthMax = 200;
export const applicationOptionsMax = 16;
export const applicationOptionTitleLengthMax = 200;
/** A challenge's reason: the core's challengeReasonLengthMax (a test keeps the two equal). */
export const challengeReasonLengthMax = 1_000;

const Decimal = (description: string) =>
  Type.Union([Type.Number(), Type.String({ maxLength: 64 })], { description });

export const MarketApplicationRequest = Type.Object({
  title: Type.String({ minLength: 1, maxLength: applicationTitleLengthMax }),
  description: Type.Optional(Type.String({ maxLength: 20_000 })),
  categoryId: Type.Integer({ minimum: 1 }),
  modelType: Type.Optional(
    Type.String({ maxLength: 16, description: "orderbook (default), AMM or parimutuel" }),
  ),
  marketType: Type.Optional(
    Type.String({
      maxLength: 16,
      description: "BINARY (default: 2 options) or MULTIPLE (a Yes/No outcome per option)",
    }),
  ),
  liquidity: Decimal("USDT, at least 100 (4035)"),
  outcomeOptionsVoList: Type.Array(
    Type.Object({
      optionTitle: Type.String({ maxLength: applicationOptionTitleLengthMax }),
      weight: Decimal("Between 0 and 1; the weights add up to exactly 1 (4039)"),
    }),
    { maxItems: applicationOptionsMax },
  ),
  startTime: Type.String({ maxLength: 40, description: "ISO 8601" }),
  endTime: Type.String({ maxLength: 40, description: "ISO 8601" }),
});

export type MarketApplicationRequest = Static<typeof MarketApplicationRequest>;

export const MarketApplication = Type.Object({
  applicationId: Type.Integer(),
  userId: Type.Integer(),
  title: Type.String(),
  description: Type.String(),
  categoryId: Type.Integer(),
  modelType: Type.String(),
  marketType: Type.String(),
  liquidity: Type.Number(),
  outcomeOptionsVoList: Type.Array(Type.Object({ optionTitle: Type.String(), weight: Type.Number() })),
  startTime: Type.String(),
  endTime: Type.String(),
  status: Type.String({ description: "PENDING, APPROVED or REJECTED" }),
  marketId: Type.Union([Type.Integer(), Type.Null()]),
  rejectReason: Type.Union([Type.String(), Type.Null()]),
  createTime: Type.String(),
  updateTime: Type.String(),
});

export const ChallengeRequest = Type.Object({
  marketId: Type.Integer({ minimum: 1 }),
  reason: Type.String({ minLength: 1, maxLength: challengeReasonLengthMax }),
});
