// The OpenAPI documents every listener serves at /docs/json are usable by tools (issue #29 point 5):
// every operation has a unique camelCase operationId; every security requirement names a scheme the
// document declares; the listener's base URL is in `servers`; and the security each operation
// declares is the truth, checked against the running server: an operation documented as needing a
// credential refuses a request without it, and one documented without is not refused for lack of it.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { SurfaceName } from "../../src/server.js";
import {
  type PartnerCredentials,
  type RawResponse,
  startTestPlatform,
  type TestPlatform,
} from "./harness.js";

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly operationId?: unknown;
  readonly security?: Record<string, string[]>[];
  readonly parameters?: { in: string; name: string; required?: boolean; schema?: JsonSchema }[];
  readonly requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

interface JsonSchema {
  readonly type?: string;
  readonly $ref?: string;
  readonly anyOf?: JsonSchema[];
  readonly oneOf?: JsonSchema[];
  readonly enum?: unknown[];
  readonly const?: unknown;
  readonly required?: string[];
  readonly properties?: Record<string, JsonSchema>;
  readonly items?: JsonSchema;
  readonly minItems?: number;
  readonly minLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly example?: unknown;
  readonly examples?: unknown[];
}

interface OpenApiDocument {
  readonly openapi: string;
  readonly servers?: { url: string; description?: string }[];
  readonly components: {
    schemas?: Record<string, JsonSchema>;
    securitySchemes?: Record<string, Record<string, unknown>>;
  };
  readonly paths: Record<string, Record<string, Omit<Operation, "method" | "path">>>;
}

const surfaces: readonly SurfaceName[] = ["gateway", "public", "legacy", "admin"];
const gatewaySchemes = [
  "gatewayAppKey",
  "gatewaySignature",
  "gatewaySignatureHeaders",
  "gatewayDate",
  "partnerApiKey",
];

let platform: TestPlatform;
let partner: PartnerCredentials;
const documents = new Map<SurfaceName, OpenApiDocument>();

before(async () => {
  platform = await startTestPlatform();
  partner = await platform.createPartner();
  for (const surface of surfaces) {
    const response = await platform.raw(surface, { path: "/docs/json" });
    assert.equal(response.status, 200, surface);
    documents.set(surface, response.json as OpenApiDocument);
  }
});
after(() => platform.close());

function operationsOf(surface: SurfaceName): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(documents.get(surface)!.paths)) {
    for (const [method, operation] of Object.entries(methods))
      operations.push({ ...operation, method, path });
  }
  return operations;
}

const isPublic = (operation: Operation) =>
  operation.security === undefined ||
  operation.security.some((requirement) => Object.keys(requirement).length === 0);
const requires = (operation: Operation, scheme: string) =>
  operation.security?.every((requirement) => scheme in requirement) === true;

/**
 * A value the schema accepts, so that a request passes validation and meets the route's session
 * check: the schema's example when it has one, else the first choice of a union or enum, "1" or a
 * number within the bounds for a scalar, and the required fields of an object.
 */
function sampleOf(schema: JsonSchema | undefined, document: OpenApiDocument): unknown {
  if (schema === undefined) return {};
  if (schema.$ref !== undefined)
    return sampleOf(document.components.schemas?.[schema.$ref.split("/").at(-1)!], document);
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.[0] !== undefined) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum !== undefined) return schema.enum[0];
  const choice = schema.anyOf ?? schema.oneOf;
  if (choice !== undefined)
    return sampleOf(choice.find((option) => option.type !== "null") ?? choice[0], document);
  switch (schema.type) {
    case "string":
      return "1".repeat(Math.max(1, schema.minLength ?? 1));
    case "number":
    case "integer":
      return numberWithin(schema);
    case "boolean":
      return true;
    case "array":
      return Array.from({ length: schema.minItems ?? 0 }, () => sampleOf(schema.items, document));
    default:
      return Object.fromEntries(
        (schema.required ?? []).map((name) => [name, sampleOf(schema.properties?.[name], document)]),
      );
  }
}

