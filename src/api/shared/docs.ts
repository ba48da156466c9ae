// The OpenAPI document of a surface, generated from its route schemas and served at /docs.

import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";

export const docsPrefix = "/docs";

/** Answers any route of a listener may give, in that listener's envelope, whatever its operation. */
const everyRouteAnswers =
  "Any path: a method it does not have is 405 with `Allow`; a request not received in full within the listener's time (PREDEX_REQUEST_TIMEOUT_MS, default 30 s) is 408 and the connection closed.";

export interface DocsOptions {
  readonly title: string;
  readonly description: string;
}

export async function registerDocs(app: FastifyInstance, options: DocsOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.0.3",
      info: {
        title: options.title,
        description: `${options.description}\n\n${everyRouteAnswers}`,
        version: "2.6.0",
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: docsPrefix });
}

/** Documentation is readable without credentials: it describes the API and holds no data. */
export function isDocsRequest(url: string): boolean {
  return url === docsPrefix || url.startsWith(`${docsPrefix}/`) || url.startsWith(`${docsPrefix}?`);
}
