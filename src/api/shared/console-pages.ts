// The web console's pages (web/, built by Vite into web/dist during `npm install`): the market pages
// at `/` of the public listener, the operator's desk at `/` of the admin listener. The page itself
// is one HTML file kept in memory; its scripts and styles are content-hashed files under
// /console/assets/, served by @fastify/static and cached for good. When the build is missing
// (installed with --ignore-scripts, say), `/` says how to build it instead of failing.

import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";

export const consoleAssetsPrefix = "/console/assets/";
export const consoleBuildDirectory = new URL("../../../web/dist/", import.meta.url);

export type ConsolePage = "market" | "desk";

/** The page and its assets are public: the desk asks for the admin token itself. */
export function isConsoleRequest(url: string): boolean {
  return url === "/" || url.startsWith("/?") || url.startsWith(consoleAssetsPrefix);
}

const missingBuildPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>predex console not built</title></head>
<body><h1>The web console is not built</h1>
<p>Its files are made by <code>npm install</code> (or <code>npm run build:web</code>) into <code>web/dist</code>.
Run <code>npm run build:web</code> in the project folder and reload this page.</p>
<p>The APIs are not affected: see <a href="/docs">/docs</a>.</p></body></html>`;

function securityHeaders(page: ConsolePage): Record<string, string> {
  // Scripts and styles only from this listener; the market page's socket goes to this listener too.
  return {
    "content-security-policy":
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": page === "desk" ? "no-referrer" : "strict-origin-when-cross-origin",
    "cache-control": "no-cache",
  };
}

export interface ConsolePageOptions {
  /**
   * Answer `GET /` with Polymarket's health check, the JSON string "OK", to a client that does not
   * ask for HTML (clob-client's getOk and py-clob-client's get_ok accept any type); a browser asks
   * for text/html and gets the page.
   */
  readonly healthCheckForApiClients?: boolean;
}

/** Whether a request asks for a page: every browser navigation lists text/html in Accept. */
function asksForHtml(accept: string | undefined): boolean {
  return accept !== undefined && /\btext\/html\b/i.test(accept);
}

export async function registerConsolePage(
  app: FastifyInstance,
  page: ConsolePage,
  buildDirectory: URL = consoleBuildDirectory,
  options: ConsolePageOptions = {},
): Promise<void> {
  const htmlFile = new URL(`${page}.html`, buildDirectory);
  const assetsDirectory = new URL("assets/", buildDirectory);
  const built = existsSync(htmlFile) && existsSync(assetsDirectory);
  const html = built ? readFileSync(htmlFile, "utf8") : missingBuildPage;
  if (built) {
    await app.register(fastifyStatic, {
      root: fileURLToPath(assetsDirectory),
      prefix: consoleAssetsPrefix,
      // swagger-ui registers its own copy of the plugin: only one may decorate the reply.
      decorateReply: false,
      index: false,
      // Names carry a content hash: a changed file is a new name.
      immutable: true,
      maxAge: "365d",
    });
  } else {
    app.log.warn({ page }, "web console not built (web/dist missing); run npm run build:web");
  }
  app.get("/", { schema: { hide: true } }, async (request, reply) => {
    if (options.healthCheckForApiClients === true) {
      reply.header("vary", "accept");
      if (!asksForHtml(request.headers.accept))
        return reply.code(200).type("application/json; charset=utf-8").send('"OK"');
    }
    return reply
      .code(built ? 200 : 503)
      .headers(securityHeaders(page))
      .type("text/html; charset=utf-8")
      .send(html);
  });
}
