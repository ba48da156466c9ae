// Verifies the gateway signature of spec 000 ("Authentication") and DESIGN §4a. Framework-free:
// the Fastify hook (./fastify.ts) and the WebSocket upgrade path (verifyUpgradeRequest) both call
// verifyGatewayRequest, so REST and upgrades follow exactly the same rules.

import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import {
  computeContentMd5,
  computeSignature,
  constantTimeEqual,
} from "../contract/signing/gateway-signature.js";
import {
  buildStringToSign,
  canonicalPathAndQuery,
  parseGatewayDate,
  type RequestTarget,
  splitRequestTarget,
  stringToSignForHeader,
} from "../contract/signing/string-to-sign.js";
import { MemoryNonceWindow, type NonceOutcome, type NonceStore } from "../store/gateway-nonces.js";

/** The spec's "about 15 minutes" of allowed clock skew, in both directions. */
export const dateSkewMsMax = 15 * 60 * 1000;
/** Nonces are remembered for as long as a request carrying them could still pass the date check. */
export const nonceWindowMs = 2 * dateSkewMsMax;
export const nonceCharsMax = 128;

/** What the gateway knows about an APP Key: its secret (decrypted) and the partner it belongs to. */
export interface AppKeyRecord {
  readonly appKey: string;
  readonly appSecret: string;
  readonly partnerId: number;
  /** The operator requires a signed `x-ca-nonce` on every request of this partner that is not a read. */
  readonly signedNonceRequired?: boolean;
}

/** The refusal of a request that must sign a nonce and does not (spec 000's `unauthorized: ` style). */
export const signedNonceMissingMessage = "unauthorized: Missing signed X-CA-NONCE header";

/**
 * Methods that only read (RFC 9110's safe methods): a replay of one places nothing, so they never
 * need a nonce. A WebSocket upgrade is verified as a GET. POST is never a read here, even on the
 * one route that reads through it (`/ordering/open-orders`): the gateway decides by method alone.
 */
const readMethods: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The key's record, or undefined for an unknown key. A lookup that knows the answer at once returns
 * it as is, so the common request (a cached key) makes no promise on its way through the verifier.
 */
export type AppKeyLookup<Key extends AppKeyRecord> = (
  appKey: string,
) => Key | undefined | Promise<Key | undefined>;

export interface GatewayRequest {
  readonly method: string;
  /** The request target as sent: path and raw query string. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The exact body bytes received; undefined or empty for a bodyless request. */
  readonly rawBody: Uint8Array | undefined;
}

/** Why a signature was refused; sent in `x-ca-error-reason` to help partners debug (not in the spec). */
export type MismatchReason =
  | "signature-missing"
  | "signed-header-missing"
  | "date-missing"
  | "date-format"
  | "date-skew"
  | "content-md5"
  | "signature";

export type GatewayRejection =
  | { readonly kind: "ambiguous_query"; readonly key: string }
  | { readonly kind: "invalid_key" }
  | { readonly kind: "invalid_signature"; readonly reason: MismatchReason; readonly stringToSign: string }
  | { readonly kind: "nonce_rejected"; readonly message: string };

export type GatewayVerdict<Key extends AppKeyRecord = AppKeyRecord> =
  | { readonly ok: true; readonly appKey: Key }
  | { readonly ok: false; readonly rejection: GatewayRejection };

export interface GatewayVerifierOptions<Key extends AppKeyRecord> {
  readonly lookupAppKey: AppKeyLookup<Key>;
  readonly nowMs: () => number;
  readonly nonces?: NonceStore;
}

/**
 * A verdict, or a promise of one when the key lookup or the nonce store had to wait: callers
 * `await` either. Every request pays the gateway, so a request that needs no I/O (a cached key, no
 * nonce or an in-memory one) is answered without allocating a promise or waiting a microtask.
 */
export type MaybeVerdict<Key extends AppKeyRecord> = GatewayVerdict<Key> | Promise<GatewayVerdict<Key>>;

export interface GatewayVerifier<Key extends AppKeyRecord = AppKeyRecord> {
  verify(request: GatewayRequest): MaybeVerdict<Key>;
  /** Verifies a WebSocket upgrade: a signed GET with no body, whatever its method line says. */
  verifyUpgrade(request: IncomingMessage): MaybeVerdict<Key>;
}

export function createGatewayVerifier<Key extends AppKeyRecord>(
  options: GatewayVerifierOptions<Key>,
): GatewayVerifier<Key> {
  const nonces = options.nonces ?? new MemoryNonceWindow(nonceWindowMs);
  const verify = (request: GatewayRequest) =>
    verifyGatewayRequest(request, options.lookupAppKey, nonces, options.nowMs);
  return {
    verify,
    verifyUpgrade: (request) =>
      verify({ method: "GET", url: request.url ?? "/", headers: request.headers, rawBody: undefined }),
  };
}

