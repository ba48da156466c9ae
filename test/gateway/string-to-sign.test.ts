// Known-answer vectors for the string-to-sign and the signature. The expected signatures were
// computed outside this codebase (Python hmac/hashlib), so a change that makes the SDK and the
// verifier agree with each other but not with the spec still fails here.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { computeContentMd5, computeSignature } from "../../src/contract/signing/gateway-signature.js";
import {
  buildStringToSign,
  canonicalPathAndQuery,
  formatGatewayDate,
  parseGatewayDate,
  splitRequestTarget,
  stringToSignForHeader,
} from "../../src/contract/signing/string-to-sign.js";
import { signRequest, signWebSocketUpgrade } from "../../src/sdk/signer.js";

const appSecret = "app-secret-123";
const credentials = { appKey: "app-key", appSecret, apiKey: "pdx_test" };
const date = new Date("2026-11-22T10:00:00Z");
const registerBody = '{"userEmail":"a@example.com","merchantId":"1","marchantUserId":"u-1"}';

describe("string-to-sign known answers", () => {
  it("signs a bodyless GET with the two empty lines present", () => {
    const stringToSign = buildStringToSign({
      method: "get",
      accept: "application/json",
      contentMd5: "",
      contentType: "",
      date: "2026-11-22 10:00:00",
      signedHeaders: [["x-api-key", "pdx_test"]],
      pathAndQuery: "/user/profile",
    });
    assert.equal(
      stringToSign,
      "GET\napplication/json\n\n\n2026-11-22 10:00:00\nx-api-key:pdx_test\n/user/profile",
    );
    assert.equal(computeSignature(appSecret, stringToSign), "563kyuhr/qlhpaqKNc1xJhqFMnkDU+Bf60752M0FpPU=");
  });

  it("sorts query parameters by key and does not URL-encode them", () => {
    const signed = signRequest(credentials, {
      method: "GET",
      path: "/search",
      query: { pageSize: 20, page: 2, keyword: "a b/c" },
      date,
      nonce: false,
    });
    assert.equal(
      signed.stringToSign,
      "GET\napplication/json\n\n\n2026-11-22 10:00:00\nx-api-key:pdx_test\n/search?keyword=a b/c&page=2&pageSize=20",
    );
    assert.equal(signed.headers["x-ca-signature"], "mdXmAMjFbcQiYJGMDmFGbUYNsjT62OMxeRG2Sc4mLHk=");
    // What is sent is encoded; what is signed is not.
    assert.equal(signed.pathAndQuery, "/search?pageSize=20&page=2&keyword=a%20b%2Fc");
  });

  it("hashes the exact body bytes of a POST into content-md5", () => {
    const body = Buffer.from(registerBody, "utf8");
    assert.equal(computeContentMd5(body), "ZV7ORAqSqNQsXVLV+mk4sg==");
    const signed = signRequest(credentials, {
      method: "POST",
      path: "/user/register",
      body,
      date,
      nonce: false,
    });
    assert.equal(
      signed.stringToSign,
      "POST\napplication/json\nZV7ORAqSqNQsXVLV+mk4sg==\napplication/json\n2026-11-22 10:00:00\nx-api-key:pdx_test\n/user/register",
    );
    assert.equal(signed.headers["x-ca-signature"], "1u7/lTQ1mZs8JoVfgYmSxp6//6rMEmrg/LF/ca05i38=");
    assert.equal(signed.headers["content-md5"], "ZV7ORAqSqNQsXVLV+mk4sg==");
    assert.equal(signed.headers["content-type"], "application/json");
  });

  it("signs the cookie of a user channel upgrade on the line before x-api-key", () => {
    const signed = signWebSocketUpgrade(credentials, {
      path: "/socket/user-positions",
      query: { userId: 7, marketId: 3 },
      cookie: "predex_session=abc",
      date,
      nonce: false,
    });
    assert.equal(
      signed.stringToSign,
      "GET\napplication/json\n\n\n2026-11-22 10:00:00\ncookie:predex_session=abc\nx-api-key:pdx_test\n/socket/user-positions?marketId=3&userId=7",
    );
    assert.equal(signed.headers["x-ca-signature"], "yg+gl8d+I4/46jjLiGn5uj7GEY2P6UMYqWhPULz2LT8=");
    assert.equal(signed.headers["x-ca-signature-headers"], "cookie,x-api-key");
    assert.equal(signed.headers.cookie, "predex_session=abc");
  });

  it("signs the SDK's default nonce on the line after x-api-key", () => {
    const body = Buffer.from(registerBody, "utf8");
    const nonce = "0f8b6a8e-3c1d-4e5f-9a7b-2c4d6e8f0a1b";
    const signed = signRequest(credentials, { method: "POST", path: "/user/register", body, date, nonce });
    assert.equal(
      signed.stringToSign,
      `POST\napplication/json\nZV7ORAqSqNQsXVLV+mk4sg==\napplication/json\n2026-11-22 10:00:00\nx-api-key:pdx_test\nx-ca-nonce:${nonce}\n/user/register`,
    );
    assert.equal(signed.headers["x-ca-signature-headers"], "x-api-key,x-ca-nonce");
    assert.equal(signed.headers["x-ca-nonce"], nonce);
    // Computed apart: printf '<the string above>' | openssl dgst -sha256 -hmac app-secret-123 -binary | base64
    assert.equal(signed.headers["x-ca-signature"], "XKP3g3KoD3gsihWrh4k65eYG5bc6IsD+cCYOqirwB1o=");
  });

  it("hashes nothing for an empty body", () => {
    assert.equal(computeContentMd5(undefined), "");
    assert.equal(computeContentMd5(new Uint8Array()), "");
  });
});

