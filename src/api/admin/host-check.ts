// The admin listener answers only requests addressed to it by a loopback name, an IP address, or a
// name the operator lists (PREDEX_ADMIN_ALLOWED_HOSTS). DNS rebinding is the attack: a page on
// evil.example has its name re-resolved to 127.0.0.1, and the operator's own browser then sends it
// requests to the listener as same-origin ones, `Host: evil.example` (the desk keeps the token in
// the page, so a rebound page could drive the API or read what it answers). Such a request always
// carries the attacker's DNS name, never an IP address, so IP addresses stay served: a health
// probe by pod IP, or the address the listener is bound to, needs no configuration.

import { isIP } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type ServiceError, sendServiceError } from "../partner/errors.js";

/** Names a loopback address always has. */
const loopbackNames = new Set(["localhost"]);
/** A Host value is quoted back to the operator up to this length. */
const quotedHostLengthMax = 255;

/** The host name of a Host header, lowercase, without port, brackets or trailing dot. */
export function hostNameOf(header: string): string {
  const value = header.trim();
  const name = value.startsWith("[")
    ? value.slice(1, value.indexOf("]") === -1 ? undefined : value.indexOf("]"))
    : value.replace(/:[0-9]*$/, "");
  return name.toLowerCase().replace(/\.$/, "");
}

function refusal(host: string | undefined): ServiceError {
  const what =
    host === undefined
      ? "a request without a Host header"
      : `the host "${host.length > quotedHostLengthMax ? `${host.slice(0, quotedHostLengthMax)}…` : host}"`;
  return {
    status: 403,
    code: 1403,
    message: `forbidden: the admin listener does not serve ${what}; list it in PREDEX_ADMIN_ALLOWED_HOSTS`,
  };
}

/** The onRequest hook of the admin listener: every request, desk, docs and probes included. */
export function createAdminHostCheck(allowedNames: readonly string[]) {
  const allowed = new Set([...loopbackNames, ...allowedNames]);
  return async function checkAdminHost(request: FastifyRequest, reply: FastifyReply) {
    const header = request.headers.host;
    if (header === undefined || header.trim() === "") return sendServiceError(reply, refusal(undefined));
    const name = hostNameOf(header);
    if (allowed.has(name) || isIP(name) !== 0) return undefined;
    return sendServiceError(reply, refusal(name));
  };
}
