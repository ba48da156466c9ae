// The random values of MFA (email codes, recovery codes, tickets) and how they are kept. Email and
// recovery codes are short enough to brute-force from a plain hash, so they are kept as an HMAC
// under a key derived from the master key, bound to the user: a leaked database alone does not
// reveal them. Tickets are 256-bit random and need only SHA-256, like session tokens.

import { createHmac, hkdfSync, randomBytes, randomInt } from "node:crypto";
import { sha256Hex } from "../identity/credentials.js";
import { emailCodeDigits, recoveryCodeCount, recoveryCodeLength, ticketBytes } from "./policy.js";

/** Crockford-style alphabet: no I, L, O or U, so a code read aloud or retyped is not misread. */
const recoveryAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const ticketPrefix = "mfat_";
const codeHashKeyInfo = "predex/mfa/code-hash/v1";
const codeHashKeyBytes = 32;

export type HashedCodeKind = "email" | "recovery";

export interface CodeHasher {
  hash(userId: number, kind: HashedCodeKind, code: string): string;
}

/** Derives the HMAC key from the master key, so no other secret has to be stored. */
export function createCodeHasher(masterKey: Buffer): CodeHasher {
  const key = Buffer.from(hkdfSync("sha256", masterKey, Buffer.alloc(0), codeHashKeyInfo, codeHashKeyBytes));
  return {
    hash(userId, kind, code) {
      return createHmac("sha256", key).update(`${kind}:${userId}:${code}`, "utf8").digest("hex");
    },
  };
}

export function createEmailCode(): string {
  return String(randomInt(0, 10 ** emailCodeDigits)).padStart(emailCodeDigits, "0");
}

export function isEmailCodeShaped(code: string): boolean {
  return code.length === emailCodeDigits && /^[0-9]+$/.test(code);
}

/** Codes shown as `XXXXX-XXXXX`. */
export function createRecoveryCodes(): string[] {
  return Array.from({ length: recoveryCodeCount }, () => {
    const characters = Array.from({ length: recoveryCodeLength }, () => recoveryAlphabet[randomInt(32)]);
    const half = recoveryCodeLength / 2;
    return `${characters.slice(0, half).join("")}-${characters.slice(half).join("")}`;
  });
}

/**
 * The canonical form a recovery code is hashed in: case, spaces and hyphens do not matter, and the
 * letters people confuse with digits are read as those digits. Undefined when it cannot be one.
 */
export function normalizeRecoveryCode(code: string): string | undefined {
  const compact = code.toUpperCase().replace(/[\s-]/g, "").replace(/[IL]/g, "1").replace(/O/g, "0");
  if (compact.length !== recoveryCodeLength) return undefined;
  for (const character of compact) if (!recoveryAlphabet.includes(character)) return undefined;
  return compact;
}

export function createTicket(): string {
  return `${ticketPrefix}${randomBytes(ticketBytes).toString("base64url")}`;
}

export function hashTicket(ticket: string): string {
  return sha256Hex(ticket);
}
