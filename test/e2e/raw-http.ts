// HTTP/1.1 on a raw socket, for what fetch and the SDK will not send: `Upgrade: h2c`, several
// requests written at once on one connection, bytes trickled slowly, any Host header. Writes the
// given bytes, reads until the server closes the connection (or the test's time runs out), and
// parses every response on the wire.

import { connect, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";

export interface WireResponse {
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
}

export interface WireExchange {
  readonly responses: readonly WireResponse[];
  /** True when the server ended or reset the connection before the time ran out. */
  readonly closedByServer: boolean;
  /** The socket error, if the connection was reset rather than closed. */
  readonly error: string | undefined;
}

/** One request's bytes: a head from the lines given (CRLF-joined, blank line added) and a body. */
export function wireRequest(lines: readonly string[], body: string | Buffer = ""): Buffer {
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), Buffer.from(body)]);
}

/** Opens a connection to `baseUrl`; an https URL is reached over TLS trusting `ca`. */
export function openWire(baseUrl: string, ca?: Buffer): Promise<Socket> {
  const { hostname, port, protocol } = new URL(baseUrl);
  const host = hostname.replace(/^\[|\]$/g, "");
  return new Promise((resolve, reject) => {
    const socket: Socket =
      protocol === "https:"
        ? connectTls({ host, port: Number(port), ca }, () => resolve(socket))
        : connect({ host, port: Number(port) }, () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Collects what the server sends on `socket` until it closes it or `timeoutMs` passes. */
export function readWire(socket: Socket, timeoutMs: number): Promise<WireExchange> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const finish = (closedByServer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses: parseResponses(Buffer.concat(chunks)), closedByServer, error });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (cause: Error) => {
      error = (cause as NodeJS.ErrnoException).code ?? cause.message;
    });
    socket.once("close", () => finish(true));
  });
}

/** Writes `bytes` on a new connection and reads what comes back (see readWire). */
export async function exchangeWire(
  baseUrl: string,
  bytes: Buffer,
  timeoutMs = 5_000,
  ca?: Buffer,
): Promise<WireExchange> {
  const socket = await openWire(baseUrl, ca);
  const reading = readWire(socket, timeoutMs);
  socket.write(bytes);
  return reading;
}

/** Every complete response in `wire`, in order. */
export function parseResponses(wire: Buffer): WireResponse[] {
  const responses: WireResponse[] = [];
  let offset = 0;
  while (offset < wire.length) {
    const headEnd = wire.indexOf("\r\n\r\n", offset, "latin1");
    if (headEnd === -1) break;
    const [statusLine, ...headerLines] = wire.subarray(offset, headEnd).toString("latin1").split("\r\n");
    const headers = new Map<string, string>();
    for (const line of headerLines) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
    }
    let bodyStart = headEnd + 4;
    let body: Buffer;
    if (headers.get("transfer-encoding")?.toLowerCase() === "chunked") {
      const parts: Buffer[] = [];
      for (;;) {
        const sizeEnd = wire.indexOf("\r\n", bodyStart, "latin1");
        if (sizeEnd === -1) return responses;
        const size = Number.parseInt(wire.subarray(bodyStart, sizeEnd).toString("latin1"), 16);
        bodyStart = sizeEnd + 2;
        if (size === 0) {
          bodyStart += 2;
          break;
        }
        parts.push(wire.subarray(bodyStart, bodyStart + size));
        bodyStart += size + 2;
      }
      body = Buffer.concat(parts);
      offset = bodyStart;
    } else {
      const length = Number(headers.get("content-length") ?? 0);
      body = wire.subarray(bodyStart, bodyStart + length);
      offset = bodyStart + length;
    }
    responses.push({ status: Number(statusLine?.split(" ")[1]), headers, body: body.toString("utf8") });
  }
  return responses;
}
