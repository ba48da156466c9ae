// Signs requests for the gateway (spec 000 "String-to-sign"). The body is hashed from the very
// bytes that will be sent, never from a second serialization.
//
// Every request signs a fresh `x-ca-nonce` unless told not to (issue #27): the gateway remembers a
// signed nonce for the whole date window and refuses it the second time, so a captured request
// (a create-order, say) cannot be sent again. Signed headers are then `x-api-key,x-ca-nonce`
// (`cookie,x-api-key,x-ca-nonce` on user channels), lowercase and sorted as spec 000 asks; the
// nonce is a random UUID, as Alibaba-gateway client libraries send.

import { randomUUID } from "node:crypto";
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
  /**
   * The signed `x-ca-nonce`, so that the request cannot be replayed: a fresh random UUID when
   * absent, this value when given, none with `false` (then a captured request can be sent again
   * within the date window, unless the operator requires nonces of the partner).
   */
  readonly nonce?: string | false;
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
  // The string-to-sign joins the decoded query with "&" and "=", so a key or value holding either
  // signs the same line as another query (`a&b=1` is also `a=` and `b=1`): such a signature could be
  // replayed on a query its signer never meant. The gateway refuses these queries anyway (400).
  for (const [key, value] of queryPairs) {
    if (/[&=]/.test(key) || /[&=]/.test(value)) {
      throw new TypeError(
        `Query parameter ${JSON.stringify(key)}: "&" and "=" may not appear in a query key or value (the gateway refuses them, and their signature would be ambiguous)`,
      );
    }
  }
  const hasBody = input.body !== undefined && input.body.length > 0;
  const contentType = hasBody ? (input.contentType ?? jsonContentType) : (input.contentType ?? "");
  const date = formatGatewayDate(input.date ?? new Date());
  const nonce = input.nonce === false ? undefined : (input.nonce ?? randomUUID());
  const signedHeaders: Array<[string, string]> = [["x-api-key", credentials.apiKey]];
  if (input.signCookie === true && input.cookie !== undefined) signedHeaders.push(["cookie", input.cookie]);
  if (nonce !== undefined) signedHeaders.push(["x-ca-nonce", nonce]);
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
  if (nonce !== undefined) headers["x-ca-nonce"] = nonce;
  if (input.cookie !== undefined) headers.cookie = input.cookie;
  return { pathAndQuery: input.path + encodeQuery(queryPairs), headers, stringToSign };
}

export interface UpgradeInput {
  readonly path: string;
  readonly query?: QueryParams;
  /** Required on the user channels, where it is signed too. */
  readonly cookie?: string;
  /** As SignInput.nonce: a fresh one by default, `false` for none. */
  readonly nonce?: string | false;
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
