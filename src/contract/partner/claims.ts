// Schemas of claims and positions (DESIGN §8): POST /ordering/claim, POST /ordering/claim_all,
// GET /account/positions. Amounts and shares are decimal strings, ids numeric strings.

import { type Static, Type } from "typebox";
import { PageFields, PageFieldsSchema } from "./pagination.js";

const Decimal = (description: string) => Type.String({ description: `${description} (decimal string)` });
const Id = Type.String({ description: "Numeric id as a string" });

/** The most positions one claim_all may name. */
export const claimAllPositionsMax = 100;

/** Checked by the handler, so a missing or malformed id gets the spec's own message. */
export const ClaimRequest = Type.Unknown({
  description: "`{positionId}`: the position's id, as a string or a number",
});

export const ClaimAllRequest = Type.Unknown({
  description: `\`{positionIdList}\`: 1 to ${claimAllPositionsMax} position ids, as strings or numbers`,
});

export const Claim = Type.Object({
  positionId: Id,
  claimedAmount: Decimal("USDT paid into the available balance"),
  transactionId: Type.String({ description: "The claim's transaction id" }),
});
export type Claim = Static<typeof Claim>;

const ClaimError = Type.Object({
  code: Type.Integer({ description: "1001 refused or malformed, 1404 not found" }),
  message: Type.String({
    description: "As the single claim would answer, e.g. `bad request: Already claimed`",
  }),
});

export const ClaimAllResult = Type.Object({
  claimedAmount: Decimal("Total paid by the claims that succeeded"),
  results: Type.Array(
    Type.Object({
      positionId: Type.String(),
      claimedAmount: Type.Optional(Decimal("Paid for this position")),
      transactionId: Type.Optional(Type.String()),
      error: Type.Optional(ClaimError),
    }),
    { description: "One per id, in the order given" },
  ),
});
export type ClaimAllResult = Static<typeof ClaimAllResult>;

export const PositionsQuery = Type.Object({
  marketId: Type.Optional(Type.String({ pattern: "^[0-9]{1,15}$" })),
  status: Type.Optional(Type.Enum(["open", "settled", "claimed"])),
  ...PageFields,
});
export type PositionsQuery = Static<typeof PositionsQuery>;

export const PositionRecord = Type.Object({
  positionId: Id,
  marketId: Id,
  outcomeId: Id,
  optionId: Id,
  shares: Decimal("Shares held, including those in resting SELL orders"),
  avgPrice: Type.Union([Decimal("Cost per share, fees included"), Type.Null()], {
    description: "null with no shares",
  }),
  cost: Decimal("What the shares held cost, fees included"),
  status: Type.String({ description: "open, settled (market settled or void) or claimed" }),
  claimable: Decimal(
    "What a claim would pay now: winning shares × 1, 0.5 a share when void (an exclusive market of n outcomes: Yes 1/n, No (n − 1)/n), else 0",
  ),
});
export type PositionRecord = Static<typeof PositionRecord>;

export const PositionsPage = Type.Object({
  ...PageFieldsSchema,
  records: Type.Array(PositionRecord),
});
