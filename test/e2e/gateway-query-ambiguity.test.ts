// The string-to-sign carries the query decoded (spec 000: "not URL-encoded"), so `?keyword=rain&
// searchBy=Creator` and `?keyword=rain%26searchBy%3DCreator` sign the same line: a replayer could
// turn a captured request's two parameters into one value, or one into two, under the same
// signature. The signed host refuses a query whose decoded keys or values hold `&` or `=`, before
// the signature is checked, with the spec's plain-text query error (400), on REST and on WebSocket
// upgrades alike.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { signRequest, signWebSocketUpgrade } from "../../src/sdk/signer.js";
import { type PartnerCredentials, startTestPlatform, type TestPlatform } from "./harness.js";
import { exchangeWire, wireRequest } from "./raw-http.js";

let platform: TestPlatform;
let partner: PartnerCredentials;
before(async () => {
  platform = await startTestPlatform();
  partner = await platform.createPartner();
});
after(() => platform.close());

async function get(pathAndQuery: string, headers: Record<string, string>) {
  return platform.raw("gateway", { path: pathAndQuery, headers });
}

function assertQueryRefused(answer: { status: number; headers: Headers; text: string }, name: string): void {
  assert.equal(answer.status, 400, answer.text);
  assert.match(answer.headers.get("content-type") ?? "", /^text\/plain/);
  assert.equal(
    answer.text,
    `Query deserialize error: invalid value for \`${name}\`: "&" and "=" may not appear in a query key or value, even percent-encoded`,
  );
}

describe("a signed query whose decoded parameters hold & or =", () => {
  it("is refused when a captured request's two parameters are replayed as one value", async () => {
    const captured = signRequest(partner, {
      method: "GET",
      path: "/search",
      query: { keyword: "rain", searchBy: "Creator" },
      // No nonce, as spec 000's example signs: the replay is then within its rights for 15 minutes.
      nonce: false,
    });
    assert.equal(captured.pathAndQuery, "/search?keyword=rain&searchBy=Creator");
    assert.equal((await get(captured.pathAndQuery, captured.headers)).status, 200);
    // The same signature, the two parameters merged into one value.
    const merged = await get("/search?keyword=rain%26searchBy%3DCreator", captured.headers);
    assertQueryRefused(merged, "keyword");
  });

  it("is refused however it is signed, in a value or a key, before the signature is looked at", async () => {
    // The SDK signs no such query (its signature would be ambiguous): sent with another query's
    // signature, and with none.
    const otherQuery = signRequest(partner, { method: "GET", path: "/search", query: { keyword: "rain" } });
    for (const query of [{ keyword: "a&b" }, { keyword: "a=b" }, { "key=word": "rain" }, { "a&b": "1" }]) {
      assert.throws(() => signRequest(partner, { method: "GET", path: "/search", query }), TypeError);
      const [[key, value]] = Object.entries(query) as [[string, string]];
      const pathAndQuery = `/search?${encodeURIComponent(key)}=${encodeURIComponent(value)}`;
      assertQueryRefused(await get(pathAndQuery, otherQuery.headers), key);
      // No signature at all: still the query's answer, not 401 Invalid Key.
      assertQueryRefused(await get(pathAndQuery, {}), key);
    }
  });

  it("is refused on a WebSocket upgrade too", async () => {
    const signed = signWebSocketUpgrade(partner, { path: "/socket/market-price", query: { marketId: "1" } });
    const { host } = new URL(platform.addresses.gateway);
    const exchange = await exchangeWire(
      platform.addresses.gateway,
      wireRequest([
        `GET /socket/market-price?marketId=${encodeURIComponent("1&x=2")} HTTP/1.1`,
        `host: ${host}`,
        "connection: Upgrade",
        "upgrade: websocket",
        "sec-websocket-version: 13",
        "sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==",
        ...Object.entries(signed.headers).map(([name, value]) => `${name}: ${value}`),
      ]),
    );
    const [answer] = exchange.responses;
    assert.equal(answer?.status, 400, JSON.stringify(exchange));
    assert.match(answer.headers.get("content-type") ?? "", /^text\/plain/);
    assert.match(answer.body, /^Query deserialize error: invalid value for `marketId`/);
  });

  it("leaves other percent-encoded characters alone", async () => {
    const signed = signRequest(partner, {
      method: "GET",
      path: "/search",
      query: { keyword: "rain? 100% +yes/no" },
    });
    const answer = await get(signed.pathAndQuery, signed.headers);
    assert.equal(answer.status, 200, answer.text);
  });
});
