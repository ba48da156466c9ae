// GET /admin/partners: the partners, newest first, for the operator's desk. Never a secret: the APP
// Secret, API key and webhook secret are shown once, when the partner is created.

import { Type } from "typebox";

import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { sendServiceError } from "../../partner/errors.js";
import { PageFields, PageFieldsSchema, pageFields, resolvePage } from "../../partner/pagination.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { PartnerViewFields, partnerView } from "../partner-view.js";

const Partner = Type.Object({ ...PartnerViewFields, userCount: Type.Integer() });

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
        records: found.records.map((partner) => ({ ...partnerView(partner), userCount: partner.userCount })),
      });
    },
  );
});
