// Loopback ports for servers that another process (a PostgreSQL server, a CLI node) binds later:
// free when picked, and picked where no listen(0) of the tests running beside is handed them.

import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * The lowest port the kernel hands out by itself (listen(0), outgoing connections): Linux's
 * /proc/sys/net/ipv4/ip_local_port_range, else Linux's default (below macOS's 49152 too).
 */
function ephemeralPortsFrom(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    if (Number.isSafeInteger(low) && low > 0) return low;
  } catch {
    // Not Linux.
  }
  return 32_768;
}

/** Ports picked below the ephemeral range, from here (well above the well-known services). */
const pickedPortsFrom = 10_000;

/** Listens on 127.0.0.1:`port` (0: any) and closes again; the port, or undefined if it was taken. */
function listenOnce(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : undefined));
    });
  });
}

/**
 * A loopback port free now, for a server another process binds later (a PostgreSQL server, a CLI
 * node; an API node started again where its clients are). Picked at random below the ephemeral
 * range, where nobody is given a port without asking for that very port: a port from listen(0),
 * released, went to any of the next listen(0) calls of the tests running beside (about 1 in 10,000
 * each, measured), so a node whose start took seconds on a loaded machine could find it taken.
 */
export async function freeLoopbackPort(): Promise<number> {
  const highest = ephemeralPortsFrom() - 1;
  for (let attempt = 1; attempt <= 100 && highest > pickedPortsFrom; attempt++) {
    const port = await listenOnce(randomInt(pickedPortsFrom, highest + 1));
    if (port !== undefined) return port;
  }
  // No room below the ephemeral range (or all taken): any port, as before.
  const port = await listenOnce(0);
  if (port === undefined) throw new Error("no free loopback port");
  return port;
}
