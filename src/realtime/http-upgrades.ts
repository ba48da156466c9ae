// Which upgrades a listener takes. Node hands every request that offers `Upgrade` to the server's
// 'upgrade' listeners, detached from HTTP, as soon as there is one: `curl --http2 http://…` sends
// `Upgrade: h2c` with each request and would meet a WebSocket handshake's answer. RFC 9110 §7.8
// lets a server ignore an upgrade it does not take and answer the request as it is; a predex
// listener takes WebSocket upgrades only (where it has channels), and serves any other request that
// offers an upgrade as the plain HTTP/1.1 request it also is, body, keep-alive and pipelined
// requests included.
//
// Serving it means handing the connection back to the HTTP server: the request's head is written
// again without its upgrade offer, ahead of the bytes Node had read past it, and the server takes
// the socket as a new connection. Its timeouts and limits then apply as to any request.

import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { TLSSocket } from "node:tls";

/** Takes over a WebSocket upgrade (completes the handshake or writes a refusal and closes). */
export type WebSocketUpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** True when the request offers `websocket` among its upgrade protocols (RFC 6455 §4.2.1). */
export function isWebSocketUpgrade(request: IncomingMessage): boolean {
  const offered = request.headers.upgrade;
  if (offered === undefined) return false;
  return offered.split(",").some((protocol) => protocol.trim().toLowerCase() === "websocket");
}

/**
 * Routes the server's upgrades: WebSocket upgrades to `webSocket` (when the listener has channels),
 * every other upgrade back to the HTTP server as a plain request. Call once per server.
 */
export function routeUpgrades(server: Server, webSocket?: WebSocketUpgradeHandler): void {
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (webSocket !== undefined && isWebSocketUpgrade(request)) {
      // A client that vanishes mid-handshake must not take the process down.
      socket.on("error", () => socket.destroy());
      webSocket(request, socket, head);
      return;
    }
    serveAsPlainRequest(server, request, socket, head);
  });
}

/** Gives a request Node took for an upgrade back to `server` as an ordinary HTTP/1.1 request. */
export function serveAsPlainRequest(
  server: Server,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): void {
  const lines = [`${request.method} ${request.url} HTTP/${request.httpVersion}`];
  const raw = request.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index]!;
    const value = raw[index + 1]!;
    const lowerName = name.toLowerCase();
    if (lowerName === "upgrade") continue;
    if (lowerName === "connection") {
      // Without the `upgrade` option the parser no longer sees an upgrade; keep-alive or close stays.
      const kept = value
        .split(",")
        .map((option) => option.trim())
        .filter((option) => option !== "" && option.toLowerCase() !== "upgrade");
      if (kept.length > 0) lines.push(`${name}: ${kept.join(", ")}`);
      continue;
    }
    lines.push(`${name}: ${value}`);
  }
  // Header bytes came off the wire as latin1 strings: written back byte for byte.
  const requestHead = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
  socket.unshift(Buffer.concat([requestHead, head]));
  // An HTTPS server takes a connection's HTTP side on 'secureConnection', once TLS is up.
  server.emit(socket instanceof TLSSocket ? "secureConnection" : "connection", socket);
}
