// The OpenAPI document of a surface, generated from its route schemas and served at /docs. Every
// operation gets an operationId and its security (openapi-operations.ts), and the document names
// its schemes and the listener's base URL (`servers`), so generated clients know where to call and
// how each call authenticates.

import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance, RouteOptions } from "fastify";
import { documentedSecurity, operationIdOf, type Security } from "./openapi-operations.js";
import type { SecurityScheme } from "./security-schemes.js";

export const docsPrefix = "/docs";

/** Answers any route of a listener may give, in that listener's envelope, whatever its operation. */
const everyRouteAnswers =
  "Any path: a method it does not have is 405 with `Allow`; a request not received in full within the listener's time (PREDEX_REQUEST_TIMEOUT_MS, default 30 s) is 408 and the connection closed.";

export interface DocsOptions {
  readonly title: string;
  readonly description: string;
  /** The schemes this listener's operations may require (components.securitySchemes). */
  readonly securitySchemes?: Readonly<Record<string, SecurityScheme>>;
  /** How one route authenticates, when its schema declares no `security` of its own; none by default. */
  readonly securityOf?: (route: RouteOptions) => Security;
  /** What `servers` says of the listener's URL, e.g. "`{base_url}`: the signed gateway". */
  readonly serverDescription: string;
}

/** Each app's base URL for `servers`, set once it listens (setDocsServer). */
const serverUrls = new WeakMap<FastifyInstance, string>();

export async function registerDocs(app: FastifyInstance, options: DocsOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.0.3",
      info: {
        title: options.title,
        description: `${options.description}\n\n${everyRouteAnswers}`,
        version: "2.6.0",
      },
      components: { securitySchemes: { ...options.securitySchemes } },
    },
    transform: ({ schema, url, route }) => {
      const declared = schema as { operationId?: string; security?: Security } | undefined;
      const security = declared?.security ?? documentedSecurity(options.securityOf?.(route) ?? [{}]);
      return {
        schema: {
          ...schema,
          operationId: declared?.operationId ?? operationIdOf(route.method, route.url),
          ...(security === undefined ? {} : { security }),
        } as typeof schema,
        url,
      };
    },
    transformObject: (documentObject) => {
      const document = (documentObject as { openapiObject: Record<string, unknown> }).openapiObject;
      const url = serverUrls.get(app);
      return url === undefined
        ? document
        : { ...document, servers: [{ url, description: options.serverDescription }] };
    },
  });
  await app.register(swaggerUi, { routePrefix: docsPrefix });
}

/**
 * The base URL partners reach this listener at (its configured PREDEX_*BASE_URL, else the address it
 * listens on), for the document's `servers`. Set before the first request can ask for the document.
 */
export function setDocsServer(app: FastifyInstance, url: string): void {
  serverUrls.set(app, url.replace(/\/+$/, ""));
}

/** Documentation is readable without credentials: it describes the API and holds no data. */
export function isDocsRequest(url: string): boolean {
  return url === docsPrefix || url.startsWith(`${docsPrefix}/`) || url.startsWith(`${docsPrefix}?`);
}
