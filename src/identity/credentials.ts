// Generation and hashing of the partner's credentials and of session tokens. Every value is drawn
// from the operating system's CSPRNG; long-lived bearer values are stored only as SHA-256.

import * as nodeCrypto from "node:crypto";
import { createHash, randomBytes } from "node:crypto";

export interface GeneratedCredentials {
  readonly appKey: string;
  readonly appSecret: string;
  readonly apiKey: string;
}

export function generatePartnerCredentials(): GeneratedCredentials {
  return {
    // The APP Key is an identifier, not a secret; 12 bytes make collisions practically impossible.
    appKey: randomBytes(12).toString("hex"),
    appSecret: randomBytes(32).toString("base64url"),
    apiKey: `pdx_${randomBytes(32).toString("base64url")}`,
  };
}

export function generateSessionToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * A fast hash is right here: the values hashed are 256-bit random tokens, not passwords, so there is
 * nothing to brute-force and the per-request cost must stay tiny.
 */
export function sha256Hex(value: string): string {
  return oneShotHash === undefined
    ? createHash("sha256").update(value, "utf8").digest("hex")
    : oneShotHash("sha256", value, "hex");
}

// crypto.hash (Node 20.12+) hashes in one native call, without a Hash object: 0.4 against 1.0–1.3
// µs a session token or API key (docs/performance.md, issue #31 request path). Node 20 before
// 20.12 has no such export, hence the namespace import and the fallback above.
const oneShotHash = (nodeCrypto as { hash?: typeof nodeCrypto.hash }).hash;
