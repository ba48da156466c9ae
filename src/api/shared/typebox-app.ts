// The Fastify instance type every surface's route files receive: TypeBox schemas give both the
// runtime validation and the handler's static types.

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from "fastify";
import type { PlatformDeps } from "../deps.js";

export type TypeBoxApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** A route file's default export: registers its routes on the surface's app. */
export type RoutePlugin = (app: TypeBoxApp, deps: PlatformDeps) => void | Promise<void>;

/** Identity function that gives a route file's default export its type. */
export function defineRoutes(plugin: RoutePlugin): RoutePlugin {
  return plugin;
}
