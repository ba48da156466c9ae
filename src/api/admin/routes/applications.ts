// GET /admin/applications, POST /admin/applications/{id}/approve and /reject: the operator reviews
// the market applications of the legacy interface. Approving creates a real draft market through
// the engine, with the applicant as its creator (src/legacy/market-applications.ts), then records
// its id on the application; the operator opens it like any draft (POST /admin/markets/{id}/open).

import { Type } from "typebox";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { parseId } from "../../../contract/wire-format.js";
import { reject } from "../../../core/errors.js";
import {
  type ApplicationRecord,
  applicationView,
  approvalCommand,
} from "../../../legacy/market-applications.js";
import { badRequest, notFound, sendRejection, sendServiceError } from "../../partner/errors.js";
import { PageFields, pageFields, resolvePage } from "../../partner/pagination.js";
import { defineRoutes } from "../../shared/typebox-app.js";

const rejectReasonLengthMax = 1_000;

const ApplicationIdParams = Type.Object({ id: Type.String({ maxLength: 32 }) });
const ListQuery = Type.Object({
  status: Type.Optional(
    Type.Union([Type.Literal("PENDING"), Type.Literal("APPROVED"), Type.Literal("REJECTED")]),
  ),
  ...PageFields,
});
const RejectBody = Type.Optional(
  Type.Object({ reason: Type.Optional(Type.String({ maxLength: rejectReasonLengthMax })) }),
);

const Application = Type.Object({
  applicationId: Type.String(),
  userId: Type.String(),
  title: Type.String(),
  description: Type.String(),
  categoryId: Type.String(),
  modelType: Type.String(),
  marketType: Type.String(),
  liquidity: Type.Number(),
  outcomeOptionsVoList: Type.Array(Type.Object({ optionTitle: Type.String(), weight: Type.Number() })),
  startTime: Type.String(),
  endTime: Type.String(),
  status: Type.String(),
  marketId: Type.Union([Type.String(), Type.Null()]),
  rejectReason: Type.Union([Type.String(), Type.Null()]),
  createTime: Type.String(),
  updateTime: Type.String(),
});

/** The admin API's ids are strings, as on the current interface. */
function adminView(application: ApplicationRecord) {
  const view = applicationView(application);
  return {
    ...view,
    applicationId: String(view.applicationId),
    userId: String(view.userId),
    categoryId: String(view.categoryId),
    marketId: view.marketId === null ? null : String(view.marketId),
  };
}

export default defineRoutes((app, deps) => {
  const applications = deps.legacyStores.applications;

  app.get(
    "/admin/applications",
    {
      schema: {
        summary: "Market applications, newest first",
        tags: ["Applications"],
        querystring: ListQuery,
        response: partnerResponses(
          Type.Object({
            current: Type.Integer(),
            size: Type.Integer(),
            total: Type.Integer(),
            pages: Type.Integer(),
            records: Type.Array(Application),
          }),
        ),
      },
    },
    async (request, reply) => {
      const page = resolvePage(request.query.page, request.query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      const found = await applications.list({ status: request.query.status }, page.value);
      return ok({ ...pageFields(page.value, found.total), records: found.records.map(adminView) });
    },
  );

  async function pending(id: string) {
    const applicationId = parseId(id);
    const application = applicationId === undefined ? undefined : await applications.find(applicationId);
    if (application === undefined) return { ok: false as const, error: notFound("Application not found") };
    if (application.status !== "PENDING") {
      return { ok: false as const, error: badRequest(`Application is ${application.status}, not PENDING`) };
    }
    return { ok: true as const, application };
  }

  app.post(
    "/admin/applications/:id/approve",
    {
      schema: {
        summary: "Approve a PENDING application: creates its draft market, the applicant as creator",
        tags: ["Applications"],
        params: ApplicationIdParams,
        response: partnerResponses(Application),
      },
    },
    async (request, reply) => {
      const found = await pending(request.params.id);
      if (!found.ok) return sendServiceError(reply, found.error);
      const { application } = found;
      const creator = await deps.identity.findUser(application.userId);
      if (creator === undefined) return sendRejection(reply, reject("USER_NOT_FOUND"));
      if (!(await deps.categories.isUsable(application.categoryId))) {
        return sendRejection(reply, reject("CATEGORY_NOT_FOUND"));
      }
      const result = await deps.engine.submit(approvalCommand(application, creator));
      if (!result.ok) return sendRejection(reply, result.rejection);
      const created = result.events[0];
      if (created?.type !== "MarketCreated") throw new Error("CreateMarket must emit MarketCreated first");
      const approved = await applications.review(
        application.applicationId,
        { status: "APPROVED", marketId: created.marketId },
        deps.nowMs(),
      );
      if (approved === undefined)
        throw new Error(`application ${application.applicationId} left PENDING meanwhile`);
      return ok(adminView(approved));
    },
  );

  app.post(
    "/admin/applications/:id/reject",
    {
      schema: {
        summary: "Reject a PENDING application",
        tags: ["Applications"],
        params: ApplicationIdParams,
        body: RejectBody,
        response: partnerResponses(Application),
      },
    },
    async (request, reply) => {
      const found = await pending(request.params.id);
      if (!found.ok) return sendServiceError(reply, found.error);
      const rejected = await applications.review(
        found.application.applicationId,
        { status: "REJECTED", reason: request.body?.reason ?? null },
        deps.nowMs(),
      );
      if (rejected === undefined)
        return sendServiceError(reply, badRequest("Application is no longer PENDING"));
      return ok(adminView(rejected));
    },
  );
});
