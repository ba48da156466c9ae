// Schemas of POST /ordering/convert (DESIGN §10): in an exclusive market, `shares` No of each listed
// outcome become `shares` Yes of every other outcome plus shares × (listed − 1) USDT. Ids are
// numeric strings (numbers accepted), shares a JSON number as in create-order, answers decimal strings.

import { type Static, Type } from "typebox";

/** The most outcomes a market has: the core's outcomesPerMarketMax, repeated (the SDK ships without the core). */
export const convertOutcomesMax = 64;

const Decimal = (description: string) => Type.String({ description: `${description} (decimal string)` });
const Id = Type.String({ description: "Numeric id as a string" });
const RequestId = Type.Union([Type.String({ maxLength: 32 }), Type.Number()], {
  description: "Numeric id, as a string (as returned) or a number",
});

export const ConvertRequest = Type.Object({
  marketId: RequestId,
  outcomeIds: Type.Array(RequestId, {
    minItems: 1,
    maxItems: convertOutcomesMax,
    description:
      "The outcomes whose No shares are converted: 1 to n − 1 distinct outcomes of the market (n = its outcomes)",
  }),
  shares: Type.Number({
    description: "No shares converted of each listed outcome (JSON number, a multiple of 0.0001)",
  }),
});
export type ConvertRequest = Static<typeof ConvertRequest>;

export const ConvertedYesPosition = Type.Object({
  outcomeId: Id,
  optionId: Id,
  positionId: Id,
  shares: Decimal("Yes shares this conversion gave, equal to `converted`"),
});

export const ConvertResult = Type.Object({
  converted: Decimal("No shares converted of each listed outcome"),
  collateral: Decimal("USDT paid into the available balance: converted × (listed − 1)"),
  yesPositions: Type.Array(ConvertedYesPosition, {
    description: "One per outcome not listed, in the market's outcome order",
  }),
});
export type ConvertResult = Static<typeof ConvertResult>;
