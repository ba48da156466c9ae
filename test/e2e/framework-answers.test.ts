// Each listener answers in its own envelope, never with Fastify's, and documents what it answers:
// an over-long path parameter is a 400 in the envelope (not FST_ERR_MAX_PARAM_LENGTH's 414); a
// method a path does not have is 405 with `Allow` (not 404); `pageSize=true` is a query error (not
// read as 1); every query a route deserializes can fail with the spec's text/plain 400, and the
// OpenAPI document says so wherever the route answers it (and says JSON where a route answers
// JSON); `POST /admin/withdrawals/{id}/retry` documents its 400.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { SurfaceName } from "../../src/server.js";
import { type LegacyPlatform, startLegacyPlatform } from "../legacy/fixtures.js";
import type { RawResponse } from "./harness.js";

let platform: LegacyPlatform;
let sessionCookie: string;
let legacyToken: string;
before(async () => {
  platform = await startLegacyPlatform();
  sessionCookie = (await platform.fundedUser("0")).client.sessionCookie!;
  const merchant = await platform.createMerchant();
  legacyToken = (await platform.legacyClient(merchant).authorize()).token;
});
after(() => platform.close());

/** A request to a listener with whatever credentials it needs (signature, admin token, JWT). */
function send(surface: SurfaceName, method: string, pathAndQuery: string): Promise<RawResponse> {
  const [path, query = ""] = pathAndQuery.split("?");
  switch (surface) {
    case "gateway":
      return platform.signed(platform.partner, {
        method,
        path: path!,
        query: queryParams(query),
        cookie: sessionCookie,
      });
    case "admin":
      return platform.raw("admin", {
        method,
        path: pathAndQuery,
        headers: { authorization: `Bearer ${platform.platform.adminToken}` },
      });
    case "legacy":
      return platform.raw("legacy", {
        method,
        path: pathAndQuery,
        headers: { authorization: `Bearer ${legacyToken}` },
      });
    case "public":
      return platform.raw("public", { method, path: pathAndQuery });
  }
}

/** A query string as the signer's parameters, a repeated name kept as a list. */
function queryParams(query: string): Record<string, string[]> {
  const params: Record<string, string[]> = {};
  for (const [name, value] of new URLSearchParams(query)) params[name] = [...(params[name] ?? []), value];
  return params;
}

function assertCurrentEnvelope(answer: RawResponse, status: number, code: number, where: string): void {
  assert.equal(answer.status, status, `${where}: ${answer.text}`);
  const body = answer.json as { code: number; message: string; data: unknown };
  assert.deepEqual([body.code, body.data], [code, null], `${where}: ${answer.text}`);
  assert.equal(typeof body.message, "string", where);
}

const longId = "1".repeat(300);

