// How each listener authenticates, as OpenAPI security schemes (components.securitySchemes) and the
// requirements its operations carry. The checks themselves are in each surface's authentication
// code; the hooks that make them are marked with these requirements (openapi-operations.ts).

import type { Security } from "./openapi-operations.js";

/** An OpenAPI 3.0 Security Scheme Object of the kinds predex uses. */
export type SecurityScheme =
  | {
      readonly type: "apiKey";
      readonly in: "header" | "cookie";
      readonly name: string;
      readonly description: string;
    }
  | {
      readonly type: "http";
      readonly scheme: "bearer";
      readonly bearerFormat?: string;
      readonly description: string;
    };

const specAuthentication = 'spec 000 "Authentication" and the README, "A signed request with the SDK"';

// ---------------------------------------------------------------- signed gateway ({base_url})

export const gatewaySecuritySchemes: Readonly<Record<string, SecurityScheme>> = {
  gatewayAppKey: {
    type: "apiKey",
    in: "header",
    name: "x-ca-key",
    description:
      "The APP Key: names the application to the gateway. An unknown one is 401 `Invalid Key` (text/plain).",
  },
  gatewaySignature: {
    type: "apiKey",
    in: "header",
    name: "x-ca-signature",
    description: [
      "base64( HMAC-SHA256( APP Secret, string-to-sign ) ), the string-to-sign being seven lines joined by `\\n`:",
      "1. the method, upper case (a WebSocket upgrade signs `GET`);",
      "2. the `accept` header (`application/json`);",
      "3. the `content-md5` header: base64 of the MD5 of the exact body bytes (an empty line without a body);",
      "4. the `content-type` header as sent (`application/json`; an empty line without a body);",
      "5. the `date` header, exactly as sent;",
      "6. one `name:value` line per header listed in `x-ca-signature-headers`, names lower case, sorted (REST: `x-api-key:<API key>`; user WebSocket channels: also `cookie:<Cookie>`);",
      "7. the path, then `?` and the query parameters sorted by name, not URL-encoded.",
      `See ${specAuthentication}. A mismatch is 400 \`Invalid Signature\` (text/plain) with the server's string-to-sign in \`x-ca-error-message\`, each newline shown as \`#\`; \`predex doctor\` compares it with yours.`,
      "Also signable (list them in `x-ca-signature-headers`): `x-ca-nonce` (refused when used twice within 15 minutes; required on writes when the operator sets it for the partner), `x-ca-timestamp`, `x-ca-stage`, `x-ca-key`.",
    ].join("\n"),
  },
  gatewaySignatureHeaders: {
    type: "apiKey",
    in: "header",
    name: "x-ca-signature-headers",
    description:
      "The signed custom headers, lower case, comma-separated (REST: `x-api-key`; user WebSocket channels: `cookie,x-api-key`). A listed header that is missing is a signature mismatch.",
  },
  gatewayDate: {
    type: "apiKey",
    in: "header",
    name: "date",
    description:
      "`YYYY-MM-DD HH:mm:ss` in UTC (not ISO 8601), within 15 minutes of the server's clock; line 5 of the string-to-sign.",
  },
  partnerApiKey: {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
    description:
      "The partner's API key (not the APP Key), also signed. Missing or wrong: 401 `{code: 1401}`.",
  },
  session: {
    type: "apiKey",
    in: "cookie",
    name: "predex_session",
    description:
      "The user's session, from `Set-Cookie` of `POST /user/register` (24 h); sent in `Cookie`, not signed on REST. Missing, expired or another partner's: 401 `{code: 1401}`; register again.",
  },
};

/** What every operation of the signed host requires: the gateway signature and the API key. */
export const gatewaySecurity: Security = [
  {
    gatewayAppKey: [],
    gatewaySignature: [],
    gatewaySignatureHeaders: [],
    gatewayDate: [],
    partnerApiKey: [],
  },
];

/** What a user-scoped operation requires besides (requireSession). */
export const sessionSecurity: Security = [{ session: [] }];

// ---------------------------------------------------------------- admin

export const adminSecuritySchemes: Readonly<Record<string, SecurityScheme>> = {
  adminToken: {
    type: "http",
    scheme: "bearer",
    description:
      "`Authorization: Bearer <PREDEX_ADMIN_TOKEN>` (printed at the first start when unset). Missing or wrong: 401 `{code: 1401}`.",
  },
};

export const adminSecurity: Security = [{ adminToken: [] }];

// ---------------------------------------------------------------- legacy ({legacy_base_url})

export const legacySecuritySchemes: Readonly<Record<string, SecurityScheme>> = {
  legacyToken: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      "`Authorization: Bearer <JWT>` from `POST /api/user/openapi/authorize`; it expires after 24 hours (authorize again). Invalid or expired: HTTP 401.",
  },
  legacyApiKey: {
    type: "apiKey",
    in: "header",
    name: "X-API-KEY",
    description: "The merchant's API key (authorize only).",
  },
  legacySignature: {
    type: "apiKey",
    in: "header",
    name: "X-Signature",
    description: [
      "base64 SHA256withRSA (PKCS#1 v1.5) with the merchant's private key over six lines joined by `\\n`:",
      "the method (upper case), `application/json`, the path with its query as sent, the exact body, `X-Timestamp`, `X-Nonce`.",
      'The operator registers the public key (`rsaPublicKey` of `POST /admin/partners`). See spec 001 "Authentication".',
    ].join("\n"),
  },
  legacyTimestamp: {
    type: "apiKey",
    in: "header",
    name: "X-Timestamp",
    description: "Milliseconds since the epoch, within 5 minutes of the server's clock.",
  },
  legacyNonce: {
    type: "apiKey",
    in: "header",
    name: "X-Nonce",
    description: "16 to 64 printable characters, never used before by the merchant within 10 minutes.",
  },
};

/** Routes that take the JWT (requireLegacyToken). */
export const legacyTokenSecurity: Security = [{ legacyToken: [] }];
/** Reads that take a JWT and also work without one (optionalLegacyToken). */
export const legacyOptionalTokenSecurity: Security = [{ legacyToken: [] }, {}];
/** The RSA-signed authorize call. */
export const legacyAuthorizeSecurity: Security = [
  { legacyApiKey: [], legacySignature: [], legacyTimestamp: [], legacyNonce: [] },
];
