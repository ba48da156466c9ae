// POST /api/order/openapi/order/claim (spec 001 step 10): claims every claimable position of the
// token user in one settled or void market, as one core command (ClaimMarket), answered after its
// commit. Unlike order submit it is synchronous: the spec's response carries the amount.

import { Claimed, ClaimRequest } from "../../../contract/legacy/claims.js";
import { legacyResponses, success } from "../../../contract/legacy/envelope.js";
import { atomsToNumber } from "../../../core/money.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { requireLegacyToken } from "../authentication.js";
import { fromRejection, legacyErrors, sendLegacyError } from "../errors.js";

export const claimPath = "/api/order/openapi/order/claim";

export default defineRoutes((app, deps) => {
  app.post(
    claimPath,
    {
      schema: {
        summary: "Claim the rewards of a settled market",
        description:
          "404 market missing or nothing claimable; 422 not settled (4017) or already claimed (4025).",
        tags: ["Order"],
        body: ClaimRequest,
        response: legacyResponses(Claimed),
      },
      preValidation: requireLegacyToken,
    },
    async (request, reply) => {
      const { userId } = request.legacyToken!;
      const result = await deps.engine.submit({
        type: "ClaimMarket",
        userId,
        marketId: request.body.marketId,
      });
      if (!result.ok) return sendLegacyError(reply, fromRejection(result.rejection));
      let claimed = 0n;
      let transactionId: string | undefined;
      for (const event of result.events) {
        if (event.type !== "PositionClaimed") continue;
        claimed += event.amount;
        transactionId = event.transactionId;
      }
      if (transactionId === undefined) return sendLegacyError(reply, legacyErrors.nothingToClaim);
      return success({ claimedAmount: atomsToNumber(claimed), transactionId });
    },
  );
});
