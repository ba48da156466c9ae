// The earlier, token-authenticated interface (spec 001, `/api/...`): its envelope, the rate limit,
// the authorize call and bearer JWT checks (authentication.ts), and the routes of ./routes. The
// listener owns the legacy services (request queue executor, merchant notifier) and runs them
// while it is up.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyServerOptions } from "fastify";
import { createLegacyServices, type LegacyServices } from "../../legacy/services.js";
import { routeUpgrades } from "../../realtime/http-upgrades.js";
import type { PlatformDeps } from "../deps.js";
import { bodyBytesMax } from "../partner/errors.js";
import { registerDocs } from "../shared/docs.js";
import { exactNumberQueryCompiler } from "../shared/exact-query-compiler.js";
import { listenerServerOptions } from "../shared/listener-limits.js";
import { trackRouteMethods } from "../shared/method-not-allowed.js";
import { hookSecurity } from "../shared/openapi-operations.js";
import { installRawBodyParsers } from "../shared/raw-body.js";
import { registerRouteFiles } from "../shared/route-files.js";
import { legacySecuritySchemes } from "../shared/security-schemes.js";
import type { TypeBoxApp } from "../shared/typebox-app.js";
import { installLegacyCallerHooks } from "./authentication.js";
import {
  fromRejection,
  handleLegacyError,
  legacyClientError,
  legacyErrors,
  legacyNotFoundHandler,
  parameterError,
  sendLegacyError,
} from "./errors.js";

/** Spec 001 "Limits": a request terminates after 30 seconds. */
export const legacyRequestTimeoutMs = 30_000;

declare module "fastify" {
  interface FastifyInstance {
    /** The legacy interface's services, for its route files. */
    legacyServices: LegacyServices;
  }
}

export interface LegacyAppOptions {
  readonly https?: { cert: Buffer; key: Buffer };
  /** Overrides for tests: a shorter request timeout or faster webhook retries. */
  readonly requestTimeoutMs?: number;
  readonly notifierPolicy?: Parameters<typeof createLegacyServices>[1]["notifierPolicy"];
}

export async function buildLegacyApp(
  deps: PlatformDeps,
  options: LegacyAppOptions = {},
): Promise<TypeBoxApp> {
  const requestTimeoutMs = options.requestTimeoutMs ?? legacyRequestTimeoutMs;
  const serverOptions: FastifyServerOptions = {
    loggerInstance: deps.logger.child({ surface: "legacy" }),
    bodyLimit: bodyBytesMax,
    // Receiving the request is bounded as on every listener (and answered in this envelope);
    // handling it is bounded by the hook below.
    ...listenerServerOptions(deps.config.listenerLimits, options.https, legacyClientError),
    // Path parameters up to 256 characters reach the route schemas (a result's fgRequestId may be
    // 128); a longer one, or a path that is not valid percent-encoding, is answered by
    // frameworkErrors in the legacy envelope, never with Fastify's own error body.
    routerOptions: { maxParamLength: 256 },
    frameworkErrors: (error, _request, reply) =>
      sendLegacyError(
        reply,
        parameterError(
          "path",
          error.code === "FST_ERR_BAD_URL" ? "is not a valid URL" : "a path segment is too long",
        ),
      ),
  };
  const app = Fastify(serverOptions).withTypeProvider<TypeBoxTypeProvider>() as unknown as TypeBoxApp;
  app.setValidatorCompiler(exactNumberQueryCompiler);
  // Before any route: the not-found handler answers 405 where a path has routes of other methods.
  const routes = trackRouteMethods(app);
  app.decorate("platform", deps);
  deps.metrics?.instrumentHttp(app, "legacy");
  const services = createLegacyServices(deps, {
    describeRejection: (rejection) => {
      const error = fromRejection(rejection);
      return { errorCode: Number(error.data.errorCode ?? error.status), msg: error.msg };
    },
    ...(options.notifierPolicy === undefined ? {} : { notifierPolicy: options.notifierPolicy }),
  });
  app.decorate("legacyServices", services);
  app.addHook("onReady", async () => services.start());
  app.addHook("onClose", async () => services.stop());
  installRawBodyParsers(app, { jsonDecoding: "eager" });
  // No WebSocket here: a request that offers an upgrade (h2c) is served as the plain request it is.
  routeUpgrades(app.server);
  installHandlingTimeout(app, requestTimeoutMs);
  await installLegacyCallerHooks(app, deps, services);
  app.setErrorHandler(handleLegacyError);
  app.setNotFoundHandler(legacyNotFoundHandler(routes));
  await registerDocs(app, {
    title: "predex legacy API",
    description: "The earlier interface: RSA-signed authorize, then a JWT bearer token.",
    securitySchemes: legacySecuritySchemes,
    // Each route's own preValidation authenticates it (authentication.ts marks them).
    securityOf: hookSecurity,
    serverDescription: "`{legacy_base_url}`: the earlier interface",
  });
  await registerRouteFiles(app, deps, new URL("./routes/", import.meta.url));
  return app;
}

/** A request still unanswered after the timeout gets 503 rather than hanging the client. */
function installHandlingTimeout(app: TypeBoxApp, timeoutMs: number): void {
  const timers = new WeakMap<object, NodeJS.Timeout>();
  app.addHook("onRequest", async (request, reply) => {
    const timer = setTimeout(() => {
      if (!reply.sent) sendLegacyError(reply, legacyErrors.requestTimeout);
    }, timeoutMs);
    timer.unref();
    timers.set(request, timer);
  });
  app.addHook("onResponse", async (request) => clearTimeout(timers.get(request)));
}
