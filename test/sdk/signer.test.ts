import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { signRequest, signWebSocketUpgrade } from "../../src/sdk/signer.js";

const credentials = { appKey: "app", appSecret: "secret", apiKey: "pdx_key" };

describe("signer", () => {
  it("sends every header the spec requires for a bodyless GET", () => {
    const { headers } = signRequest(credentials, { method: "GET", path: "/user/1" });
    assert.deepEqual(Object.keys(headers).sort(), [
      "accept",
      "date",
      "x-api-key",
      "x-ca-key",
      "x-ca-nonce",
      "x-ca-signature",
      "x-ca-signature-headers",
    ]);
    assert.match(headers.date!, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it("signs a fresh x-ca-nonce into every request by default, so none can be replayed", () => {
    const body = Buffer.from('{"a":1}', "utf8");
    const first = signRequest(credentials, { method: "POST", path: "/ordering/create-order", body });
    const second = signRequest(credentials, { method: "POST", path: "/ordering/create-order", body });
    const nonce = first.headers["x-ca-nonce"]!;
    assert.match(nonce, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/u, "a UUID");
    assert.notEqual(second.headers["x-ca-nonce"], nonce, "a new one each time");
    assert.equal(first.headers["x-ca-signature-headers"], "x-api-key,x-ca-nonce");
    assert.ok(first.stringToSign.includes(`\nx-api-key:pdx_key\nx-ca-nonce:${nonce}\n`), "and it is signed");
    assert.notEqual(first.headers["x-ca-signature"], second.headers["x-ca-signature"]);
  });

  it("signs the nonce given, or none with nonce: false (spec 000's example: x-api-key alone)", () => {
    const given = signRequest(credentials, { method: "GET", path: "/x", nonce: "n-1" });
    assert.equal(given.headers["x-ca-nonce"], "n-1");
    const none = signRequest(credentials, { method: "GET", path: "/x", nonce: false });
    assert.equal(none.headers["x-ca-nonce"], undefined);
    assert.equal(none.headers["x-ca-signature-headers"], "x-api-key");
    assert.ok(!none.stringToSign.includes("x-ca-nonce"));
  });

  it("signs a fresh nonce into every WebSocket upgrade too, beside the cookie", () => {
    const upgrade = signWebSocketUpgrade(credentials, { path: "/socket/user-info", cookie: "c=1" });
    assert.equal(upgrade.headers["x-ca-signature-headers"], "cookie,x-api-key,x-ca-nonce");
    assert.ok(upgrade.headers["x-ca-nonce"]!.length > 0);
    const market = signWebSocketUpgrade(credentials, { path: "/socket/market-price", nonce: false });
    assert.equal(market.headers["x-ca-signature-headers"], "x-api-key");
  });

  it("sends the cookie on REST without signing it", () => {
    const signed = signRequest(credentials, {
      method: "GET",
      path: "/user/profile",
      cookie: "predex_session=t",
    });
    assert.equal(signed.headers.cookie, "predex_session=t");
    assert.ok(!signed.stringToSign.includes("cookie:"));
  });

  it("lists signed headers sorted: cookie, x-api-key, x-ca-nonce", () => {
    const signed = signWebSocketUpgrade(credentials, {
      path: "/socket/user-info",
      cookie: "c=1",
      nonce: "n",
    });
    assert.equal(signed.headers["x-ca-signature-headers"], "cookie,x-api-key,x-ca-nonce");
    assert.ok(signed.stringToSign.includes("\ncookie:c=1\nx-api-key:pdx_key\nx-ca-nonce:n\n"));
  });

  it("repeats array query values and skips undefined ones", () => {
    const signed = signRequest(credentials, {
      method: "GET",
      path: "/x",
      query: { b: [2, 1], a: undefined },
    });
    assert.equal(signed.pathAndQuery, "/x?b=2&b=1");
    assert.ok(signed.stringToSign.endsWith("\n/x?b=2&b=1"));
  });
});