describe("path and query line", () => {
  it("keeps the path as sent and writes a parameter without a value as its bare key", () => {
    assert.equal(
      canonicalPathAndQuery("/x", [
        ["flag", ""],
        ["a", "1"],
      ]),
      "/x?a=1&flag",
    );
  });

  it("keeps repeated keys in the order they were sent", () => {
    assert.equal(
      canonicalPathAndQuery("/x", [
        ["b", "2"],
        ["a", "z"],
        ["a", "y"],
      ]),
      "/x?a=z&a=y&b=2",
    );
  });

  it("decodes the query of a request target and leaves the path alone", () => {
    assert.deepEqual(splitRequestTarget("/a%2Fb?k=a%20b&j=x+y"), {
      path: "/a%2Fb",
      query: [
        ["k", "a b"],
        ["j", "x y"],
      ],
    });
    assert.deepEqual(splitRequestTarget("/plain"), { path: "/plain", query: [] });
  });

  it("shows newlines as # for the x-ca-error-message header", () => {
    assert.equal(stringToSignForHeader("GET\n\n/x"), "GET##/x");
  });
});

describe("date header", () => {
  it("is YYYY-MM-DD HH:mm:ss in UTC", () => {
    assert.equal(formatGatewayDate(new Date("2026-01-02T03:04:05.678Z")), "2026-01-02 03:04:05");
    assert.equal(parseGatewayDate("2026-01-02 03:04:05"), Date.UTC(2026, 0, 2, 3, 4, 5));
  });

  it("refuses ISO 8601, RFC 1123 and impossible dates", () => {
    for (const text of [
      "2026-01-02T03:04:05Z",
      "Fri, 02 Jan 2026 03:04:05 GMT",
      "2026-02-30 00:00:00",
      "2026-1-2 3:4:5",
    ]) {
      assert.equal(parseGatewayDate(text), undefined, text);
    }
  });

  it("knows every month's length, leap years included, as the calendar does", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 }), (year, month) => {
        const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
        const on = (day: number) =>
          `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")} 00:00:00`;
        assert.notEqual(parseGatewayDate(on(lastDay)), undefined);
        assert.equal(parseGatewayDate(on(lastDay + 1)), undefined);
      }),
    );
    assert.notEqual(parseGatewayDate("2024-02-29 12:00:00"), undefined);
    assert.equal(parseGatewayDate("2100-02-29 12:00:00"), undefined);
    assert.notEqual(parseGatewayDate("2000-02-29 12:00:00"), undefined);
  });
});
