// An Upgrade that is not a WebSocket upgrade is ignored and the request served as if it had not
// been offered (RFC 9110 §7.8): `curl --http2 http://…` sends `Upgrade: h2c` with every request,
// and must get what plain curl gets, on every listener, with or without a body, and the connection
// stays usable for the next request.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { signRequest } from "../../src/sdk/signer.js";
import type { SurfaceName } from "../../src/server.js";
import { type PartnerCredentials, startTestPlatform, type TestPlatform } from "./harness.js";
import { exchangeWire, type WireResponse, wireRequest } from "./raw-http.js";

let platform: TestPlatform;
let partner: PartnerCredentials;
before(async () => {
  platform = await startTestPlatform();
  partner = await platform.createPartner();
});
after(() => platform.close());

/** What curl --http2 adds to a request over plain http. */
const h2cOffer = [
  "connection: Upgrade, HTTP2-Settings",
  "upgrade: h2c",
  "http2-settings: AAMAAABkAARAAAAAAAIAAAAA",
];

function hostOf(surface: SurfaceName): string {
  return new URL(platform.addresses[surface]).host;
}

/** Sends the request twice on one connection, with the h2c offer, and returns both answers. */
async function twiceWithH2c(
  surface: SurfaceName,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string> = {},
  body = "",
): Promise<WireResponse[]> {
  const lines = (last: boolean) => [
    `${method} ${pathAndQuery} HTTP/1.1`,
    `host: ${hostOf(surface)}`,
    ...(last ? ["connection: close", "upgrade: h2c"] : h2cOffer),
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ...(body === "" ? [] : [`content-length: ${Buffer.byteLength(body)}`]),
  ];
  const wire = Buffer.concat([wireRequest(lines(false), body), wireRequest(lines(true), body)]);
  const exchange = await exchangeWire(platform.addresses[surface], wire);
  assert.equal(exchange.responses.length, 2, `${surface} ${pathAndQuery}: ${JSON.stringify(exchange)}`);
  return [...exchange.responses];
}

function assertServed(responses: WireResponse[], status: number, check: (body: string) => void): void {
  for (const response of responses) {
    assert.equal(response.status, status, response.body);
    assert.equal(response.headers.get("upgrade"), undefined);
    check(response.body);
  }
}

describe("a request that offers Upgrade: h2c", () => {
  it("is served normally on the public listener, GET and POST with a body", async () => {
    assertServed(await twiceWithH2c("public", "GET", "/time"), 200, (body) => assert.match(body, /^\d+$/));
    const books = await twiceWithH2c(
      "public",
      "POST",
      "/books",
      { "content-type": "application/json" },
      JSON.stringify([{ token_id: "123" }]),
    );
    assertServed(books, 200, (body) => assert.deepEqual(JSON.parse(body), []));
  });

  it("is served normally on the signed host: documentation, a signed GET, a signed POST with a body", async () => {
    assertServed(await twiceWithH2c("gateway", "GET", "/docs/json"), 200, (body) =>
      assert.match(JSON.parse(body).openapi, /^3\./),
    );
    // The same signed request is sent twice on the connection: signed without a nonce (as spec
    // 000's example is), which the gateway then does not hold against a second use.
    const list = signRequest(partner, {
      method: "GET",
      path: "/markets/list",
      query: { page: 1 },
      nonce: false,
    });
    assertServed(await twiceWithH2c("gateway", "GET", list.pathAndQuery, list.headers), 200, (body) =>
      assert.equal(JSON.parse(body).code, 0),
    );
    const registration = JSON.stringify({
      userEmail: "h2c@example.com",
      merchantId: partner.merchantId,
      marchantUserId: "h2c",
    });
    const register = signRequest(partner, {
      method: "POST",
      path: "/user/register",
      body: Buffer.from(registration),
      nonce: false,
    });
    assertServed(
      await twiceWithH2c("gateway", "POST", register.pathAndQuery, register.headers, registration),
      200,
      (body) => assert.equal(JSON.parse(body).data.email, "h2c@example.com"),
    );
  });

  it("is served normally on the legacy and admin listeners", async () => {
    assertServed(await twiceWithH2c("legacy", "GET", "/api/market/openapi/market/list"), 200, (body) =>
      assert.equal(JSON.parse(body).code, 200),
    );
    assertServed(await twiceWithH2c("admin", "GET", "/healthz"), 200, (body) =>
      assert.equal(JSON.parse(body).data.status, "alive"),
    );
  });
});
