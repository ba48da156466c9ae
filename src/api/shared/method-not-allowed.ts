// A method a route does not have is 405 with `Allow` (RFC 9110 §15.5.6), not 404: Fastify answers
// any method it has no route for as not found. Every listener records the methods of its route
// paths as they are registered, and its not-found handler asks here whether the path has routes
// under other methods before it says "not found".

import type { FastifyInstance } from "fastify";

interface RoutePath {
  /** Path segments; `undefined` matches any one non-empty segment (a parameter). */
  readonly segments: readonly (string | undefined)[];
  /** The pattern ends in `*`: it matches whatever follows. */
  readonly wildcard: boolean;
  readonly methods: Set<string>;
}

export class RouteMethods {
  readonly #paths = new Map<string, RoutePath>();

  /** Records a route as Fastify registers it (`/admin/markets/:id/open`, `/docs/*`). */
  record(url: string, methods: readonly string[]): void {
    let path = this.#paths.get(url);
    if (path === undefined) {
      const parts = url.split("/");
      const wildcard = parts.at(-1) === "*";
      if (wildcard) parts.pop();
      path = {
        segments: parts.map((part) => (part.includes(":") ? undefined : part)),
        wildcard,
        methods: new Set(),
      };
      this.#paths.set(url, path);
    }
    for (const method of methods) path.methods.add(method.toUpperCase());
    // Fastify answers HEAD wherever it answers GET.
    if (path.methods.has("GET")) path.methods.add("HEAD");
  }

  /** The methods some route has at this request path (its query ignored), sorted; none if no route has it. */
  allowedAt(requestUrl: string): string[] {
    const queryStart = requestUrl.indexOf("?");
    const segments = (queryStart === -1 ? requestUrl : requestUrl.slice(0, queryStart)).split("/");
    const allowed = new Set<string>();
    for (const path of this.#paths.values()) {
      if (matches(path, segments)) for (const method of path.methods) allowed.add(method);
    }
    return [...allowed].sort();
  }
}

function matches(path: RoutePath, segments: readonly string[]): boolean {
  if (path.wildcard ? segments.length < path.segments.length : segments.length !== path.segments.length) {
    return false;
  }
  return path.segments.every((expected, index) => {
    const actual = segments[index]!;
    return expected === undefined ? actual !== "" : expected === actual;
  });
}

/** Records every route registered on `app` from now on (call before any route is added). */
export function trackRouteMethods(app: FastifyInstance): RouteMethods {
  const methods = new RouteMethods();
  app.addHook("onRoute", (route) => {
    methods.record(route.url, Array.isArray(route.method) ? route.method : [route.method]);
  });
  return methods;
}