function verifyGatewayRequest<Key extends AppKeyRecord>(
  request: GatewayRequest,
  lookupAppKey: AppKeyLookup<Key>,
  nonces: NonceStore,
  nowMs: () => number,
): MaybeVerdict<Key> {
  // Before anything else: such a query has no single string-to-sign, whoever signed it.
  const target = splitRequestTarget(request.url);
  const ambiguousKey = ambiguousQueryKey(target.query);
  if (ambiguousKey !== undefined) return refuse({ kind: "ambiguous_query", key: ambiguousKey });

  const appKeyHeader = headerText(request.headers, "x-ca-key");
  if (appKeyHeader === undefined) return refuse({ kind: "invalid_key" });
  const found = lookupAppKey(appKeyHeader);
  if (found instanceof Promise) {
    return found.then((appKey) => verifyWithKey(request, target, appKey, nonces, nowMs));
  }
  return verifyWithKey(request, target, found, nonces, nowMs);
}

/** The checks once the key is known: signature, clock, then (last, as it records) the nonce. */
function verifyWithKey<Key extends AppKeyRecord>(
  request: GatewayRequest,
  target: RequestTarget,
  appKey: Key | undefined,
  nonces: NonceStore,
  nowMs: () => number,
): MaybeVerdict<Key> {
  if (appKey === undefined) return refuse({ kind: "invalid_key" });
  const listedNames = parseSignatureHeaderList(headerText(request.headers, "x-ca-signature-headers"));
  const signedHeaders: Array<readonly [string, string]> = [];
  let listedHeaderAbsent = false;
  for (const name of listedNames) {
    const value = headerText(request.headers, name);
    if (value === undefined) listedHeaderAbsent = true;
    signedHeaders.push([name, value ?? ""]);
  }
  const bodyMd5 = computeContentMd5(request.rawBody);
  const date = headerText(request.headers, "date");
  const stringToSign = buildStringToSign({
    method: request.method,
    accept: headerText(request.headers, "accept") ?? "",
    contentMd5: bodyMd5,
    contentType: headerText(request.headers, "content-type") ?? "",
    date: date ?? "",
    signedHeaders,
    pathAndQuery: canonicalPathAndQuery(target.path, target.query),
  });

  const dateMs = date === undefined ? undefined : parseGatewayDate(date);
  const reason = mismatchReason(
    request,
    appKey.appSecret,
    stringToSign,
    bodyMd5,
    date,
    dateMs,
    listedHeaderAbsent,
  );
  if (reason !== undefined) return refuse({ kind: "invalid_signature", reason, stringToSign });
  const now = nowMs();
  // The signature is checked before the clock so that a stale but genuine request says date-skew.
  if (Math.abs(now - dateMs!) > dateSkewMsMax) {
    return refuse({ kind: "invalid_signature", reason: "date-skew", stringToSign });
  }

  // Only a nonce the partner signed can be held against it; an unsigned one could be forged.
  const signsNonce = listedNames.includes("x-ca-nonce");
  if (!signsNonce && appKey.signedNonceRequired === true && !readMethods.has(request.method.toUpperCase())) {
    return refuse({ kind: "nonce_rejected", message: signedNonceMissingMessage });
  }
  if (!signsNonce) return { ok: true, appKey };
  const nonce = headerText(request.headers, "x-ca-nonce") ?? "";
  if (nonce.length === 0 || nonce.length > nonceCharsMax) {
    return refuse({ kind: "nonce_rejected", message: "unauthorized: Invalid x-ca-nonce" });
  }
  const outcome = nonces.remember(appKey.appKey, nonce, now);
  if (typeof outcome === "string") return nonceVerdict(outcome, appKey);
  return outcome.then((settled) => nonceVerdict(settled, appKey));
}

function nonceVerdict<Key extends AppKeyRecord>(outcome: NonceOutcome, appKey: Key): GatewayVerdict<Key> {
  if (outcome === "fresh") return { ok: true, appKey };
  if (outcome === "replayed")
    return refuse({ kind: "nonce_rejected", message: "unauthorized: Nonce already used" });
  return refuse({
    kind: "nonce_rejected",
    message: "unauthorized: Too many nonces in flight, retry later",
  });
}

/**
 * The key of the first query parameter whose decoded key or value holds `&` or `=`. The
 * string-to-sign carries the query decoded and joined with those two characters, so
 * `?a=1&b=2` and `?a=1%26b%3D2` would sign the same line: a replayer could merge or split the
 * parameters of a captured request under its signature.
 */
