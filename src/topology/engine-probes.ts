// GET /healthz and GET /readyz of an engine node (`serve --role engine`), which has no admin
// listener: the answers the admin listener's probes give (src/api/admin/routes/health.ts), for an
// orchestrator's liveness and readiness checks. Ready means the node follows or leads, the database
// answers, and some engine node (this one or another) leads with a live lease: while the database is
// away, or during a failover with no leader yet, it is 503, so a deployment's health shows the outage.
// Its own small pool (not the node's: that one is rebuilt on every step-down), named so that no
// takeover ends its sessions.

import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { openPostgresPool } from "../store/postgres/database.js";
import { openPostgresOperationsQueries } from "../store/postgres/operations-queries.js";
import type { EngineNodeRole } from "./engine-node.js";

export interface EngineProbesOptions {
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  readonly databaseUrl: string;
  /** Where the node is ("starting" until it has loaded its state). */
  readonly role: () => EngineNodeRole;
}

export interface EngineProbes {
  /** http://host:port of the bound address. */
  readonly url: string;
  close(): Promise<void>;
}

/** A probe answers within the ping timeout; opening a connection is bounded as tightly. */
const probeConnectTimeoutMs = 2_000;

interface Readiness {
  readonly ready: boolean;
  readonly engine: EngineNodeRole;
  readonly database: "ok" | "unreachable";
  readonly leader: "ok" | "none" | "unknown";
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}

export async function startEngineProbes(options: EngineProbesOptions): Promise<EngineProbes> {
  const pool = openPostgresPool({
    url: options.databaseUrl,
    applicationName: `predex-engine-probe:${process.pid}`,
    poolConnectionsMax: 2,
    connectTimeoutMs: probeConnectTimeoutMs,
  });
  const operations = await openPostgresOperationsQueries(pool);

  const readiness = async (): Promise<Readiness> => {
    const engine = options.role();
    try {
      await operations.ping();
      const lease = await operations.engineLeader();
      const leader = lease === undefined || lease.live ? "ok" : "none";
      const ready = leader === "ok" && (engine === "leading" || engine === "standby");
      return { ready, engine, database: "ok", leader };
    } catch {
      return { ready: false, engine, database: "unreachable", leader: "unknown" };
    }
  };

  const server = createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0];
    if (request.method !== "GET" || (path !== "/healthz" && path !== "/readyz")) {
      send(response, 404, { code: 1404, message: "not found", data: null });
      return;
    }
    if (path === "/healthz") {
      send(response, 200, { code: 0, message: "ok", data: { status: "alive" } });
      return;
    }
    readiness().then(
      (data) => {
        if (data.ready) {
          send(response, 200, { code: 0, message: "ok", data });
          return;
        }
        const reason =
          data.database !== "ok"
            ? "database unreachable"
            : data.leader !== "ok"
              ? "no engine leader"
              : `engine node ${data.engine}`;
        send(response, 503, { code: 2002, message: `not ready: ${reason}`, data });
      },
      () => send(response, 503, { code: 2002, message: "not ready", data: null }),
    );
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, options.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await pool.end();
    throw error;
  }
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await pool.end();
    },
  };
}
