// POST /ordering/convert (DESIGN §10): in an exclusive market, the session user turns `shares` No of
// each listed outcome into `shares` Yes of every other outcome plus shares × (listed − 1) USDT, as
// one core command (ConvertPositions), answered after its commit. A conversion never changes what
// the user is paid, whichever outcome wins (src/core/exclusive/convert.ts); the user channels show
// the new positions and balance, and the ledger one CONVERT entry.

import { ConvertRequest, ConvertResult } from "../../../contract/partner/convert.js";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import type { ConvertPositionsCommand } from "../../../core/commands.js";
import { reject } from "../../../core/errors.js";
import { formatAtoms, parseAtoms } from "../../../core/money.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { sendRejection } from "../errors.js";
import { type Parsed, requestId } from "../order-command.js";
import { requireSession } from "../session.js";

function convertCommand(body: ConvertRequest, userId: number): Parsed<ConvertPositionsCommand> {
  const marketId = requestId(body.marketId);
  if (marketId === undefined) return { ok: false, rejection: reject("MARKET_NOT_FOUND") };
  const outcomeIds: number[] = [];
  for (const raw of body.outcomeIds) {
    const outcomeId = requestId(raw);
    if (outcomeId === undefined)
      return { ok: false, rejection: reject("INVALID_INPUT", "outcomeIds must list outcome ids") };
    outcomeIds.push(outcomeId);
  }
  const shares = parseAtoms(body.shares);
  if (!shares.ok) {
    return {
      ok: false,
      rejection:
        shares.reason === "precision"
          ? reject("PRECISION_EXCEEDED", "shares has more than 8 decimal places")
          : reject("INVALID_INPUT", "shares must be a finite number"),
    };
  }
  return {
    ok: true,
    value: { type: "ConvertPositions", userId, marketId, outcomeIds, shares: shares.atoms },
  };
}

export default defineRoutes((app, deps) => {
  app.post(
    "/ordering/convert",
    {
      schema: {
        summary: "Convert No shares of an exclusive market into Yes shares of its other outcomes",
        description:
          "In an open exclusive market of n outcomes, burns `shares` No of each of the k listed outcomes (1 ≤ k < n) and gives `shares` × (k − 1) USDT plus `shares` Yes of every outcome not listed. Whichever outcome wins, the payout is the same as before. Refused (400/1001, nothing changes) when the market is not exclusive or not open, the list is bad, or a listed outcome has fewer free No shares than `shares` (shares in resting SELL orders do not count).",
        tags: ["Ordering"],
        body: ConvertRequest,
        response: partnerResponses(ConvertResult),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const command = convertCommand(request.body, request.user.userId);
      if (!command.ok) return sendRejection(reply, command.rejection);
      const result = await deps.engine.submit(command.value);
      if (!result.ok) return sendRejection(reply, result.rejection);
      const converted = result.events[0];
      if (converted?.type !== "PositionsConverted")
        throw new Error("ConvertPositions must emit PositionsConverted");
      return ok({
        converted: formatAtoms(converted.shares),
        collateral: formatAtoms(converted.collateral),
        yesPositions: converted.minted.map((leg) => ({
          outcomeId: String(leg.outcomeId),
          optionId: String(leg.optionId),
          positionId: String(leg.positionId),
          shares: formatAtoms(converted.shares),
        })),
      });
    },
  );
});
