// Signs the legacy authorize call (spec 001 "Authorize call"): SHA256withRSA with the merchant's
// PKCS#8 private key over the six-part content, built by the same function the server verifies
// with. The body is signed as the exact text that is sent, never a second serialization.

import { createPrivateKey, type KeyObject, randomBytes } from "node:crypto";
import { authorizeSignedContent, signAuthorizeContent } from "../../contract/signing/authorize-signature.js";

export interface AuthorizeSignInput {
  readonly apiKey: string;
  readonly privateKey: string | KeyObject;
  readonly method: string;
  readonly pathAndQuery: string;
  /** The exact body text that will be sent. */
  readonly body: string;
  /** Defaults to the current time in milliseconds. */
  readonly timestampMs?: number;
  /** Defaults to 32 random hex characters. */
  readonly nonce?: string;
}

export interface SignedAuthorize {
  readonly headers: Record<string, string>;
  /** What was signed, to compare when the server refuses the signature. */
  readonly signedContent: string;
}

export function newNonce(): string {
  return randomBytes(16).toString("hex");
}

export function signAuthorizeRequest(input: AuthorizeSignInput): SignedAuthorize {
  const timestamp = String(input.timestampMs ?? Date.now());
  const nonce = input.nonce ?? newNonce();
  const signedContent = authorizeSignedContent({
    method: input.method,
    pathAndQuery: input.pathAndQuery,
    body: input.body,
    timestamp,
    nonce,
  });
  const key = typeof input.privateKey === "string" ? createPrivateKey(input.privateKey) : input.privateKey;
  return {
    headers: {
      "content-type": "application/json",
      "x-api-key": input.apiKey,
      "x-signature": signAuthorizeContent(key, signedContent),
      "x-timestamp": timestamp,
      "x-nonce": nonce,
    },
    signedContent,
  };
}
