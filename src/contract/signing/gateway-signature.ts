// The cryptographic half of the gateway, shared by the SDK signer and the server verifier.

import * as nodeCrypto from "node:crypto";
import { createHash, createHmac, createSecretKey, type KeyObject } from "node:crypto";

/** Secrets whose imported HMAC key is kept; past this the cache starts afresh (one partner per entry). */
export const hmacKeysCachedMax = 4_096;
const hmacKeys = new Map<string, KeyObject>();

// Handing createHmac a string makes Node import the key again on every request; a KeyObject made
// once per secret skips that, which is a measurable share of the gateway's cost per request.
function hmacKeyOf(appSecret: string): KeyObject {
  let key = hmacKeys.get(appSecret);
  if (key === undefined) {
    if (hmacKeys.size >= hmacKeysCachedMax) hmacKeys.clear();
    key = createSecretKey(Buffer.from(appSecret, "utf8"));
    hmacKeys.set(appSecret, key);
  }
  return key;
}

/** base64(HMAC-SHA256(appSecret, stringToSign)), the value of `x-ca-signature`. */
export function computeSignature(appSecret: string, stringToSign: string): string {
  return createHmac("sha256", hmacKeyOf(appSecret)).update(stringToSign, "utf8").digest("base64");
}

/** base64(MD5(body)) of the exact bytes sent; the empty string for an empty or absent body. */
export function computeContentMd5(body: Uint8Array | undefined): string {
  if (body === undefined || body.length === 0) return "";
  return oneShotHash === undefined
    ? createHash("md5").update(body).digest("base64")
    : oneShotHash("md5", body, "base64");
}

// crypto.hash (Node 20.12+) digests in one native call, without a Hash object: 0.5 against 1.2
// µs a create-order body (docs/performance.md, issue #31 request path). The SDK may run on an
// older Node 20, which has no such export: hence the namespace import and the fallback above.
const oneShotHash = (nodeCrypto as { hash?: typeof nodeCrypto.hash }).hash;

/**
 * Compares two secret-derived strings in time that does not depend on where they differ: every
 * UTF-16 code unit is XOR-ed and OR-ed into one accumulator, with no early exit, as
 * crypto.timingSafeEqual does for bytes (without allocating two Buffers per request).
 */
export function constantTimeEqual(expected: string, given: string): boolean {
  // The length of a base64 HMAC is public, so an early exit on length leaks nothing secret.
  if (expected.length !== given.length) return false;
  let difference = 0;
  for (let index = 0; index < expected.length; index += 1) {
    difference |= expected.charCodeAt(index) ^ given.charCodeAt(index);
  }
  return difference === 0;
}
