// The earlier, token-authenticated interface (spec 001, `/api/...`). Its authorize call, JWT
// checks and routes are added by their own part in ./routes; this is the listener's skeleton.

import { type TypeBoxTypeProvider, TypeBoxValidatorCompiler } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyServerOptions } from "fastify";
import type { PlatformDeps } from "../deps.js";
import { bodyBytesMax } from "../partner/errors.js";
import { registerDocs } from "../shared/docs.js";
import { installRawBodyParsers } from "../shared/raw-body.js";
import { registerRouteFiles } from "../shared/route-files.js";
import type { TypeBoxApp } from "../shared/typebox-app.js";
import { handleLegacyError, handleLegacyNotFound } from "./errors.js";

export async function buildLegacyApp(
  deps: PlatformDeps,
  options: { https?: { cert: Buffer; key: Buffer } } = {},
): Promise<TypeBoxApp> {
  const serverOptions: FastifyServerOptions = {
    loggerInstance: deps.logger.child({ surface: "legacy" }),
    bodyLimit: bodyBytesMax,
    ...(options.https === undefined ? {} : { https: options.https }),
  };
  const app = Fastify(serverOptions).withTypeProvider<TypeBoxTypeProvider>() as unknown as TypeBoxApp;
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  app.decorate("platform", deps);
  installRawBodyParsers(app, { jsonDecoding: "eager" });
  app.setErrorHandler(handleLegacyError);
  app.setNotFoundHandler(handleLegacyNotFound);
  await registerDocs(app, {
    title: "predex legacy API",
    description: "The earlier interface: RSA-signed authorize, then a JWT bearer token.",
  });
  await registerRouteFiles(app, deps, new URL("./routes/", import.meta.url));
  return app;
}
