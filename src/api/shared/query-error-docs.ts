// The current interface answers a query string it cannot deserialize with a text/plain 400 (spec
// 000 "Errors"), not the JSON envelope: handlePartnerError does so on the signed, public and admin
// listeners. Every route with a query schema whose errors reach that handler says so in its 400
// response, beside whatever JSON 400 the route itself gives, so the OpenAPI documents list what
// the routes answer. Routes of a scope with its own error handler (the Polymarket-compatible reads
// answer `{error}`) are left as they declare themselves.

import type { FastifyInstance, RouteOptions } from "fastify";
import { Type } from "typebox";

export const QueryErrorText = Type.String({
  description: "Query deserialize error: missing field `…` / invalid value for `…`: …",
});

type ResponseSchemas = Record<string | number, unknown>;

/**
 * Declares the text/plain 400 on every route registered on `app` from now on whose scope answers
 * with `app`'s error handler. Call after setErrorHandler and before the routes.
 */
export function declareQueryErrors(app: FastifyInstance): void {
  const listenerHandler = app.errorHandler;
  app.addHook("onRoute", function (this: FastifyInstance, route: RouteOptions) {
    const schema = route.schema;
    if (schema?.querystring === undefined) return;
    // A scope that set its own handler before its routes answers query errors its own way.
    if (this.errorHandler !== listenerHandler) return;
    const responses: ResponseSchemas = { ...((schema.response as ResponseSchemas | undefined) ?? {}) };
    const declared = responses[400];
    responses[400] = {
      description: "Invalid request: the query string as text/plain (spec 000), anything else as JSON",
      content: {
        ...(declared === undefined ? {} : { "application/json": { schema: declared } }),
        "text/plain": { schema: QueryErrorText },
      },
    };
    route.schema = { ...schema, response: responses };
  });
}