describe("framework answers in each listener's envelope", () => {
  it("answers an over-long path parameter with 400 in the envelope on every listener", async () => {
    for (const [surface, path] of [
      ["public", `/console-api/markets/${longId}`],
      ["public", `/console-api/markets/${longId}/trades`],
      ["gateway", `/markets/${longId}/detail`],
      ["admin", `/admin/markets/${longId}`],
    ] as const) {
      const answer = await send(surface, "GET", path);
      assertCurrentEnvelope(answer, 400, 1001, `${surface} ${path.slice(0, 40)}`);
      assert.doesNotMatch(answer.text, /FST_ERR/);
    }
    const legacy = await send("legacy", "GET", `/api/market/openapi/${longId}/outcome`);
    assert.equal(legacy.status, 400, legacy.text);
    assert.equal((legacy.json as { code: number }).code, 400);
  });

  it("answers a method a path does not have with 405 and Allow, in the envelope", async () => {
    for (const [surface, method, path, allow] of [
      ["gateway", "DELETE", "/markets/list", "GET, HEAD"],
      ["gateway", "PUT", "/ordering/create-order", "POST"],
      ["public", "POST", "/time", "GET, HEAD"],
      ["public", "DELETE", `/console-api/markets/1/trades`, "GET, HEAD"],
      ["admin", "DELETE", "/admin/markets", "GET, HEAD, POST"],
      ["admin", "GET", "/admin/markets/1/open", "POST"],
    ] as const) {
      const answer = await send(surface, method, path);
      assertCurrentEnvelope(answer, 405, 1405, `${surface} ${method} ${path}`);
      assert.equal(answer.headers.get("allow"), allow, `${surface} ${method} ${path}`);
      assert.equal(
        (answer.json as { message: string }).message,
        `method not allowed: ${method} (allowed: ${allow})`,
      );
    }
    const legacy = await send("legacy", "DELETE", "/api/market/openapi/market/list");
    assert.equal(legacy.status, 405, legacy.text);
    assert.equal(legacy.headers.get("allow"), "GET, HEAD");
    assert.deepEqual(legacy.json, {
      code: 405,
      msg: "method not allowed",
      data: { errorCode: 405, allowed: ["GET", "HEAD"] },
    });
    // A path no route has is still not found.
    assertCurrentEnvelope(await send("public", "POST", "/no/such/path"), 404, 1404, "public unknown path");
  });

  it("refuses pageSize=true (and page=true) instead of reading it as 1, on every listener", async () => {
    for (const field of ["pageSize", "page"]) {
      for (const [surface, path] of [
        ["gateway", "/markets/list"],
        ["public", "/console-api/markets"],
        ["admin", "/admin/markets"],
      ] as const) {
        const answer = await send(surface, "GET", `${path}?${field}=true`);
        const where = `${surface} ${path}?${field}=true`;
        assert.equal(answer.status, 400, `${where}: ${answer.text}`);
        assert.match(answer.headers.get("content-type") ?? "", /^text\/plain/, where);
        assert.equal(answer.text, `Query deserialize error: invalid value for \`${field}\`: must be integer`);
      }
      const legacy = await send("legacy", "GET", `/api/market/openapi/market/list?${field}=true`);
      assert.equal(legacy.status, 400, legacy.text);
      assert.deepEqual((legacy.json as { data: unknown }).data, {
        errorCode: 400,
        field,
        reason: "must be integer",
      });
    }
  });
});

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string }>;
  responses?: Record<string, { content?: Record<string, unknown> }>;
}

function operationsOf(surface: SurfaceName): Array<[string, string, OpenApiOperation]> {
  const document = platform.platform.apps[surface].swagger() as {
    paths: Record<string, Record<string, OpenApiOperation>>;
  };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(
      ([method, operation]) => [path, method, operation] as [string, string, OpenApiOperation],
    ),
  );
}

describe("the OpenAPI documents say what the routes answer", () => {
  it("declares the text/plain 400 on every GET with a query that answers it, and only there", async () => {
    let plainDeclared = 0;
    for (const surface of ["gateway", "public", "admin"] as const) {
      for (const [path, method, operation] of operationsOf(surface)) {
        const query = (operation.parameters ?? []).filter((parameter) => parameter.in === "query");
        if (method !== "get" || query.length === 0) continue;
        const declared = Object.keys(operation.responses?.["400"]?.content ?? {});
        // A repeated parameter is an array where one value is expected: a deserialization failure
        // for any field that takes one value.
        const concretePath = path.replace(/\{[^}]+\}/g, "1");
        let answered: string | undefined;
        for (const { name } of query) {
          const answer = await send(surface, "GET", `${concretePath}?${name}=1&${name}=2`);
          if (answer.status !== 400) continue;
          answered = (answer.headers.get("content-type") ?? "").split(";")[0];
          break;
        }
        const where = `${surface} GET ${path} declares ${JSON.stringify(declared)}`;
        assert.ok(answered !== undefined, `${where}: no query parameter could be made to fail`);
        assert.ok(declared.includes(answered), `${where}, answered ${answered}`);
        if (answered === "text/plain") plainDeclared += 1;
      }
    }
    // The issue counted 23 such operations on the signed, public and admin listeners.
    assert.ok(plainDeclared >= 23, `text/plain 400 declared and answered on ${plainDeclared} operations`);
  });

  it("declares the 400 of POST /admin/withdrawals/{id}/retry, which it answers without a chain", async () => {
    const [, , retry] = operationsOf("admin").find(
      ([path, method]) => path === "/admin/withdrawals/{id}/retry" && method === "post",
    )!;
    assert.ok(retry.responses?.["400"]?.content?.["application/json"] !== undefined, JSON.stringify(retry));
    const answer = await send("admin", "POST", "/admin/withdrawals/1/retry");
    assertCurrentEnvelope(answer, 400, 1001, "retry without a chain");
  });
});
