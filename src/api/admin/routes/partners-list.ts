// GET /admin/partners: the partners, newest first, for the operator's desk. Never a secret: the APP
// Secret, API key and webhook secret are shown once, when the partner is created.

import { Type } from "typebox";

import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { isoSeconds } from "../../../contract/wire-format.js";
import { sendServiceError } from "../../partner/errors.js";
import { PageFields, PageFieldsSchema, pageFields, resolvePage } from "../../partner/pagination.js";
import { defineRoutes } from "../../shared/typebox-app.js";

const bpsPerUnit = 10_000;

const Partner = Type.Object({
  merchantId: Type.String(),
  name: Type.String(),
  appKey: Type.String(),
  commissionRate: Type.String({ description: "0 to 1, decimal string" }),
  webhookUrl: Type.Union([Type.String(), Type.Null()]),
  signedNonceRequired: Type.Boolean({
    description: "Requests other than GET, HEAD and OPTIONS must sign an x-ca-nonce",
  }),
  userCount: Type.Integer(),
  createdAt: Type.String({ description: "ISO 8601 UTC" }),
});

export default defineRoutes((app, deps) => {
  const queries = deps.consoleQueries;
  app.get(
    "/admin/partners",
    {
      schema: {
        summary: "Partners, newest first (no secrets)",
        tags: ["Partners"],
        querystring: Type.Object(PageFields),
        response: partnerResponses(Type.Object({ ...PageFieldsSchema, records: Type.Array(Partner) })),
      },
    },
    async (request, reply) => {
      const page = resolvePage(request.query.page, request.query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      const found = await queries.partners(page.value);
      return ok({
        ...pageFields(page.value, found.total),
        records: found.records.map((partner) => ({
          merchantId: String(partner.partnerId),
          name: partner.name,
          appKey: partner.appKey,
          commissionRate: String(partner.commissionRateBps / bpsPerUnit),
          webhookUrl: partner.webhookUrl,
          signedNonceRequired: partner.signedNonceRequired,
          userCount: partner.userCount,
          createdAt: isoSeconds(partner.createdAtMs),
        })),
      });
    },
  );
});
