// The market detail of spec 000 ("Market detail" table): every field with its JSON type, and no
// others (the response schema also keeps anything else from leaking).

import { type Static, Type } from "typebox";

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableNumber = Type.Union([Type.Number(), Type.Null()]);
const Url = Type.String({ description: "URL" });
const Time = Type.String({ description: "ISO 8601 UTC" });

export const DetailOption = Type.Object({
  optionId: Type.String(),
  title: Type.String(),
  chance: Type.Number({ description: "The price as a probability, 0 to 1" }),
  price: Type.String({ description: "Midpoint, else last trade, else 0.5 (decimal string)" }),
  priceBuy: Type.Number({ description: "Best ask, else price" }),
  priceSell: Type.Number({ description: "Best bid, else price" }),
  isWinFirst: Type.String({ description: '"1" for the Yes option, "0" for No' }),
  isWin: Type.Union([Type.Boolean(), Type.Null()], { description: "null until settled" }),
  optionIndex: Type.Integer({ description: "0 = Yes, 1 = No" }),
});

export const DetailOutcome = Type.Object({
  outcomeId: Type.String(),
  title: Type.String(),
  name: Type.String(),
  chance: Type.Number(),
  outcomeLogo: Url,
  description: Type.String(),
  options: Type.Array(DetailOption),
});

export const MarketDetail = Type.Object({
  marketId: Type.String(),
  coinId: Type.String(),
  category: Type.String(),
  title: Type.String(),
  description: Type.String(),
  rules: Type.String(),
  marketType: NullableString,
  marketLogoBackground: NullableString,
  totalStake: NullableString,
  hotScore: NullableNumber,
  ifHasChallenged: Type.Union([Type.Boolean(), Type.Null()]),
  orderbookMakers: NullableNumber,
  liveVideoType: NullableString,
  liveSourcePlat: NullableString,
  liveLinkUrl: NullableString,
  matchStartTime: NullableString,
  matchDate: NullableString,
  modelType: Type.String(),
  creatorType: Type.String(),
  status: Type.String(),
  topic: Type.String(),
  priOrPub: Type.String(),
  dataResource: Type.String(),
  poolAddress: Type.String(),
  tags: Type.String({ description: "Comma-separated" }),
  marketLogo: Url,
  marketBanner: Url,
  isOnline: Type.Boolean(),
  wishlist: Type.Boolean(),
  isResolveOvertime: Type.Boolean(),
  isWorldCup: Type.Boolean(),
  liquidity: Type.Number(),
  buyFee: Type.Number({ description: "Basis points" }),
  sellFee: Type.Number({ description: "Basis points" }),
  platformFees: Type.Number({ description: "Fees the market has earned, USDT" }),
  makerFee: Type.Number({ description: "Basis points" }),
  takerFee: Type.Number({ description: "Basis points" }),
  buyMaxAmount: Type.Number(),
  buyMinAmount: Type.Number(),
  sellMinShares: Type.Number(),
  sellMaxShares: Type.Number(),
  challengeBondAmount: Type.Number(),
  marketOrderPriceProtection: Type.Number(),
  limitOrderPriceProtection: Type.Number(),
  commentCount: Type.Integer(),
  clicks: Type.Integer(),
  volume: Type.String({ description: "USDT traded (decimal string)" }),
  fee: Type.String({ description: "Fees earned, USDT (decimal string)" }),
  startTime: Time,
  endTime: Time,
  creator: Type.Object({
    creatorId: Type.String(),
    name: Type.String(),
    profileImage: Url,
    creatorAddress: NullableString,
  }),
  outcomes: Type.Array(DetailOutcome),
});
export type MarketDetail = Static<typeof MarketDetail>;

export const MarketIdParams = Type.Object({ marketId: Type.String({ maxLength: 32 }) });
