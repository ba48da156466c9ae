// Answers for refused WebSocket handshakes, written on the raw socket before any upgrade: the
// spec's HTTP errors (JSON envelope, or text/plain for query-string problems).

import type { Duplex } from "node:stream";
import { writeResponseToSocket } from "../../gateway/verifier.js";
import { type ServiceError, unauthorized } from "./errors.js";
import { writeServiceErrorToSocket } from "./upgrades.js";

export type HandshakeRefusal =
  | { readonly kind: "service"; readonly error: ServiceError; readonly retryAfterSeconds?: number }
  | { readonly kind: "query"; readonly detail: string }
  | { readonly kind: "too_many"; readonly detail: string }
  | { readonly kind: "upstream" };

export const handshakeErrors = {
  cookieNotSigned: unauthorized("Cookie header must be signed on user channels"),
  otherUser: unauthorized("userId does not match the session"),
} as const;

export function writeRefusal(socket: Duplex, refusal: HandshakeRefusal): void {
  switch (refusal.kind) {
    case "service":
      writeServiceErrorToSocket(socket, refusal.error, refusal.retryAfterSeconds);
      return;
    case "query":
      // As the REST routes answer a query-string deserialization failure (spec 000 "Errors").
      writeResponseToSocket(
        socket,
        400,
        { "content-type": "text/plain; charset=utf-8" },
        `Query deserialize error: ${refusal.detail}`,
      );
      return;
    case "too_many":
      writeResponseToSocket(
        socket,
        429,
        { "content-type": "application/json; charset=utf-8" },
        JSON.stringify({ code: 1429, message: `too many requests: ${refusal.detail}`, data: null }),
      );
      return;
    case "upstream":
      // The exchange behind the channel has stopped: the spec's 502/2002.
      writeResponseToSocket(
        socket,
        502,
        { "content-type": "application/json; charset=utf-8" },
        JSON.stringify({ code: 2002, message: "upstream unavailable", data: null }),
      );
      return;
    default: {
      const unreachable: never = refusal;
      throw new Error(`unknown refusal ${String(unreachable)}`);
    }
  }
}
