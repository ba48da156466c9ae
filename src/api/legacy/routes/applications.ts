// POST /api/market/openapi/market/apply and POST /api/market/openapi/challenge (spec 001 point 7).
// Only creators apply (4011; the operator grants the flag: POST /admin/creators/{userId}); an
// application is checked (4035, 4039, category), then against existing titles (4041, 4010, 4013)
// and stored PENDING for the operator's review. A challenge posts the bond through the core's
// ChallengeResolution command; `data` is null on success (spec 001 rule 5).

import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import {
  ChallengeRequest,
  MarketApplication,
  MarketApplicationRequest,
} from "../../../contract/legacy/applications.js";
import { legacyResponses, success } from "../../../contract/legacy/envelope.js";
import { applicationView, checkApplication, findTitleConflict } from "../../../legacy/market-applications.js";
import { markSecurity } from "../../shared/openapi-operations.js";
import { legacyTokenSecurity } from "../../shared/security-schemes.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { requireLegacyToken } from "../authentication.js";
import { fromApplicationProblem, fromChallengeRejection, legacyErrors, sendLegacyError } from "../errors.js";

export const marketApplyPath = "/api/market/openapi/market/apply";
export const challengePath = "/api/market/openapi/challenge";

export default defineRoutes((app, deps) => {
  const services = app.legacyServices;

  // Who may apply is settled before the body is looked at: a non-creator learns that first.
  async function requireCreator(request: FastifyRequest, reply: FastifyReply) {
    if (request.legacyToken === undefined) return sendLegacyError(reply, legacyErrors.invalidToken);
    if (!(await services.applications.isCreator(request.legacyToken.userId))) {
      return sendLegacyError(reply, legacyErrors.notCreator);
    }
  }
  markSecurity(requireCreator, legacyTokenSecurity);

  app.post(
    marketApplyPath,
    {
      schema: {
        summary: "Apply for a new market (creators only); the operator reviews it",
        description:
          "403 4011 non-creator; 400: 4035 liquidity < 100, 4039 weights do not add up to 1, 4041 title exists, 4010 duplicate pending application, 4013 similar market; 404 3020 unknown category.",
        tags: ["Market"],
        body: MarketApplicationRequest,
        response: legacyResponses(MarketApplication),
      },
      preValidation: requireCreator,
    },
    async (request, reply) => {
      const { userId } = request.legacyToken!;
      const nowMs = deps.nowMs();
      const checked = checkApplication(request.body, nowMs);
      if (!checked.ok) return sendLegacyError(reply, fromApplicationProblem(checked.problem));
      if (!(await deps.categories.isUsable(checked.value.categoryId))) {
        return sendLegacyError(reply, legacyErrors.categoryNotFound);
      }
      const stored = await services.applications.submit(userId, checked.value, nowMs, (candidates) =>
        findTitleConflict(checked.value.title, userId, candidates),
      );
      if (!stored.ok) return sendLegacyError(reply, fromApplicationProblem(stored.problem));
      return success(applicationView(stored.value));
    },
  );

  app.post(
    challengePath,
    {
      schema: {
        summary: "Challenge a market's proposed result, posting the challenge bond",
        description:
          "Only while the market is resolving and its challenge window is open, once per market (else 422 4014); the bond must be available (422 2002).",
        tags: ["Market"],
        body: ChallengeRequest,
        response: legacyResponses(Type.Null()),
      },
      preValidation: requireLegacyToken,
    },
    async (request, reply) => {
      const result = await deps.engine.submit({
        type: "ChallengeResolution",
        marketId: request.body.marketId,
        userId: request.legacyToken!.userId,
        reason: request.body.reason,
      });
      if (!result.ok) return sendLegacyError(reply, fromChallengeRejection(result.rejection));
      return success(null);
    },
  );
});
