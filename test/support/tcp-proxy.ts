// A loopback TCP relay in front of a listener, for tests and benches that take a client's network
// away or move an address: `cut()` ends every connection through it and refuses new ones (a client
// sees its socket drop and its reconnects fail) until `restore()`; `retarget(port)` points it at
// another server and cuts the connections to the old one, as a moved virtual IP, DNS name or
// pgbouncer does after a database failover (bench:db-faults, so that a build that knows one host
// follows a promoted replica). Nothing is interpreted: bytes pass as is.

import { createServer, type Server, Socket } from "node:net";

export class TcpProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #targetHost: string;
  #targetPort: number;
  #cut = false;

  private constructor(server: Server, host: string, port: number) {
    this.#server = server;
    this.#targetHost = host;
    this.#targetPort = port;
  }

  /**
   * Listens on a free loopback port and relays to `target`: an http:// or ws:// URL, or a port on
   * 127.0.0.1.
   */
  static async start(target: string | number): Promise<TcpProxy> {
    const { hostname, port } =
      typeof target === "number" ? { hostname: "127.0.0.1", port: String(target) } : new URL(target);
    const server = createServer();
    const proxy = new TcpProxy(server, hostname, Number(port));
    server.on("connection", (client) => proxy.#accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    return proxy;
  }

  /** The port the relay listens on. */
  get port(): number {
    const address = this.#server.address();
    if (address === null || typeof address !== "object") throw new Error("the proxy is not listening");
    return address.port;
  }

  /** The relay's base URL (http://127.0.0.1:port); SDK clients derive ws:// from it. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The server's port new connections go to. */
  get targetPort(): number {
    return this.#targetPort;
  }

  /** Ends every connection through the proxy and refuses new ones until restore(). */
  cut(): void {
    this.#cut = true;
    this.#endAll();
  }

  restore(): void {
    this.#cut = false;
  }

  /** New connections go to `port` on 127.0.0.1; the ones to the old server are cut (not refused). */
  retarget(port: number): void {
    this.#targetHost = "127.0.0.1";
    this.#targetPort = port;
    this.#endAll();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #endAll(): void {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }

  #accept(client: Socket): void {
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
    upstream.connect(this.#targetPort, this.#targetHost, () => {
      client.pipe(upstream);
      upstream.pipe(client);
    });
  }
}
