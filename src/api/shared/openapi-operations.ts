// What makes a surface's OpenAPI document usable by tools (issue #29 point 5): every operation's
// `operationId`, from one rule, and its `security`, from the hooks that really authenticate it.
//
// operationId: the HTTP method, then each path segment in PascalCase, a parameter as `By<Name>`;
// the segments `api`, `openapi` and `admin` name the surface, not the operation, and are left out:
//   GET  /markets/:marketId/detail                → getMarketsByMarketIdDetail
//   POST /ordering/claim_all                      → postOrderingClaimAll
//   POST /api/order/openapi/order/submit          → postOrderOrderSubmit
//   POST /admin/markets/:id/open                  → postMarketsByIdOpen
// Stable (it changes only when the path or method does) and unique in a document (two routes
// never share a method and a path). A route may declare its own `schema.operationId`; the
// documents' test checks that every id is unique.
//
// security: an authenticating hook (a preHandler such as requireSession, a preValidation such as
// requireLegacyToken) is marked with the requirement it enforces (`markSecurity`); a surface adds
// what it checks on every route (the gateway's signature). So a new route that uses an existing
// hook is documented right with nothing to declare.

import type { RouteOptions } from "fastify";

/** One way to be let in: every named scheme at once (OpenAPI's Security Requirement Object). */
export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;
/** The ways to be let in, any one of them; `[{}]` among them means "or without credentials". */
export type Security = readonly SecurityRequirement[];

/** Path segments that name the surface rather than the operation. */
const surfaceSegments: ReadonlySet<string> = new Set(["api", "openapi", "admin"]);

const pascal = (word: string): string => (word === "" ? "" : word[0]!.toUpperCase() + word.slice(1));

/** The operationId of a route without one of its own (see the rule above). */
export function operationIdOf(method: string | readonly string[], url: string): string {
  const methods = (typeof method === "string" ? [method] : [...method]).map((name) => name.toLowerCase());
  const words: string[] = [];
  for (const segment of url.split("/")) {
    if (segment === "" || surfaceSegments.has(segment)) continue;
    const parameter = segment.startsWith(":") || segment.startsWith("{");
    const parts = segment.split(/[^A-Za-z0-9]+/).filter((part) => part !== "");
    words.push((parameter ? "By" : "") + parts.map(pascal).join(""));
  }
  return (
    methods[0]! +
    methods
      .slice(1)
      .map((name) => `Or${pascal(name)}`)
      .join("") +
    words.join("")
  );
}

const securityMark = Symbol("predex.openapi.security");
type Marked = { [securityMark]?: Security };

/** Marks an authenticating hook with what it requires, for the documents; returns the hook. */
export function markSecurity<Hook extends object>(hook: Hook, security: Security): Hook {
  (hook as Marked)[securityMark] = security;
  return hook;
}

/** Every requirement of `a` together with every one of `b` (both checks apply). */
export function allOf(a: Security, b: Security): Security {
  return a.flatMap((left) => b.map((right) => ({ ...left, ...right })));
}

/** What the route's marked hooks require, all together; `[{}]` (nothing) when none is marked. */
export function hookSecurity(route: RouteOptions): Security {
  let security: Security = [{}];
  for (const hooks of [route.onRequest, route.preValidation, route.preHandler]) {
    for (const hook of [hooks ?? []].flat()) {
      const marked = (hook as Marked)[securityMark];
      if (marked !== undefined) security = allOf(security, marked);
    }
  }
  return security;
}

/** The document's form: none at all is left out (no credentials), otherwise the list as it is. */
export function documentedSecurity(security: Security): Security | undefined {
  return security.every((requirement) => Object.keys(requirement).length === 0) ? undefined : security;
}
