// POST /api/order/openapi/order/claim (spec 001 "Claim request and response").

import { Type } from "typebox";

export const ClaimRequest = Type.Object({
  marketId: Type.Integer({ minimum: 1, description: "The settled (or void) market to claim in" }),
});

export const Claimed = Type.Object({
  claimedAmount: Type.Number({
    description: "USDT credited, all the user's positions in the market together",
  }),
  transactionId: Type.String(),
});
