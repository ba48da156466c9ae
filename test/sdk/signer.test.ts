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
      "x-ca-signature",
      "x-ca-signature-headers",
    ]);
    assert.match(headers.date!, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
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
