// GET /metrics: the Prometheus text exposition of the platform's metrics (src/metrics), behind the
// admin token like every other admin route (a scraper sends `Authorization: Bearer …`). A platform
// built without metrics (the benches' baseline) has no such route.

import { Type } from "typebox";
import { ErrorEnvelope } from "../../../contract/partner/envelope.js";
import { defineRoutes } from "../../shared/typebox-app.js";

export default defineRoutes((app, deps) => {
  const metrics = deps.metrics;
  if (metrics === undefined) return;
  app.get(
    "/metrics",
    {
      schema: {
        summary: "Prometheus metrics (text exposition format 0.0.4)",
        tags: ["Operations"],
        response: { 200: Type.String(), 401: ErrorEnvelope },
      },
    },
    async (_request, reply) => {
      const { contentType, body } = await metrics.scrape();
      return reply.type(contentType).send(body);
    },
  );
});