function ambiguousQueryKey(query: ReadonlyArray<readonly [string, string]>): string | undefined {
  for (const [key, value] of query) {
    if (/[&=]/.test(key) || /[&=]/.test(value)) return key;
  }
  return undefined;
}

/** The first structural or cryptographic reason the request does not match, if any. */
function mismatchReason(
  request: GatewayRequest,
  appSecret: string,
  stringToSign: string,
  bodyMd5: string,
  date: string | undefined,
  dateMs: number | undefined,
  listedHeaderAbsent: boolean,
): MismatchReason | undefined {
  const signature = headerText(request.headers, "x-ca-signature");
  if (signature === undefined || signature === "") return "signature-missing";
  if (listedHeaderAbsent) return "signed-header-missing";
  if (date === undefined) return "date-missing";
  if (dateMs === undefined) return "date-format";
  const sentMd5 = headerText(request.headers, "content-md5");
  if (sentMd5 !== undefined && sentMd5 !== "" && sentMd5 !== bodyMd5) return "content-md5";
  if (!constantTimeEqual(computeSignature(appSecret, stringToSign), signature)) return "signature";
  return undefined;
}

function refuse(rejection: GatewayRejection): { ok: false; rejection: GatewayRejection } {
  return { ok: false, rejection };
}

/** `x-ca-signature-headers`: comma-separated names; HTTP header names are case-insensitive. */
function parseSignatureHeaderList(value: string | undefined): string[] {
  if (value === undefined) return [];
  // The common cases (what the SDK signs), already in lower case, cost no splitting at all.
  if (value === "x-api-key") return ["x-api-key"];
  if (value === "x-api-key,x-ca-nonce") return ["x-api-key", "x-ca-nonce"];
  const names: string[] = [];
  for (const part of value.split(",")) {
    const name = part.trim().toLowerCase();
    if (name !== "" && !names.includes(name)) names.push(name);
  }
  return names;
}

function headerText(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(", ") : value;
}

/** The HTTP answer to a gateway rejection, shared by the REST hook and the upgrade path. */
export interface GatewayRejectionResponse {
  readonly status: 400 | 401;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export function gatewayRejectionResponse(rejection: GatewayRejection): GatewayRejectionResponse {
  switch (rejection.kind) {
    case "ambiguous_query":
      // The spec's answer to a query it cannot take: a plain-text 400, as its other query errors.
      return {
        status: 400,
        headers: { "content-type": "text/plain; charset=utf-8" },
        body: `Query deserialize error: invalid value for \`${rejection.key}\`: "&" and "=" may not appear in a query key or value, even percent-encoded`,
      };
    case "invalid_key":
      return { status: 401, headers: { "content-type": "text/plain; charset=utf-8" }, body: "Invalid Key" };
    case "invalid_signature":
      return {
        status: 400,
        headers: {
          "content-type": "text/plain; charset=utf-8",
          "x-ca-error-message": headerSafe(
            `Invalid Signature, Server StringToSign:\`${stringToSignForHeader(rejection.stringToSign)}\``,
          ),
          "x-ca-error-reason": rejection.reason,
        },
        body: "Invalid Signature",
      };
    case "nonce_rejected":
      return {
        status: 401,
        headers: { "content-type": "application/json; charset=utf-8" },
        body: JSON.stringify({ code: 1401, message: rejection.message, data: null }),
      };
    default: {
      const unreachable: never = rejection;
      return unreachable;
    }
  }
}

// Header values must be printable ASCII; a decoded query value may hold anything, so anything
// else is percent-encoded (the diagnostic stays readable and can never break the response).
function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/gu, (character) =>
    [...Buffer.from(character, "utf8")]
      .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`)
      .join(""),
  );
}

/** Answers a refused WebSocket upgrade on the raw socket, then closes it. */
export function writeGatewayRejectionToSocket(socket: Duplex, rejection: GatewayRejection): void {
  const response = gatewayRejectionResponse(rejection);
  writeResponseToSocket(socket, response.status, response.headers, response.body);
}

const reasonPhrases: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  500: "Internal Server Error",
};

/** Writes a complete HTTP/1.1 response on a socket that was never handed to an HTTP framework. */
export function writeResponseToSocket(
  socket: Duplex,
  status: number,
  headers: Readonly<Record<string, string>>,
  body: string,
): void {
  const bytes = Buffer.from(body, "utf8");
  const headerLines = Object.entries({
    ...headers,
    "content-length": String(bytes.length),
    connection: "close",
  }).map(([name, value]) => `${name}: ${value}`);
  const head = `HTTP/1.1 ${status} ${reasonPhrases[status] ?? "Error"}\r\n${headerLines.join("\r\n")}\r\n\r\n`;
  socket.end(Buffer.concat([Buffer.from(head, "latin1"), bytes]));
}
