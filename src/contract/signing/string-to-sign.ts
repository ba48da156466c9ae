// The string-to-sign of spec 000 ("Authentication"), built by one pure function that the SDK's
// signer and the server's verifier both call, so the two can never disagree on a byte. This module
// imports nothing: it must stay usable from the SDK without pulling in Fastify or node:crypto.

/** The seven components of the string-to-sign, in the order the spec lists them. */
export interface StringToSignParts {
  /** The HTTP method; a WebSocket upgrade signs as GET. Uppercased here. */
  readonly method: string;
  /** The `accept` header as sent (`application/json`). */
  readonly accept: string;
  /** Base64 MD5 of the raw body; empty for a bodyless request (the line is still present). */
  readonly contentMd5: string;
  /** The `content-type` header as sent; empty for a bodyless request. */
  readonly contentType: string;
  /** The `date` header exactly as sent (`YYYY-MM-DD HH:mm:ss`, UTC). */
  readonly date: string;
  /**
   * The signed custom headers as `[name, value]` pairs, names as listed in
   * `x-ca-signature-headers`. Sorted by name here; names are NOT lowercased here, because an
   * uppercase name in a signed line is one of the spec's mismatch causes and callers must see it.
   */
  readonly signedHeaders: ReadonlyArray<readonly [name: string, value: string]>;
  /** The path plus its canonical query (see canonicalPathAndQuery). */
  readonly pathAndQuery: string;
}

export function buildStringToSign(parts: StringToSignParts): string {
  let text = `${parts.method.toUpperCase()}\n${parts.accept}\n${parts.contentMd5}\n${parts.contentType}\n${parts.date}\n`;
  const headers =
    parts.signedHeaders.length < 2
      ? parts.signedHeaders
      : [...parts.signedHeaders].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name, value] of headers) text += `${name}:${value}\n`;
  return text + parts.pathAndQuery;
}

/**
 * The path line: the request path, then the query parameters sorted by key (a stable sort, so
 * repeated keys keep the order they were sent in), NOT URL-encoded. A parameter with an empty
 * value is written as its bare key, as Alibaba's gateway and its client libraries do.
 */
export function canonicalPathAndQuery(
  path: string,
  query: ReadonlyArray<readonly [key: string, value: string]>,
): string {
  if (query.length === 0) return path;
  const sorted = [...query].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const pairs = sorted.map(([key, value]) => (value === "" ? key : `${key}=${value}`));
  return `${path}?${pairs.join("&")}`;
}

/**
 * Splits a request target (`/path?a=1&b=x%20y`) into its raw path and decoded query pairs. The path
 * is kept exactly as sent; query keys and values are percent-decoded ('+' is a space), because the
 * spec signs them "not URL-encoded".
 */
export interface RequestTarget {
  readonly path: string;
  readonly query: Array<[key: string, value: string]>;
}

export function splitRequestTarget(target: string): RequestTarget {
  const questionMark = target.indexOf("?");
  if (questionMark === -1) return { path: target, query: [] };
  const path = target.slice(0, questionMark);
  const search = target.slice(questionMark + 1);
  const query: Array<[string, string]> = [];
  for (const [key, value] of new URLSearchParams(search)) query.push([key, value]);
  return { path, query };
}

/** A newline cannot travel in a header, so `x-ca-error-message` shows each one as `#` (as Alibaba's gateway does). */
export function stringToSignForHeader(stringToSign: string): string {
  return stringToSign.replaceAll("\n", "#");
}

/** Formats a time as the spec's `date` header: `YYYY-MM-DD HH:mm:ss` in UTC (not ISO 8601). */
export function formatGatewayDate(time: Date): string {
  return time.toISOString().slice(0, 19).replace("T", " ");
}

/** Parses a `date` header; undefined when it is not exactly `YYYY-MM-DD HH:mm:ss` or not a real time. */
export function parseGatewayDate(text: string): number | undefined {
  // Hand-rolled rather than a regular expression: this runs on every signed request.
  if (text.length !== 19 || text[4] !== "-" || text[7] !== "-" || text[10] !== " ") return undefined;
  if (text[13] !== ":" || text[16] !== ":") return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

/** The decimal value of `length` ASCII digits at `start`, or -1 if any is not a digit. */
function digits(text: string, start: number, length: number): number {
  let value = 0;
  for (let index = start; index < start + length; index += 1) {
    const digit = text.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

function daysInMonth(year: number, month: number): number {
  // Arithmetic rather than a Date object: this runs on every signed request.
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
