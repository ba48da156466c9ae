// Signs requests for the gateway (spec 000 "String-to-sign"). The body is hashed from the very
// bytes that will be sent, never from a second serialization.

import { computeContentMd5, computeSignature } from "../contract/signing/gateway-signature.js";
import {
  buildStringToSign,
  canonicalPathAndQuery,
  formatGatewayDate,
} from "../contract/signing/string-to-sign.js";

export interface GatewayCredentials {
  /** Identifies the application to the gateway (`x-ca-key`). */
  readonly appKey: string;
  /** Signs requests; never sent. */
  readonly appSecret: string;
  /** Identifies the partner to the service layer (`x-api-key`); also signed. */
  readonly apiKey: string;
}

export type QueryValue = string | number | boolean;
export type QueryParams = Readonly<Record<string, QueryValue | readonly QueryValue[] | undefined>>;

export interface SignInput {
  readonly method: string;
  /** The path without a query string, e.g. `/user/profile`. */
  readonly path: string;
  readonly query?: QueryParams;
  /** The exact body bytes to send. */
  readonly body?: Uint8Array;
  /** Defaults to `application/json` when there is a body. */
  readonly contentType?: string;
  /** The Cookie header to send (REST sends it unsigned; user channels sign it). */
  readonly cookie?: string;
  readonly signCookie?: boolean;
  /** A unique value for `x-ca-nonce`, signed, so that the request cannot be replayed. */
  readonly nonce?: string;
  /** The signing time; defaults to now. */
  readonly date?: Date;
}

export interface SignedRequest {
  /** Path and URL-encoded query to send. */
  readonly pathAndQuery: string;
  readonly headers: Record<string, string>;
  /** What was signed; compare with the server's copy in a GatewayError to find a mismatch. */
  readonly stringToSign: string;
}

export const jsonContentType = "application/json";

export function signRequest(credentials: GatewayCredentials, input: SignInput): SignedRequest {
  const queryPairs = flattenQuery(input.query);
  const hasBody = input.body !== undefined && input.body.length > 0;
  const contentType = hasBody ? (input.contentType ?? jsonContentType) : (input.contentType ?? "");
  const date = formatGatewayDate(input.date ?? new Date());
  const signedHeaders: Array<[string, string]> = [["x-api-key", credentials.apiKey]];
  if (input.signCookie === true && input.cookie !== undefined) signedHeaders.push(["cookie", input.cookie]);
  if (input.nonce !== undefined) signedHeaders.push(["x-ca-nonce", input.nonce]);
  signedHeaders.sort(([a], [b]) => (a < b ? -1 : 1));

  const contentMd5 = computeContentMd5(input.body);
  const stringToSign = buildStringToSign({
    method: input.method,
    accept: jsonContentType,
    contentMd5,
    contentType,
    date,
    signedHeaders,
    pathAndQuery: canonicalPathAndQuery(input.path, queryPairs),
  });
  const headers: Record<string, string> = {
    accept: jsonContentType,
    date,
    "x-ca-key": credentials.appKey,
    "x-ca-signature": computeSignature(credentials.appSecret, stringToSign),
    "x-ca-signature-headers": signedHeaders.map(([name]) => name).join(","),
    "x-api-key": credentials.apiKey,
  };
  if (contentType !== "") headers["content-type"] = contentType;
  if (hasBody) headers["content-md5"] = contentMd5;
  if (input.nonce !== undefined) headers["x-ca-nonce"] = input.nonce;
  if (input.cookie !== undefined) headers.cookie = input.cookie;
  return { pathAndQuery: input.path + encodeQuery(queryPairs), headers, stringToSign };
}

export interface UpgradeInput {
  readonly path: string;
  readonly query?: QueryParams;
  /** Required on the user channels, where it is signed too. */
  readonly cookie?: string;
  readonly nonce?: string;
  readonly date?: Date;
}

/** Headers for a WebSocket upgrade: a signed GET; the cookie is signed whenever it is sent. */
export function signWebSocketUpgrade(credentials: GatewayCredentials, input: UpgradeInput): SignedRequest {
  return signRequest(credentials, {
    method: "GET",
    path: input.path,
    ...(input.query === undefined ? {} : { query: input.query }),
    ...(input.cookie === undefined ? {} : { cookie: input.cookie, signCookie: true }),
    ...(input.nonce === undefined ? {} : { nonce: input.nonce }),
    ...(input.date === undefined ? {} : { date: input.date }),
  });
}

function flattenQuery(query: QueryParams | undefined): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) pairs.push([key, String(item)]);
  }
  return pairs;
}

function encodeQuery(pairs: ReadonlyArray<readonly [string, string]>): string {
  if (pairs.length === 0) return "";
  return `?${pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join("&")}`;
}
