// The signed host of spec 000: the gateway in front, the service conventions behind it, and every
// route file of ./routes registered with the shared dependencies.

import cookie from "@fastify/cookie";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyServerOptions } from "fastify";
import type { PlatformDeps } from "../deps.js";
import { registerDocs } from "../shared/docs.js";
import { exactNumberQueryCompiler } from "../shared/exact-query-compiler.js";
import { listenerServerOptions } from "../shared/listener-limits.js";
import { trackRouteMethods } from "../shared/method-not-allowed.js";
import { allOf, hookSecurity } from "../shared/openapi-operations.js";
import { declareQueryErrors } from "../shared/query-error-docs.js";
import { installRawBodyParsers } from "../shared/raw-body.js";
import { registerRouteFiles } from "../shared/route-files.js";
import { gatewaySecurity, gatewaySecuritySchemes } from "../shared/security-schemes.js";
import type { TypeBoxApp } from "../shared/typebox-app.js";
import { installPartnerAuthentication } from "./authentication.js";
import { bodyBytesMax, handlePartnerError, partnerClientError, partnerNotFoundHandler } from "./errors.js";
import { partnerRateLimitCheck } from "./rate-limit.js";

export interface PartnerAppOptions {
  readonly https?: { cert: Buffer; key: Buffer };
}

export async function buildPartnerApp(deps: PlatformDeps, options: PartnerAppOptions): Promise<TypeBoxApp> {
  const serverOptions: FastifyServerOptions = {
    loggerInstance: deps.logger.child({ surface: "gateway" }),
    bodyLimit: bodyBytesMax,
    // A request must arrive, headers and body, within the configured time; HTTP-level problems
    // (too slow, headers too large, not HTTP) are answered in the envelope.
    ...listenerServerOptions(deps.config.listenerLimits, options.https, partnerClientError),
    // Ids and cookies are short; a huge URL is refused by the HTTP layer before any work is done.
    routerOptions: { maxParamLength: 256 },
    // A path parameter over that length or a malformed %-escape is answered in the envelope
    // (400/1001), not with Fastify's own `{error, code, statusCode}` body and its 414.
    frameworkErrors: handlePartnerError,
  };
  const app = Fastify(serverOptions).withTypeProvider<TypeBoxTypeProvider>() as unknown as TypeBoxApp;
  // TypeBox's compiler converts query/params strings to numbers but never coerces a JSON body:
  // a string where a number is required is a 400 naming the field (DESIGN §8).
  app.setValidatorCompiler(exactNumberQueryCompiler);
  app.decorate("platform", deps);
  deps.metrics?.instrumentHttp(app, "gateway");
  installRawBodyParsers(app, { jsonDecoding: "after-authentication" });
  app.setErrorHandler(handlePartnerError);
  app.setNotFoundHandler(partnerNotFoundHandler(trackRouteMethods(app)));
  declareQueryErrors(app);
  await app.register(cookie);
  installPartnerAuthentication(app, deps, await partnerRateLimitCheck(app, deps));
  await registerDocs(app, {
    title: "predex partner API (signed gateway)",
    description:
      "Every request is signed (HMAC-SHA256 gateway signature) and carries `x-api-key`; user-scoped routes need the `predex_session` cookie. The string-to-sign carries the query decoded, so a query key or value may not contain `&` or `=`, even percent-encoded: such a query is refused before its signature is checked (400, text/plain `Query deserialize error: …`).",
    securitySchemes: gatewaySecuritySchemes,
    // The gateway checks every route; requireSession adds the cookie where it is used.
    securityOf: (route) => allOf(gatewaySecurity, hookSecurity(route)),
    serverDescription: "`{base_url}`: the signed gateway (REST, and the `/socket/*` channels)",
  });
  await registerRouteFiles(app, deps, new URL("./routes/", import.meta.url));
  return app;
}
