// A loopback TCP forwarder standing in for the address an operator's failover moves (a virtual IP,
// a DNS name, a pgbouncer): clients connect to its port and are piped to whichever server it points
// at. retarget() points it elsewhere and cuts every connection piped to the old server, as a moved
// address does. Used by bench:db-faults so that a build that knows only one host can follow a
// promoted replica, and the same address serves both builds.

import { connect as connectTcp, createServer, type Server, type Socket } from "node:net";

export interface TcpForwarder {
  readonly port: number;
  /** The server's port new connections go to. */
  readonly targetPort: number;
  retarget(port: number): void;
  close(): Promise<void>;
}

export async function startTcpForwarder(targetPort: number): Promise<TcpForwarder> {
  let target = targetPort;
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  const server: Server = createServer((client) => {
    const upstream = connectTcp(target, "127.0.0.1");
    const pair = { client, upstream };
    pairs.add(pair);
    const cut = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", cut);
    upstream.on("error", cut);
    client.on("close", cut);
    upstream.on("close", cut);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address !== "object") throw new Error("the proxy has no port");
  return {
    port: address.port,
    get targetPort() {
      return target;
    },
    retarget(port) {
      target = port;
      for (const pair of [...pairs]) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      pairs.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const pair of pairs) {
          pair.client.destroy();
          pair.upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
