// The authorize call's signature (spec 001 "Authentication"): SHA256withRSA, PKCS#1 v1.5, base64,
// over six parts joined by newlines. One pure function builds the content; the SDK's signer and the
// server's verifier both call it, so they cannot drift apart.

import { createPrivateKey, createPublicKey, createSign, createVerify, type KeyObject } from "node:crypto";

/** Line 2 of the signed content is always this, whatever the request's own header says. */
export const signedContentType = "application/json";
export const signatureAlgorithm = "RSA-SHA256";

export interface AuthorizeSignatureInput {
  readonly method: string;
  /** No scheme or host; with the query string when there is one, exactly as sent. */
  readonly pathAndQuery: string;
  /** The exact body text sent; empty when there is none. */
  readonly body: string;
  /** Milliseconds since the epoch, as the `X-Timestamp` header carries it. */
  readonly timestamp: string;
  readonly nonce: string;
}

export function authorizeSignedContent(input: AuthorizeSignatureInput): string {
  return [
    input.method.toUpperCase(),
    signedContentType,
    input.pathAndQuery,
    input.body,
    input.timestamp,
    input.nonce,
  ].join("\n");
}

/** base64 SHA256withRSA of the content with a PKCS#8 private key (PEM). */
export function signAuthorizeContent(privateKeyPem: string | KeyObject, content: string): string {
  const key = typeof privateKeyPem === "string" ? createPrivateKey(privateKeyPem) : privateKeyPem;
  return createSign(signatureAlgorithm).update(content, "utf8").sign(key, "base64");
}

/** False for a wrong signature, a malformed one, or a key that cannot verify. */
export function verifyAuthorizeSignature(
  publicKey: string | KeyObject,
  content: string,
  signatureBase64: string,
): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signatureBase64)) return false;
  try {
    const key = typeof publicKey === "string" ? createPublicKey(publicKey) : publicKey;
    return createVerify(signatureAlgorithm)
      .update(content, "utf8")
      .verify(key, Buffer.from(signatureBase64, "base64"));
  } catch {
    return false;
  }
}
