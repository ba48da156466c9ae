// The JSON types of spec 000's catalogue tables, for the contract tests: every field of the list
// record, market detail, category node, holders and live volume, as the spec types it.

import assert from "node:assert/strict";

/** "nullable" fields are null until the platform has a value for them; "number?" may also be null. */
export type JsonType = "string" | "number" | "integer" | "boolean" | "null" | "array" | "object" | "number?";

export function jsonTypeMatches(value: unknown, type: JsonType): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "number?":
      return value === null || (typeof value === "number" && Number.isFinite(value));
    case "integer":
      return Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
  }
}

/** Exactly these fields, each of its type. */
export function assertShape(value: unknown, shape: Readonly<Record<string, JsonType>>, where: string): void {
  assert.ok(jsonTypeMatches(value, "object"), `${where} is an object`);
  const record = value as Record<string, unknown>;
  assert.deepEqual(
    Object.keys(record).sort(),
    Object.keys(shape).sort(),
    `${where}: exactly the spec's fields`,
  );
  for (const [field, type] of Object.entries(shape)) {
    assert.ok(
      jsonTypeMatches(record[field], type),
      `${where}.${field} should be ${type}, is ${JSON.stringify(record[field])}`,
    );
  }
}

export const listOptionShape = {
  optionId: "string",
  title: "string",
  price: "string",
  chance: "number",
  optionIndex: "integer",
} as const;

export const listOutcomeShape = { outcomeId: "string", name: "string", options: "array" } as const;

export const listRecordShape = {
  marketId: "string",
  title: "string",
  category: "string",
  status: "string",
  coinId: "string",
  marketType: "null",
  volume: "string",
  hotScore: "number",
  isOnline: "boolean",
  marketLogo: "string",
  startTime: "string",
  endTime: "string",
  matchDate: "null",
  matchStartTime: "null",
  modelType: "string",
  outcomes: "array",
} as const;

export const listPageShape = {
  current: "integer",
  size: "integer",
  total: "integer",
  pages: "integer",
  records: "array",
  totalRow: "null",
  empty: "boolean",
} as const;

export function assertListRecord(record: unknown, where: string): void {
  assertShape(record, listRecordShape, where);
  const { outcomes } = record as { outcomes: { options: unknown[] }[] };
  outcomes.forEach((outcome, outcomeIndex) => {
    assertShape(outcome, listOutcomeShape, `${where}.outcomes[${outcomeIndex}]`);
    for (const [optionIndex, option] of outcome.options.entries())
      assertShape(option, listOptionShape, `${where}.outcomes[${outcomeIndex}].options[${optionIndex}]`);
  });
}

const nullable = "null" as const;
export const detailShape = {
  marketId: "string",
  coinId: "string",
  category: "string",
  title: "string",
  description: "string",
  rules: "string",
  marketType: nullable,
  marketLogoBackground: nullable,
  totalStake: nullable,
  hotScore: "number?",
  ifHasChallenged: nullable,
  orderbookMakers: nullable,
  liveVideoType: nullable,
  liveSourcePlat: nullable,
  liveLinkUrl: nullable,
  matchStartTime: nullable,
  matchDate: nullable,
  modelType: "string",
  creatorType: "string",
  status: "string",
  topic: "string",
  priOrPub: "string",
  dataResource: "string",
  poolAddress: "string",
  tags: "string",
  marketLogo: "string",
  marketBanner: "string",
  isOnline: "boolean",
  wishlist: "boolean",
  isResolveOvertime: "boolean",
  isWorldCup: "boolean",
  liquidity: "number",
  buyFee: "number",
  sellFee: "number",
  platformFees: "number",
  makerFee: "number",
  takerFee: "number",
  buyMaxAmount: "number",
  buyMinAmount: "number",
  sellMinShares: "number",
  sellMaxShares: "number",
  challengeBondAmount: "number",
  marketOrderPriceProtection: "number",
  limitOrderPriceProtection: "number",
  commentCount: "integer",
  clicks: "integer",
  volume: "string",
  fee: "string",
  startTime: "string",
  endTime: "string",
  creator: "object",
  outcomes: "array",
} as const;

export const detailCreatorShape = {
  creatorId: "string",
  name: "string",
  profileImage: "string",
  creatorAddress: "null",
} as const;

export const detailOutcomeShape = {
  outcomeId: "string",
  title: "string",
  name: "string",
  chance: "number",
  outcomeLogo: "string",
  description: "string",
  options: "array",
} as const;

export const detailOptionShape = {
  optionId: "string",
  title: "string",
  chance: "number",
  price: "string",
  priceBuy: "number",
  priceSell: "number",
  isWinFirst: "string",
  isWin: "null",
  optionIndex: "integer",
} as const;

export const categoryNodeShape = {
  id: "string",
  level: "integer",
  level1Id: "string",
  level2Id: "string",
  name: "string",
  nameDisplay: "string",
  logoUrl: "string",
  children: "array",
} as const;

export const holdersOutcomeShape = {
  outcomeId: "string",
  outcomeName: "string",
  outcomeTitle: "string",
  outcomeLogo: "string",
  outcomeOptionHolderVoList: "array",
} as const;

export const holdersOptionShape = {
  outcomeId: "string",
  optionId: "string",
  optionTitle: "string",
  assetId: "string",
  yes: "boolean",
  optionIndex: "integer",
  price: "number",
  priceBuy: "number",
  priceSell: "number",
  holderVoList: "array",
} as const;

export const holderShape = {
  userId: "string",
  userName: "string",
  avatarUrl: "string",
  userAvatarFrameUrl: "null",
  share: "number",
} as const;

export const liveVolumeShape = { marketId: "string", volume: "string" } as const;

/** A category node: level1Id/level2Id are "string or null" in the spec. */
export function assertCategoryNode(node: unknown, where: string): void {
  const record = node as Record<string, unknown>;
  assertShape(
    node,
    {
      ...categoryNodeShape,
      level1Id: record.level1Id === null ? "null" : "string",
      level2Id: record.level2Id === null ? "null" : "string",
    },
    where,
  );
  for (const [index, child] of (record.children as unknown[]).entries())
    assertCategoryNode(child, `${where}.children[${index}]`);
}

export const isoUtcSeconds = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
export const decimalString = /^-?\d+(\.\d+)?$/;
