// The OpenAPI document of a surface, generated from its route schemas and served at /docs.

import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";

export const docsPrefix = "/docs";

export interface DocsOptions {
  readonly title: string;
  readonly description: string;
}

export async function registerDocs(app: FastifyInstance, options: DocsOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.0.3",
      info: { title: options.title, description: options.description, version: "2.6.0" },
    },
  });
  await app.register(swaggerUi, { routePrefix: docsPrefix });
}

/** Documentation is readable without credentials: it describes the API and holds no data. */
export function isDocsRequest(url: string): boolean {
  return url === docsPrefix || url.startsWith(`${docsPrefix}/`) || url.startsWith(`${docsPrefix}?`);
}