/** 1 when the bounds allow it, else a number inside them (the middle of a bounded interval). */
function numberWithin(schema: JsonSchema): number {
  const low = schema.minimum ?? schema.exclusiveMinimum ?? Number.NEGATIVE_INFINITY;
  const high = schema.maximum ?? schema.exclusiveMaximum ?? Number.POSITIVE_INFINITY;
  const inside = (value: number) =>
    value >= low && value <= high && value !== schema.exclusiveMinimum && value !== schema.exclusiveMaximum;
  if (inside(1)) return 1;
  if (schema.minimum !== undefined && inside(schema.minimum)) return schema.minimum;
  if (Number.isFinite(low) && Number.isFinite(high)) {
    const middle = (low + high) / 2;
    return schema.type === "integer" ? Math.ceil(middle) : middle;
  }
  return Number.isFinite(low) ? low + 1 : high - 1;
}

/** The operation's path with "1" for each parameter, its required query with sample values, and a sample body. */
function sampleRequest(operation: Operation, document: OpenApiDocument) {
  const path = operation.path.replace(/\{[^}]+\}/g, "1");
  const query: Record<string, string> = {};
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === "query" && parameter.required === true)
      query[parameter.name] = String(sampleOf(parameter.schema, document));
  }
  const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
  const hasBody = !["get", "head", "delete"].includes(operation.method);
  const body = hasBody ? JSON.stringify(sampleOf(bodySchema, document)) : undefined;
  return { method: operation.method.toUpperCase(), path, query, body };
}

const withQuery = (path: string, query: Record<string, string>) =>
  Object.keys(query).length === 0 ? path : `${path}?${new URLSearchParams(query).toString()}`;

