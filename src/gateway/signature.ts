// The cryptographic half of the gateway, shared by the SDK signer and the server verifier.

import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** base64(HMAC-SHA256(appSecret, stringToSign)), the value of `x-ca-signature`. */
export function computeSignature(appSecret: string, stringToSign: string): string {
  return createHmac("sha256", appSecret).update(stringToSign, "utf8").digest("base64");
}

/** base64(MD5(body)) of the exact bytes sent; the empty string for an empty or absent body. */
export function computeContentMd5(body: Uint8Array | undefined): string {
  if (body === undefined || body.length === 0) return "";
  return createHash("md5").update(body).digest("base64");
}

/** Compares two secrets-derived strings in time that does not depend on where they differ. */
export function constantTimeEqual(expected: string, given: string): boolean {
  const expectedBytes = Buffer.from(expected, "utf8");
  const givenBytes = Buffer.from(given, "utf8");
  // The length of a base64 HMAC is public, so an early exit on length leaks nothing secret.
  if (expectedBytes.length !== givenBytes.length) return false;
  return timingSafeEqual(expectedBytes, givenBytes);
}
