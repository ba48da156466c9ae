// GET /markets/list (spec 000): listed markets (every status but draft), hottest first, with the
// pagination fields inside `data` (`current, size, total, pages, records, totalRow: null, empty`).

import type { FastifyReply } from "fastify";
import { MarketListPage, MarketListQuery } from "../../../contract/partner/catalogue.js";
import { ok, partnerResponses } from "../../../contract/partner/envelope.js";
import { defineRoutes } from "../../shared/typebox-app.js";
import { sendServiceError } from "../errors.js";
import { pageFields, resolvePage } from "../pagination.js";

/**
 * The catalogue hands back the same page object while its cache holds it, so the JSON written for
 * it (by the route's own response serializer, which keeps only the schema's fields) is kept beside
 * it and dropped with it: a cached page is serialized once, not on every request.
 */
const serializedPages = new WeakMap<object, string>();

export default defineRoutes((app, deps) => {
  app.get(
    "/markets/list",
    {
      schema: {
        summary: "Markets, hottest first",
        description:
          "Every market but drafts, by hotScore (decayed recent volume and views), then newest first. `pageSize` above 100 is truncated to 100.",
        tags: ["Markets"],
        querystring: MarketListQuery,
        response: partnerResponses(MarketListPage),
      },
    },
    async (request, reply) => {
      const page = resolvePage(request.query.page, request.query.pageSize);
      if (!page.ok) return sendServiceError(reply, page.error);
      const { categoryId, status } = request.query;
      const found = await deps.catalogue.list({ categoryId, status }, page.value);
      let body = serializedPages.get(found);
      if (body === undefined) {
        const serialize = reply.getSerializationFunction("200");
        if (serialize === undefined) throw new Error("GET /markets/list has no 200 response schema");
        const envelope: Record<string, unknown> = {
          ...ok({
            ...pageFields(page.value, found.total),
            records: found.records,
            totalRow: null,
            empty: found.records.length === 0,
          }),
        };
        body = serialize(envelope);
        serializedPages.set(found, body);
      }
      // Already serialized by the route's schema: sent as is (the typed reply expects the object).
      return (reply as FastifyReply).type("application/json; charset=utf-8").send(body);
    },
  );
});
