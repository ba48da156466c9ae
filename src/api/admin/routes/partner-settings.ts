// GET and POST /admin/partners/{merchantId}: one partner's settings (never a secret), and the
// operator's changes to them. Today the one setting is `signedNonceRequired`: every request of the
// partner that is not a read (GET, HEAD, OPTIONS) must sign an `x-ca-nonce`, or the gateway answers
// 401/1401 `unauthorized: Missing signed X-CA-NONCE header` (issue #27: a captured create-order
// could be sent again within the date window). Off by default, since spec 000's own example signs
// `x-api-key` alone. It applies on the node that changed it at once, on every other node within
// about a second (src/identity/service.ts partnerRefreshMs).

import { Type } from "typebox";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import { sendRejection } from "../../partner/errors.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { PartnerView, partnerView } from "../partner-view.js";

const MerchantIdParams = Type.Object({ merchantId: Type.String({ maxLength: 32 }) });

const PartnerSettingsBody = Type.Object({
  signedNonceRequired: Type.Optional(
    Type.Boolean({
      description:
        "Refuse (401/1401) every request of this partner that is not a GET, HEAD or OPTIONS unless it signs an x-ca-nonce; absent leaves it as it is",
    }),
  ),
});

export default defineRoutes((app, deps) => {
  app.get(
    "/admin/partners/:merchantId",
    {
      schema: {
        summary: "One partner and its settings (no secrets)",
        tags: ["Partners"],
        params: MerchantIdParams,
        response: partnerResponses(PartnerView),
      },
    },
    async (request, reply) => {
      const partnerId = parseId(request.params.merchantId);
      const partner = partnerId === undefined ? undefined : await deps.identity.findPartner(partnerId);
      if (partner === undefined) return sendRejection(reply, reject("PARTNER_NOT_FOUND"));
      return ok(partnerView(partner));
    },
  );

  app.post(
    "/admin/partners/:merchantId",
    {
      schema: {
        summary: "Change a partner's settings (signedNonceRequired)",
        tags: ["Partners"],
        params: MerchantIdParams,
        body: PartnerSettingsBody,
        response: partnerResponses(PartnerView),
      },
    },
    async (request, reply) => {
      const partnerId = parseId(request.params.merchantId);
      if (partnerId === undefined) return sendRejection(reply, reject("PARTNER_NOT_FOUND"));
      const result = await deps.identity.updatePartnerSettings(partnerId, request.body);
      if (!result.ok) return sendRejection(reply, result.rejection);
      return ok(partnerView(result.value));
    },
  );
});
