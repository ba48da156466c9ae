// The cryptographic half of the gateway, shared by the SDK signer and the server verifier.

import * as nodeCrypto from "node:crypto";
import { createHash, createHmac } from "node:crypto";

/** Secrets whose HMAC pads are kept; past this the cache starts afresh (one partner per entry). */
export const hmacKeysCachedMax = 4_096;

/**
 * base64(HMAC-SHA256(appSecret, stringToSign)), the value of `x-ca-signature`.
 *
 * Where Node has `crypto.hash` (20.12+), the HMAC is RFC 2104's construction over it,
 * H((K ⊕ opad) ‖ H((K ⊕ ipad) ‖ m)), with the two padded keys computed once per secret. Node's own
 * `createHmac` initialises an OpenSSL HMAC context on every call, even with a cached KeyObject: as
 * cheap as this in a loop (1.9 µs), dearer between requests, when the caches are cold (in the
 * server, medians of 4,000 calls: 4.2–5.3 µs against 3.2–3.5 for this; docs/performance.md,
 * i31-req). Checked equal to `createHmac` for every key length and message by
 * test/gateway/hmac.property.test.ts. Older Node (the SDK may run there) uses `createHmac`.
 */
export function computeSignature(appSecret: string, stringToSign: string): string {
  if (oneShotHash === undefined) {
    return createHmac("sha256", appSecret).update(stringToSign, "utf8").digest("base64");
  }
  return hmacSha256Base64(oneShotHash, padsOf(appSecret), stringToSign);
}

const sha256BlockBytes = 64;
const sha256DigestBytes = 32;

/** The key XOR-ed with RFC 2104's ipad (0x36…) and opad (0x5c…), one SHA-256 block each. */
interface HmacPads {
  readonly inner: Buffer;
  readonly outer: Buffer;
}

const hmacPads = new Map<string, HmacPads>();

function padsOf(appSecret: string): HmacPads {
  let pads = hmacPads.get(appSecret);
  if (pads === undefined) {
    if (hmacPads.size >= hmacKeysCachedMax) hmacPads.clear();
    const secretBytes = Buffer.from(appSecret, "utf8");
    // A key longer than a block is first hashed (RFC 2104 §2); a shorter one is padded with zeros.
    const key = Buffer.alloc(sha256BlockBytes);
    (secretBytes.length > sha256BlockBytes
      ? createHash("sha256").update(secretBytes).digest()
      : secretBytes
    ).copy(key);
    const inner = Buffer.alloc(sha256BlockBytes);
    const outer = Buffer.alloc(sha256BlockBytes);
    for (let index = 0; index < sha256BlockBytes; index += 1) {
      inner[index] = key[index]! ^ 0x36;
      outer[index] = key[index]! ^ 0x5c;
    }
    pads = { inner, outer };
    hmacPads.set(appSecret, pads);
  }
  return pads;
}

// The inner hash's input (ipad block, then the message) is written into one reused buffer rather
// than concatenated: the verifier runs on every request. Messages past the cap get their own.
const scratchBytesMax = 64 * 1024;
let scratch = Buffer.allocUnsafe(4096);
const outerInput = Buffer.allocUnsafe(sha256BlockBytes + sha256DigestBytes);

function hmacSha256Base64(hash: typeof nodeCrypto.hash, pads: HmacPads, message: string): string {
  const length = sha256BlockBytes + Buffer.byteLength(message, "utf8");
  let input = scratch;
  if (length > input.length) {
    input = Buffer.allocUnsafe(length);
    if (length <= scratchBytesMax) scratch = input;
  }
  pads.inner.copy(input, 0);
  input.write(message, sha256BlockBytes, "utf8");
  const innerDigest = hash("sha256", input.subarray(0, length), "buffer") as unknown as Buffer;
  pads.outer.copy(outerInput, 0);
  innerDigest.copy(outerInput, sha256BlockBytes);
  return hash("sha256", outerInput, "base64");
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
