// The one schema of every URL an operator writes and partners are served (a category's logo, a
// market's logo, banner and data resource, an outcome's logo, a partner's webhook): an absolute
// http or https URL, nothing else. A partner's front end may put such a URL in a link or an image;
// `javascript:`, `data:`, `file:` or a scheme-relative `//host` would run or reach what the
// operator never meant. A value that is not one is 400/1001 naming the field, in the words of
// httpUrlProblem (validation-message.ts).

import { Type } from "typebox";

/** The longest URL taken: what browsers and CDNs handle everywhere. */
export const urlLengthMax = 2_048;

/** `http://` or `https://` (any case), a host, then anything without white space. */
const httpUrlPattern = "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#@]+[^\\s]*$";
/** The same, or nothing at all (a category's logo "may be empty", spec 000). */
const httpUrlOrEmptyPattern = `^$|${httpUrlPattern}`;

/** What a URL field that fails its pattern is told. */
export const httpUrlProblem = "must be an http or https URL";

/** True when a schema validation failure is one of these URL patterns failing. */
export function isHttpUrlPattern(pattern: unknown): boolean {
  return pattern === httpUrlPattern || pattern === httpUrlOrEmptyPattern;
}

export function HttpUrl(description = "http(s) URL") {
  return Type.String({ maxLength: urlLengthMax, pattern: httpUrlPattern, description });
}

export function HttpUrlOrEmpty(description = "http(s) URL, or empty") {
  return Type.String({ maxLength: urlLengthMax, pattern: httpUrlOrEmptyPattern, description });
}
