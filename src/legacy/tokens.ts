// The legacy interface's bearer tokens: JWT, HS256, 24 hours, naming the user and its merchant.
// The signing key is derived from the platform master key (HKDF), so every API node that shares
// the master key accepts the same tokens and no extra secret has to be kept.

import { hkdfSync } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";

export const legacyTokenTtlSeconds = 86_400;
export const legacyTokenIssuer = "predex-legacy";
const tokenKeyInfo = "predex legacy jwt hs256 v1";
const tokenKeyBytes = 32;
/** Longer is not a token we issued; refusing early keeps a forged header from costing work. */
const tokenLengthMax = 2_048;

export interface LegacyTokenClaims {
  readonly userId: number;
  readonly merchantId: number;
}

export interface IssuedToken {
  readonly token: string;
  readonly expiresIn: number;
}

export interface LegacyTokens {
  issue(claims: LegacyTokenClaims, nowMs: number): Promise<IssuedToken>;
  /** The claims, or undefined for a token that is malformed, forged, expired or not ours. */
  verify(token: string, nowMs: number): Promise<LegacyTokenClaims | undefined>;
}

export function deriveLegacyTokenKey(masterKey: Buffer): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", masterKey, Buffer.alloc(0), tokenKeyInfo, tokenKeyBytes));
}

export function createLegacyTokens(key: Uint8Array): LegacyTokens {
  return {
    async issue(claims, nowMs) {
      const issuedAt = Math.floor(nowMs / 1000);
      const token = await new SignJWT({ merchantId: String(claims.merchantId) })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(String(claims.userId))
        .setIssuer(legacyTokenIssuer)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + legacyTokenTtlSeconds)
        .sign(key);
      return { token, expiresIn: legacyTokenTtlSeconds };
    },
    async verify(token, nowMs) {
      if (token.length > tokenLengthMax) return undefined;
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ["HS256"],
          issuer: legacyTokenIssuer,
          currentDate: new Date(nowMs),
          requiredClaims: ["sub", "exp", "merchantId"],
        });
        const userId = Number(payload.sub);
        const merchantId = Number(payload.merchantId);
        if (!Number.isSafeInteger(userId) || !Number.isSafeInteger(merchantId)) return undefined;
        return { userId, merchantId };
      } catch (error) {
        if (error instanceof joseErrors.JOSEError) return undefined;
        throw error;
      }
    },
  };
}
