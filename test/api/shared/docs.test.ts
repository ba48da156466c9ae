// The document rule of src/api/shared/docs.ts and openapi-operations.ts on a small app: a route
// without an operationId gets one from its method and path (so a route added later is covered with
// nothing to declare), a declared one is kept; a route behind a marked hook carries that hook's
// security on top of the surface's, one without carries the surface's only; `servers` is the URL
// set for the app.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Fastify, { type FastifyReply, type FastifyRequest } from "fastify";
import { registerDocs, setDocsServer } from "../../../src/api/shared/docs.js";
import {
  allOf,
  hookSecurity,
  markSecurity,
  operationIdOf,
} from "../../../src/api/shared/openapi-operations.js";

describe("operationIdOf", () => {
  it("is the method and the path's words, parameters as By<Name>, surface prefixes left out", () => {
    assert.equal(operationIdOf("POST", "/ordering/create-orders"), "postOrderingCreateOrders");
    assert.equal(operationIdOf("GET", "/markets/:marketId/detail"), "getMarketsByMarketIdDetail");
    assert.equal(operationIdOf("POST", "/ordering/claim_all"), "postOrderingClaimAll");
    assert.equal(operationIdOf("GET", "/markets/:condition_id"), "getMarketsByConditionId");
    assert.equal(operationIdOf("POST", "/api/order/openapi/order/submit"), "postOrderOrderSubmit");
    assert.equal(operationIdOf("POST", "/admin/markets/:id/open"), "postMarketsByIdOpen");
    assert.equal(operationIdOf(["GET", "POST"], "/prices"), "getOrPostPrices");
  });
});

describe("a surface's document", () => {
  it("gives every route an operationId and its hooks' security, and names the server", async () => {
    const app = Fastify();
    const requireThing = markSecurity(
      async (_request: FastifyRequest, _reply: FastifyReply) => undefined,
      [{ thing: [] }],
    );
    await registerDocs(app, {
      title: "test",
      description: "test",
      securitySchemes: {
        base: { type: "apiKey", in: "header", name: "x-base", description: "on every route" },
        thing: { type: "apiKey", in: "cookie", name: "thing", description: "where the hook is" },
      },
      securityOf: (route) => allOf([{ base: [] }], hookSecurity(route)),
      serverDescription: "the test listener",
    });
    app.post("/ordering/amend-order", { preHandler: requireThing }, async () => ({}));
    app.get("/markets/:marketId", async () => ({}));
    app.get("/named", { schema: { operationId: "somethingElse" } }, async () => ({}));
    await app.ready();
    setDocsServer(app, "https://api.example.com/partner/");
    const document = app.swagger() as unknown as {
      servers: { url: string }[];
      paths: Record<string, Record<string, { operationId: string; security?: unknown }>>;
    };
    assert.deepEqual(
      [
        document.paths["/ordering/amend-order"]!.post,
        document.paths["/markets/{marketId}"]!.get,
        document.paths["/named"]!.get,
      ].map((operation) => [operation!.operationId, operation!.security]),
      [
        ["postOrderingAmendOrder", [{ base: [], thing: [] }]],
        ["getMarketsByMarketId", [{ base: [] }]],
        ["somethingElse", [{ base: [] }]],
      ],
    );
    assert.deepEqual(document.servers, [
      { url: "https://api.example.com/partner", description: "the test listener" },
    ]);
    await app.close();
  });

  it("leaves security out where nothing is required, and keeps 'or nothing' where a credential is optional", async () => {
    const app = Fastify();
    const optional = markSecurity(async () => undefined, [{ token: [] }, {}]);
    await registerDocs(app, {
      title: "test",
      description: "test",
      securitySchemes: { token: { type: "http", scheme: "bearer", description: "optional here" } },
      securityOf: hookSecurity,
      serverDescription: "the test listener",
    });
    app.get("/open", async () => ({}));
    app.get("/either", { preValidation: optional }, async () => ({}));
    await app.ready();
    const document = app.swagger() as unknown as { paths: Record<string, { get: { security?: unknown } }> };
    assert.equal("security" in document.paths["/open"]!.get, false);
    assert.deepEqual(document.paths["/either"]!.get.security, [{ token: [] }, {}]);
    await app.close();
  });
});
