// Properties of signer and verifier together: whatever the path, query, body and nonce, what the
// SDK signs the verifier accepts, unless a query key or value holds `&` or `=` (then it is refused
// whoever signed it, since the string-to-sign could not tell its parameters apart); two queries the
// verifier takes never share a signature; and changing one byte of the body or one query
// value after signing is always refused.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type AppKeyRecord, createGatewayVerifier } from "../../src/gateway/verifier.js";
import { signRequest } from "../../src/sdk/signer.js";

const credentials = { appKey: "app", appSecret: "secret", apiKey: "pdx_key" };
const record: AppKeyRecord = { appKey: "app", appSecret: "secret", partnerId: 1 };
const nowMs = Date.UTC(2026, 10, 22, 12, 0, 0);

function verifier() {
  return createGatewayVerifier({
    lookupAppKey: async (appKey) => (appKey === "app" ? record : undefined),
    nowMs: () => nowMs,
  });
}

const pathSegment = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
const queryText = fc.string({ unit: "grapheme", maxLength: 12 });
const query = fc.dictionary(fc.string({ unit: "grapheme", minLength: 1, maxLength: 8 }), queryText, {
  maxKeys: 5,
});

describe("sign then verify", () => {
  it("accepts every request the SDK signs", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(pathSegment, { minLength: 1, maxLength: 4 }),
        query,
        fc.option(fc.uint8Array({ minLength: 1, maxLength: 256 }), { nil: undefined }),
        fc.option(fc.uuid(), { nil: undefined }),
        async (segments, queryParams, body, nonce) => {
          const path = `/${segments.join("/")}`;
          const method = body === undefined ? "GET" : "POST";
          const sign = () =>
            signRequest(credentials, {
              method,
              path,
              query: queryParams,
              ...(body === undefined ? {} : { body }),
              ...(nonce === undefined ? {} : { nonce }),
              date: new Date(nowMs),
            });
          // A query whose key or value holds "&" or "=" has an ambiguous signature: the SDK signs
          // none (the gateway refuses such a query whatever its signature: the next property and
          // test/e2e/gateway-query-ambiguity.test.ts).
          const ambiguous = Object.entries(queryParams).some(([key, value]) => /[&=]/.test(key + value));
          if (ambiguous) {
            assert.throws(sign, TypeError);
            return;
          }
          const signed = sign();
          const verdict = await verifier().verify({
            method,
            url: signed.pathAndQuery,
            headers: signed.headers,
            rawBody: body,
          });
          assert.ok(verdict.ok, JSON.stringify({ path: signed.pathAndQuery, verdict }));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("never takes one query's signature for another query: parameters cannot be merged or split", async () => {
    // Decoded pairs; order matters only between repeated keys.
    const pairs = fc.array(
      fc.tuple(fc.constantFrom("a", "b", "a&b", "a=b"), fc.constantFrom("", "1", "2", "1&b=2", "=", "b")),
      { maxLength: 4 },
    );
    const sorted = (query: ReadonlyArray<readonly [string, string]>) =>
      [...query].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    await fc.assert(
      fc.asyncProperty(pairs, pairs, async (signedPairs, sentPairs) => {
        fc.pre(JSON.stringify(sorted(signedPairs)) !== JSON.stringify(sorted(sentPairs)));
        const query: Record<string, string[]> = {};
        for (const [key, value] of signedPairs) query[key] = [...(query[key] ?? []), value];
        const sign = () =>
          signRequest(credentials, { method: "GET", path: "/p", query, date: new Date(nowMs) });
        // A key or value holding "&" or "=" signs a line another query shares: the SDK signs none.
        if (signedPairs.some(([key, value]) => /[&=]/.test(key) || /[&=]/.test(value))) {
          assert.throws(sign, TypeError);
          return;
        }
        const signed = sign();
        // The captured signature, replayed on another query.
        const sentQuery = sentPairs.map(
          ([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`,
        );
        const verdict = await verifier().verify({
          method: "GET",
          url: sentQuery.length === 0 ? "/p" : `/p?${sentQuery.join("&")}`,
          headers: signed.headers,
          rawBody: undefined,
        });
        assert.equal(verdict.ok, false, JSON.stringify({ signed: signed.pathAndQuery, sent: sentQuery }));
      }),
      { numRuns: 500 },
    );
  });

  it("refuses a body changed in any one byte after signing", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 128 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        async (body, position, flip) => {
          const signed = signRequest(credentials, {
            method: "POST",
            path: "/p",
            body,
            date: new Date(nowMs),
          });
          const tampered = Uint8Array.from(body);
          const index = position % tampered.length;
          tampered[index] = tampered[index]! ^ flip;
          const verdict = await verifier().verify({
            method: "POST",
            url: signed.pathAndQuery,
            headers: signed.headers,
            rawBody: tampered,
          });
          assert.equal(verdict.ok, false);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("refuses a query value changed after signing", async () => {
    await fc.assert(
      fc.asyncProperty(queryText, queryText, async (signedValue, sentValue) => {
        fc.pre(signedValue !== sentValue);
        // The SDK signs no value holding "&" or "=" (the first property).
        fc.pre(!/[&=]/.test(signedValue));
        const signed = signRequest(credentials, {
          method: "GET",
          path: "/p",
          query: { q: signedValue },
          date: new Date(nowMs),
        });
        const url = `/p?q=${encodeURIComponent(sentValue)}`;
        const verdict = await verifier().verify({
          method: "GET",
          url,
          headers: signed.headers,
          rawBody: undefined,
        });
        assert.equal(verdict.ok, false);
      }),
      { numRuns: 200 },
    );
  });
});
