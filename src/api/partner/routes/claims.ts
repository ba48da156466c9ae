// POST /ordering/claim and POST /ordering/claim_all (spec 000, DESIGN §8): the session user claims
// the payout of positions in settled or void markets. Each claim is one core command, answered
// after its commit; a claim_all sends its claims together, so they share commits.

import {
  Claim,
  ClaimAllRequest,
  ClaimAllResult,
  ClaimRequest,
  claimAllPositionsMax,
} from "../../../contract/partner/claims.js";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { parseId } from "../../../contract/wire-format.js";
import { type Rejection, rejectionKind } from "../../../core/errors.js";
import { formatAtoms } from "../../../core/money.js";
import type { PlatformDeps } from "../../deps.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { badRequest, fromRejection, type ServiceError, sendRejection, sendServiceError } from "../errors.js";
import { requireSession } from "../session.js";

/** The spec's own message for a missing or malformed positionId. */
export const invalidPositionId: ServiceError = badRequest("Missing or invalid positionId field");
const invalidPositionIdList: ServiceError = badRequest(
  `Missing or invalid positionIdList field: 1 to ${claimAllPositionsMax} position ids`,
);

/** A position id as sent: a string of digits or a JSON integer, positive. */
function positionIdOf(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isSafeInteger(value) ? parseId(value) : undefined;
  return typeof value === "string" ? parseId(value) : undefined;
}

type ClaimOutcome = { ok: true; claim: Claim; amount: bigint } | { ok: false; rejection: Rejection };

async function claimPosition(deps: PlatformDeps, userId: number, positionId: number): Promise<ClaimOutcome> {
  const result = await deps.engine.submit({ type: "ClaimPosition", userId, positionId });
  if (!result.ok) return { ok: false, rejection: result.rejection };
  const claimed = result.events[0];
  if (claimed?.type !== "PositionClaimed") throw new Error("ClaimPosition must emit PositionClaimed");
  return {
    ok: true,
    amount: claimed.amount,
    claim: {
      positionId: String(claimed.positionId),
      claimedAmount: formatAtoms(claimed.amount),
      transactionId: claimed.transactionId,
    },
  };
}

function fieldOf(body: unknown, field: string): unknown {
  return typeof body === "object" && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)[field]
    : undefined;
}

export default defineRoutes((app, deps) => {
  app.post(
    "/ordering/claim",
    {
      schema: {
        summary: "Claim a position of a settled or void market",
        description:
          "A winning share pays exactly 1 USDT, every share of a void market 0.5 (of a void exclusive market of n outcomes: a Yes share 1/n, a No share (n − 1)/n), into the available balance. Refused (400/1001) when the market is not settled, there is nothing to claim, or it was already claimed; another user's position is not found (404/1404).",
        tags: ["Ordering"],
        body: ClaimRequest,
        response: partnerResponses(Claim),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const positionId = positionIdOf(fieldOf(request.body, "positionId"));
      if (positionId === undefined) return sendServiceError(reply, invalidPositionId);
      const outcome = await claimPosition(deps, request.user.userId, positionId);
      if (!outcome.ok) return sendRejection(reply, outcome.rejection);
      return ok(outcome.claim);
    },
  );

  app.post(
    "/ordering/claim_all",
    {
      schema: {
        summary: "Claim several positions at once",
        description:
          "Each id is claimed as `/ordering/claim` would; `results` gives each one's amount or error, in the order given, and `claimedAmount` their total.",
        tags: ["Ordering"],
        body: ClaimAllRequest,
        response: partnerResponses(ClaimAllResult),
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const list = fieldOf(request.body, "positionIdList");
      if (!Array.isArray(list) || list.length === 0 || list.length > claimAllPositionsMax)
        return sendServiceError(reply, invalidPositionIdList);
      // An element that is not an id at all (object, array, null, boolean) makes the list invalid;
      // a string or number that is no valid id gets its own error in `results`.
      if (!list.every((raw) => typeof raw === "string" || typeof raw === "number"))
        return sendServiceError(reply, invalidPositionIdList);
      const userId = request.user.userId;
      const outcomes = await Promise.all(
        list.map(async (raw): Promise<ClaimOutcome | "invalid"> => {
          const positionId = positionIdOf(raw);
          return positionId === undefined ? "invalid" : claimPosition(deps, userId, positionId);
        }),
      );
      let total = 0n;
      const results = outcomes.map((outcome, index) => {
        const positionId = String(list[index]);
        if (outcome === "invalid") {
          return { positionId, error: { code: invalidPositionId.code, message: invalidPositionId.message } };
        }
        if (!outcome.ok) {
          const error = fromRejection(outcome.rejection);
          // A rejection here is the exchange's answer, never a 4054: a position has no book.
          if (rejectionKind(outcome.rejection) === "not_ready") throw new Error("claim answered not_ready");
          return { positionId, error: { code: error.code, message: error.message } };
        }
        total += outcome.amount;
        return outcome.claim;
      });
      return ok({ claimedAmount: formatAtoms(total), results });
    },
  );
});
