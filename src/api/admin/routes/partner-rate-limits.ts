// POST /admin/partners/{merchantId}/rate-limit: gives a partner its own requests-per-second limit on
// the signed host (src/api/partner/rate-limit.ts), or removes it with null. Takes effect at once.

import { Type } from "typebox";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import { sendRejection } from "../../partner/errors.js";
import { defineRoutes } from "../../shared/typebox-app.js";

/** The highest limit the operator may set; beyond it a limit means nothing on one node. */
export const partnerRequestsPerSecondMax = 1_000_000;

const RateLimitBody = Type.Object({
  rateLimitPerSecond: Type.Union(
    [Type.Integer({ minimum: 1, maximum: partnerRequestsPerSecondMax }), Type.Null()],
    {
      description: "Requests per second on the signed host for this partner; null removes the limit",
    },
  ),
});

const RateLimitView = Type.Object({
  merchantId: Type.String(),
  rateLimitPerSecond: Type.Union([Type.Integer(), Type.Null()]),
});

export default defineRoutes((app, deps) => {
  app.post(
    "/admin/partners/:merchantId/rate-limit",
    {
      schema: {
        summary: "Set or remove a partner's requests-per-second limit on the signed host",
        tags: ["Partners"],
        params: Type.Object({ merchantId: Type.String({ maxLength: 32 }) }),
        body: RateLimitBody,
        response: partnerResponses(RateLimitView),
      },
    },
    async (request, reply) => {
      const partnerId = parseId(request.params.merchantId);
      const partner = partnerId === undefined ? undefined : await deps.identity.findPartner(partnerId);
      if (partner === undefined) return sendRejection(reply, reject("PARTNER_NOT_FOUND"));
      await deps.partnerRateLimits.set(partner.partnerId, request.body.rateLimitPerSecond);
      return ok({
        merchantId: String(partner.partnerId),
        rateLimitPerSecond: request.body.rateLimitPerSecond,
      });
    },
  );

  app.get(
    "/admin/partners/:merchantId/rate-limit",
    {
      schema: {
        summary: "A partner's requests-per-second limit on the signed host (null: none)",
        tags: ["Partners"],
        params: Type.Object({ merchantId: Type.String({ maxLength: 32 }) }),
        response: partnerResponses(RateLimitView),
      },
    },
    async (request, reply) => {
      const partnerId = parseId(request.params.merchantId);
      const partner = partnerId === undefined ? undefined : await deps.identity.findPartner(partnerId);
      if (partner === undefined) return sendRejection(reply, reject("PARTNER_NOT_FOUND"));
      return ok({
        merchantId: String(partner.partnerId),
        rateLimitPerSecond: (await deps.partnerRateLimits.of(partner.partnerId)) ?? null,
      });
    },
  );
});
