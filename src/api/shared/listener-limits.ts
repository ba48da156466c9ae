// What every listener bounds before a request reaches a route: the time a client has to send it,
// headers and body, and the answer to a connection that breaks HTTP (too slow, headers too large,
// not HTTP at all), written in the listener's own envelope rather than Fastify's.
//
// The time to receive a request is Node's requestTimeout (Fastify turns it off by default, so a
// body trickled one byte every few seconds held its connection for good) and headersTimeout for
// the head alone; Node checks its connections against both every connectionsCheckingInterval,
// which is made short enough that a bound is kept to within a second. The listen backlog is in
// src/server.ts, from the same configuration.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyServerOptions } from "fastify";
import type { ListenerLimits } from "../../config.js";

/** The head of a request must arrive within this long, or the whole request's bound if shorter. */
export const headersReceiveMsMax = 10_000;
/** How late past its bound a slow request may be closed: Node's check runs this often at most. */
export const receiveCheckIntervalMsMax = 1_000;

export type ClientErrorKind = "timeout" | "headers_too_large" | "malformed";

/** An answer written on the raw connection, before (or instead of) any route. */
export interface ClientErrorAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** Node's server options for the receive bounds (also valid inside `https` options). */
export function receiveTimeouts(limits: ListenerLimits): {
  readonly headersTimeout: number;
  readonly connectionsCheckingInterval: number;
} {
  const requestMs = limits.requestReceiveMsMax;
  return {
    headersTimeout: Math.min(headersReceiveMsMax, requestMs),
    connectionsCheckingInterval: Math.min(receiveCheckIntervalMsMax, requestMs),
  };
}

/**
 * The Fastify options of a listener's receive bounds and client-error answers; `https` (when the
 * listener speaks TLS) gets the same Node options, since Fastify then ignores `http`.
 */
export function listenerServerOptions(
  limits: ListenerLimits,
  https: { cert: Buffer; key: Buffer } | undefined,
  answer: (kind: ClientErrorKind, limits: ListenerLimits) => ClientErrorAnswer,
): FastifyServerOptions {
  const timeouts = receiveTimeouts(limits);
  return {
    requestTimeout: limits.requestReceiveMsMax,
    http: timeouts,
    ...(https === undefined ? {} : { https: { ...https, ...timeouts } }),
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) =>
      writeClientError(error, socket, answer(clientErrorKind(error), limits)),
  } as FastifyServerOptions;
}

function clientErrorKind(error: { code?: string }): ClientErrorKind {
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") return "timeout";
  if (error.code === "HPE_HEADER_OVERFLOW") return "headers_too_large";
  return "malformed";
}

const reasonPhrases: Readonly<Record<number, string>> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};

/** As Node's own answer to a client error, in the listener's words; the connection is then closed. */
function writeClientError(error: Error & { code?: string }, socket: Socket, answer: ClientErrorAnswer): void {
  // A reset connection has nobody to answer.
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  // A response already under way on this connection must not be cut into.
  const current = (socket as Socket & { _httpMessage?: ServerResponse<IncomingMessage> })._httpMessage;
  if (socket.writable && current?.headersSent !== true) {
    const body = Buffer.from(answer.body, "utf8");
    socket.write(
      `HTTP/1.1 ${answer.status} ${reasonPhrases[answer.status] ?? ""}\r\n` +
        `Content-Type: ${answer.contentType}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    socket.write(body);
  }
  socket.destroy();
}
