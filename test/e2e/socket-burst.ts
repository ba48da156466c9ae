// Sends many HTTP requests so that they reach the server in the same turn of its event loop: every
// connection is opened first, then all request bytes are written in one synchronous loop. fetch
// (undici) opens connections lazily and spreads a burst over many turns, which a single-process
// test cannot use to fill the engine's queue.

import { connect, type Server, type Socket } from "node:net";
import { setImmediate as nextTurn } from "node:timers/promises";

export interface BurstRequest {
  readonly method: string;
  readonly pathAndQuery: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
}

export interface BurstResponse {
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
}

/**
 * `server` is the listener's own server (in this process): the burst is written only once it has
 * accepted every connection, since the kernel completes a handshake long before the server's accept.
 */
export async function sendBurst(
  server: Server,
  baseUrl: string,
  requests: readonly BurstRequest[],
): Promise<BurstResponse[]> {
  const { hostname, port } = new URL(baseUrl);
  const connectionsBefore = await connectionsOf(server);
  const sockets = await Promise.all(
    requests.map(
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect({ host: hostname, port: Number(port) }, () => resolve(socket));
          socket.once("error", reject);
        }),
    ),
  );
  while ((await connectionsOf(server)) < connectionsBefore + sockets.length) await nextTurn();
  const answers = sockets.map(
    (socket) =>
      new Promise<BurstResponse>((resolve, reject) => {
        const chunks: Buffer[] = [];
        socket.on("data", (chunk: Buffer) => chunks.push(chunk));
        socket.once("error", reject);
        socket.once("end", () => resolve(parseResponse(Buffer.concat(chunks).toString("utf8"))));
      }),
  );
  requests.forEach((request, index) => {
    const body = request.body ?? Buffer.alloc(0);
    const head = [
      `${request.method} ${request.pathAndQuery} HTTP/1.1`,
      `host: ${hostname}:${port}`,
      "connection: close",
      `content-length: ${body.length}`,
      ...Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`),
      "",
      "",
    ].join("\r\n");
    sockets[index]!.write(Buffer.concat([Buffer.from(head, "utf8"), body]));
  });
  return Promise.all(answers);
}

function parseResponse(text: string): BurstResponse {
  const headEnd = text.indexOf("\r\n\r\n");
  const [statusLine, ...headerLines] = text.slice(0, headEnd).split("\r\n");
  const headers = new Map<string, string>();
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  let body = text.slice(headEnd + 4);
  if (headers.get("transfer-encoding") === "chunked") body = unchunk(body);
  return { status: Number(statusLine?.split(" ")[1]), headers, body };
}

function unchunk(text: string): string {
  let out = "";
  let rest = text;
  for (;;) {
    const lineEnd = rest.indexOf("\r\n");
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

function connectionsOf(server: Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}
