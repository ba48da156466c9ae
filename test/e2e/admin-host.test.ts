// The admin listener answers only requests addressed to it by a loopback name, an IP address, or a
// name the operator lists in PREDEX_ADMIN_ALLOWED_HOSTS. A web page on evil.example whose DNS name
// is rebound to 127.0.0.1 reaches the listener from the operator's own browser with
// `Host: evil.example`: refused (403 in the admin envelope), token or not, desk included. The desk
// still loads on 127.0.0.1, localhost and [::1].

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestPlatform, type TestPlatform } from "./harness.js";
import { exchangeWire, type WireResponse, wireRequest } from "./raw-http.js";

let platform: TestPlatform;
let port: string;
before(async () => {
  platform = await startTestPlatform({
    env: { PREDEX_ADMIN_ALLOWED_HOSTS: "admin.internal, Ops.Example" },
  });
  port = new URL(platform.addresses.admin).port;
});
after(() => platform.close());

/** One request to the admin listener (always reached on 127.0.0.1) with the given Host header. */
async function withHost(host: string, path: string, token = true): Promise<WireResponse> {
  const exchange = await exchangeWire(
    platform.addresses.admin,
    wireRequest([
      `GET ${path} HTTP/1.1`,
      `host: ${host}`,
      "connection: close",
      ...(token ? [`authorization: Bearer ${platform.platform.adminToken}`] : []),
    ]),
  );
  assert.equal(exchange.responses.length, 1, JSON.stringify(exchange));
  return exchange.responses[0]!;
}

describe("the admin listener's Host check", () => {
  it("refuses a name it does not serve, with the token, on every path, in the admin envelope", async () => {
    for (const host of [
      "evil.example",
      `evil.example:${port}`,
      `127.0.0.1.evil.example:${port}`,
      "localhost.evil.example",
      "admin.internal.evil.example",
    ]) {
      for (const path of ["/admin/partners", "/", "/healthz", "/docs/json", "/no/such/path"]) {
        const answer = await withHost(host, path);
        assert.equal(answer.status, 403, `${host} ${path}: ${answer.body}`);
        assert.deepEqual(JSON.parse(answer.body), {
          code: 1403,
          message: `forbidden: the admin listener does not serve the host "${host.replace(/:\d+$/, "")}"; list it in PREDEX_ADMIN_ALLOWED_HOSTS`,
          data: null,
        });
      }
    }
  });

  it("serves the desk and the API on loopback names and IP addresses", async () => {
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      "LOCALHOST.",
      "127.0.0.2",
      `10.1.2.3:${port}`,
      `[fd00::5]:${port}`,
    ]) {
      const desk = await withHost(host, "/", false);
      assert.equal(desk.status, 200, `${host} /: ${desk.body.slice(0, 200)}`);
      assert.match(desk.headers.get("content-type") ?? "", /^text\/html/);
      const partners = await withHost(host, "/admin/partners");
      assert.equal(partners.status, 200, `${host}: ${partners.body}`);
    }
  });

  it("serves the names listed in PREDEX_ADMIN_ALLOWED_HOSTS, in any case", async () => {
    for (const host of [`admin.internal:${port}`, "ops.example", "OPS.EXAMPLE"]) {
      const answer = await withHost(host, "/admin/partners");
      assert.equal(answer.status, 200, `${host}: ${answer.body}`);
    }
  });
});
