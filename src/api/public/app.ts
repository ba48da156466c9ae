// The public host (spec 000 `{public_ws_base_url}`): no signature, API key or cookie. Its routes
// (/prices-history) and the /ws/market channel are added by their own parts in ./routes.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyServerOptions } from "fastify";
import type { PlatformDeps } from "../deps.js";
import {
  bodyBytesMax,
  handlePartnerError,
  partnerClientError,
  partnerNotFoundHandler,
} from "../partner/errors.js";
import { registerConsolePage } from "../shared/console-pages.js";
import { registerDocs } from "../shared/docs.js";
import { exactNumberQueryCompiler } from "../shared/exact-query-compiler.js";
import { listenerServerOptions } from "../shared/listener-limits.js";
import { trackRouteMethods } from "../shared/method-not-allowed.js";
import { declareQueryErrors } from "../shared/query-error-docs.js";
import { installRawBodyParsers } from "../shared/raw-body.js";
import { registerRouteFiles } from "../shared/route-files.js";
import type { TypeBoxApp } from "../shared/typebox-app.js";

export async function buildPublicApp(
  deps: PlatformDeps,
  options: { https?: { cert: Buffer; key: Buffer } } = {},
): Promise<TypeBoxApp> {
  const serverOptions: FastifyServerOptions = {
    loggerInstance: deps.logger.child({ surface: "public" }),
    bodyLimit: bodyBytesMax,
    ...listenerServerOptions(deps.config.listenerLimits, options.https, partnerClientError),
    // As on the signed host: a path parameter over this length or a malformed %-escape is answered
    // in the envelope (400/1001), not with Fastify's own `{error, code, message}` body and its 414.
    routerOptions: { maxParamLength: 256 },
    frameworkErrors: handlePartnerError,
  };
  const app = Fastify(serverOptions).withTypeProvider<TypeBoxTypeProvider>() as unknown as TypeBoxApp;
  app.setValidatorCompiler(exactNumberQueryCompiler);
  app.decorate("platform", deps);
  deps.metrics?.instrumentHttp(app, "public");
  installRawBodyParsers(app, { jsonDecoding: "eager" });
  // Same conventions as the signed host: current envelope, 404/1404, text/plain query errors.
  app.setErrorHandler(handlePartnerError);
  app.setNotFoundHandler(partnerNotFoundHandler(trackRouteMethods(app)));
  declareQueryErrors(app);
  await registerDocs(app, {
    title: "predex public market data",
    description:
      "No credentials: price history, the public market WebSocket, and Polymarket-compatible CLOB reads (/book, /price, /midpoint, /markets, …).",
    serverDescription: "`{public_ws_base_url}`: public market data, no credentials",
  });
  await registerRouteFiles(app, deps, new URL("./routes/", import.meta.url));
  // A browser gets the market pages at `/`; a Polymarket client's health check gets "OK".
  await registerConsolePage(app, "market", undefined, { healthCheckForApiClients: true });
  return app;
}
