// The operator's API (DESIGN §5): bearer token, the current interface's envelope and codes, and
// every route file of ./routes registered with the shared dependencies.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify from "fastify";
import { routeUpgrades } from "../../realtime/http-upgrades.js";
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
import { adminSecurity, adminSecuritySchemes } from "../shared/security-schemes.js";
import type { TypeBoxApp } from "../shared/typebox-app.js";
import { createAdminGuard } from "./authentication.js";
import { createAdminHostCheck } from "./host-check.js";
import { probePaths } from "./routes/health.js";

export async function buildAdminApp(deps: PlatformDeps, adminToken: string): Promise<TypeBoxApp> {
  const app = Fastify({
    loggerInstance: deps.logger.child({ surface: "admin" }),
    bodyLimit: bodyBytesMax,
    ...listenerServerOptions(deps.config.listenerLimits, undefined, partnerClientError),
    // As on the signed host: ids are short, and a path parameter over this length or a malformed
    // %-escape is answered by the same error mapping in the admin envelope (400/1001), not with
    // Fastify's own `{statusCode, error, message}` body and its 414.
    routerOptions: { maxParamLength: 256 },
    frameworkErrors: handlePartnerError,
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as TypeBoxApp;
  app.setValidatorCompiler(exactNumberQueryCompiler);
  app.decorate("platform", deps);
  deps.metrics?.instrumentHttp(app, "admin");
  installRawBodyParsers(app, { jsonDecoding: "after-authentication" });
  app.setErrorHandler(handlePartnerError);
  app.setNotFoundHandler(partnerNotFoundHandler(trackRouteMethods(app)));
  declareQueryErrors(app);
  // Before anything else, the desk and the probes included: only names the listener serves.
  app.addHook("onRequest", createAdminHostCheck(deps.config.adminAllowedHosts));
  app.addHook("preValidation", createAdminGuard(adminToken));
  // No WebSocket here: a request that offers an upgrade (h2c) is served as the plain request it is.
  routeUpgrades(app.server);
  await registerDocs(app, {
    title: "predex operator API",
    description: "Bearer `PREDEX_ADMIN_TOKEN`. Bound to 127.0.0.1 by default.",
    securitySchemes: adminSecuritySchemes,
    // The guard lets the probes through without the token (authentication.ts), and only them.
    securityOf: (route) => (probePaths.has(route.url) ? [{}] : adminSecurity),
    serverDescription: "the operator API (PREDEX_ADMIN_PORT, loopback by default)",
  });
  await registerRouteFiles(app, deps, new URL("./routes/", import.meta.url));
  await registerConsolePage(app, "desk");
  return app;
}