describe("the OpenAPI documents", () => {
  it("give every operation of every listener a unique camelCase operationId", () => {
    for (const surface of surfaces) {
      const operations = operationsOf(surface);
      assert.ok(operations.length > 10, `${surface} documents its operations`);
      const ids = operations.map((operation) => operation.operationId);
      for (const [index, id] of ids.entries())
        assert.match(
          String(id),
          /^[a-z][A-Za-z0-9]*$/,
          `${surface} ${operations[index]!.method} ${operations[index]!.path}`,
        );
      assert.equal(new Set(ids).size, ids.length, `${surface}: operationIds are unique`);
    }
    // The rule, on known paths.
    const gateway = new Map(
      operationsOf("gateway").map((operation) => [
        `${operation.method} ${operation.path}`,
        operation.operationId,
      ]),
    );
    assert.equal(gateway.get("post /ordering/create-order"), "postOrderingCreateOrder");
    assert.equal(gateway.get("get /markets/{marketId}/detail"), "getMarketsByMarketIdDetail");
    assert.equal(gateway.get("post /ordering/claim_all"), "postOrderingClaimAll");
  });

  it("declare every scheme their operations require, and name the listener's URL in servers", () => {
    for (const surface of surfaces) {
      const document = documents.get(surface)!;
      assert.match(document.openapi, /^3\.0\.\d$/);
      assert.equal(document.servers?.length, 1, surface);
      assert.equal(document.servers![0]!.url, platform.addresses[surface], `${surface} servers`);
      const schemes = document.components.securitySchemes ?? {};
      for (const [name, scheme] of Object.entries(schemes)) {
        assert.ok(
          typeof scheme.description === "string" && scheme.description.length > 0,
          `${name} is described`,
        );
        if (scheme.type === "apiKey") {
          assert.ok(["header", "query", "cookie"].includes(String(scheme.in)), name);
          assert.equal(typeof scheme.name, "string", name);
        } else assert.deepEqual([scheme.type, scheme.scheme], ["http", "bearer"], name);
      }
      const used = new Set<string>();
      for (const operation of operationsOf(surface)) {
        for (const requirement of operation.security ?? []) {
          for (const [name, scopes] of Object.entries(requirement)) {
            assert.ok(name in schemes, `${surface} ${operation.path}: ${name} is declared`);
            assert.deepEqual(scopes, []);
            used.add(name);
          }
        }
      }
      assert.deepEqual(
        [...used].sort(),
        Object.keys(schemes).sort(),
        `${surface}: every declared scheme is used`,
      );
    }
    assert.match(
      String(documents.get("gateway")!.components.securitySchemes!.gatewaySignature!.description),
      /HMAC-SHA256[\s\S]*string-to-sign[\s\S]*spec 000/,
    );
  });

  it("say the signed host's operations all need the gateway signature and API key, as an unsigned request finds", async () => {
    const document = documents.get("gateway")!;
    for (const operation of operationsOf("gateway")) {
      for (const scheme of gatewaySchemes)
        assert.ok(requires(operation, scheme), `${operation.path} requires ${scheme}`);
      const request = sampleRequest(operation, document);
      const answer = await platform.raw("gateway", {
        method: request.method,
        path: withQuery(request.path, request.query),
        ...(request.body === undefined
          ? {}
          : { body: request.body, headers: { "content-type": "application/json" } }),
      });
      assert.ok(
        [400, 401].includes(answer.status) && /Invalid (Key|Signature)/.test(answer.text),
        `${operation.method} ${operation.path}: ${answer.status} ${answer.text}`,
      );
    }
  });

  it("say which of the signed host's operations need the session cookie, as a signed request without one finds", async () => {
    const document = documents.get("gateway")!;
    let sessionOperations = 0;
    for (const operation of operationsOf("gateway")) {
      const request = sampleRequest(operation, document);
      const answer = await platform.signed(partner, {
        method: request.method,
        path: request.path,
        query: request.query,
        ...(request.body === undefined ? {} : { body: request.body }),
      });
      const missingCookie = answer.status === 401 && answer.text.includes("Missing Cookie header");
      const name = `${operation.method} ${operation.path}: ${answer.status} ${answer.text.slice(0, 200)}`;
      if (requires(operation, "session")) {
        sessionOperations += 1;
        assert.ok(missingCookie, name);
      } else assert.ok(!missingCookie, name);
    }
    assert.ok(sessionOperations > 15);
  });

  it("say which admin operations need the bearer token, as a request without one finds", async () => {
    const document = documents.get("admin")!;
    for (const operation of operationsOf("admin")) {
      const request = sampleRequest(operation, document);
      const answer = await platform.raw("admin", {
        method: request.method,
        path: withQuery(request.path, request.query),
        ...(request.body === undefined
          ? {}
          : { body: request.body, headers: { "content-type": "application/json" } }),
      });
      const name = `${operation.method} ${operation.path}: ${answer.status}`;
      if (isPublic(operation)) assert.notEqual(answer.status, 401, name);
      else {
        assert.ok(requires(operation, "adminToken"), name);
        assert.equal(answer.status, 401, name);
      }
    }
    assert.deepEqual(
      operationsOf("admin")
        .filter(isPublic)
        .map((operation) => operation.path)
        .sort(),
      ["/healthz", "/readyz"],
    );
  });

  it("say how each legacy operation authenticates: the JWT, the JWT or nothing, the RSA-signed authorize, or nothing", async () => {
    const document = documents.get("legacy")!;
    const call = (operation: Operation, headers: Record<string, string>): Promise<RawResponse> => {
      const request = sampleRequest(operation, document);
      return platform.raw("legacy", {
        method: request.method,
        path: withQuery(request.path, request.query),
        headers: {
          ...(request.body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        ...(request.body === undefined ? {} : { body: request.body }),
      });
    };
    const kinds = new Map<string, string[]>();
    for (const operation of operationsOf("legacy")) {
      const anonymous = await call(operation, {});
      const withBadToken = await call(operation, { authorization: "Bearer not-a-token" });
      const name = `${operation.method} ${operation.path}: ${anonymous.status} ${anonymous.text.slice(0, 200)}`;
      const requirements = (operation.security ?? []).map((requirement) =>
        Object.keys(requirement).sort().join("+"),
      );
      const kind = requirements.join(" | ") || "none";
      kinds.set(kind, [...(kinds.get(kind) ?? []), operation.path]);
      switch (kind) {
        case "legacyToken":
          assert.equal(anonymous.status, 401, name);
          assert.equal(withBadToken.status, 401, name);
          break;
        case "legacyToken | ":
          assert.notEqual(anonymous.status, 401, name);
          assert.equal(withBadToken.status, 401, name);
          break;
        case "legacyApiKey+legacyNonce+legacySignature+legacyTimestamp":
          assert.equal(anonymous.status, 400, name);
          assert.match(anonymous.text, /X-API-KEY/, name);
          break;
        case "none":
          assert.notEqual(anonymous.status, 401, name);
          break;
        default:
          assert.fail(`${operation.path}: unexpected security ${kind}`);
      }
    }
    assert.deepEqual(kinds.get("legacyApiKey+legacyNonce+legacySignature+legacyTimestamp"), [
      "/api/user/openapi/authorize",
    ]);
    assert.deepEqual(kinds.get("none"), ["/api/market/openapi/category"]);
  });

  it("say the public listener needs nothing", () => {
    for (const operation of operationsOf("public")) assert.ok(isPublic(operation), operation.path);
  });
});
