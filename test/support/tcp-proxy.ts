// A loopback TCP proxy in front of a listener, for tests that take a client's network away and
// give it back: `cut()` ends every connection through it and refuses new ones (a client sees its
// socket drop and its reconnects fail) until `restore()`. Nothing is interpreted: bytes pass as is.

import { createServer, type Server, Socket } from "node:net";

export class TcpProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #cut = false;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Listens on a free loopback port and forwards to `target` (an http:// or ws:// URL). */
  static async start(target: string): Promise<TcpProxy> {
    const { hostname, port } = new URL(target);
    const server = createServer();
    const proxy = new TcpProxy(server);
    server.on("connection", (client) => proxy.#accept(client, hostname, Number(port)));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    return proxy;
  }

  /** The proxy's base URL (http://127.0.0.1:port); SDK clients derive ws:// from it. */
  get url(): string {
    const address = this.#server.address();
    if (address === null || typeof address !== "object") throw new Error("the proxy is not listening");
    return `http://127.0.0.1:${address.port}`;
  }

  /** Ends every connection through the proxy and refuses new ones until restore(). */
  cut(): void {
    this.#cut = true;
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }

  restore(): void {
    this.#cut = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: Socket, host: string, port: number): void {
    if (this.#cut) {
      client.destroy();
      return;
    }
    const upstream = new Socket();
    this.#sockets.add(client);
    this.#sockets.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    upstream.connect(port, host, () => {
      client.pipe(upstream);
      upstream.pipe(client);
    });
  }
}
