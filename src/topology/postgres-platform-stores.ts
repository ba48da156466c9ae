// Every port on PostgreSQL (PREDEX_DATABASE_URL), for an API node (`serve --role api`) or an
// all-in-one node on PostgreSQL (`serve`). The exchange engine of such a node is always a forwarding
// engine (src/cluster/forwarding-engine.ts): commands go to whichever engine node leads, reads run
// on a replica that follows the committed journal. An all-in-one node also starts an engine node in
// the same process (src/topology/engine-node.ts), which follows as a standby and leads when it gets
// the lock; its API half forwards to the leader like any API node (to itself when it leads), so any
// number of all-in-one nodes run side by side.

import type { Logger } from "pino";
import { deriveCommandKey } from "../cluster/command-auth.js";
import { ForwardingEngine } from "../cluster/forwarding-engine.js";
import { loadTopologyConfig, type TopologyConfig } from "../config/topology-config.js";
import { ConfigError } from "../config.js";
import {
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
} from "../core/exchange.js";
import type { ExchangeReadModels } from "../store/exchange-read-models.js";
import { openPostgresPool, type PostgresPool } from "../store/postgres/database.js";
import { openPostgresEngineCluster } from "../store/postgres/engine-cluster.js";
import type { MarketsChangedListener } from "../store/sqlite/market-catalog.js";
import { type EngineNode, startEngineNode } from "./engine-node.js";
import type { PlatformExchange, PlatformExchangeOptions, PlatformStores } from "./platform-stores.js";
import { openPostgresEngineProjectors } from "./postgres-projectors.js";

/**
 * Ports with no PostgreSQL adapter in this build. While one is listed, PREDEX_DATABASE_URL is refused
 * for `serve` and `serve --role api` (engine nodes run: they need only the journal and projectors).
 */
export const missingPostgresPorts: readonly string[] = [
  "exchange read models",
  "merchant commissions",
  "legacy notifications",
  "legacy bills",
];

export interface PostgresPlatformStoresOptions {
  readonly url: string;
  readonly role: "all" | "api";
  readonly masterKey: Buffer;
  readonly logger: Logger;
  readonly topology?: TopologyConfig;
}

export async function openPostgresPlatformStores(
  _options: PostgresPlatformStoresOptions,
): Promise<PlatformStores> {
  if (missingPostgresPorts.length > 0) {
    throw new ConfigError(
      `PREDEX_DATABASE_URL is set, but this build has no PostgreSQL adapter yet for: ${missingPostgresPorts.join(", ")}. ` +
        "Unset it for SQLite (engine nodes run already: serve --role engine)",
    );
  }
  // Reached once every adapter exists: the ports are wired here (see docs/postgres-plan.md).
  throw new ConfigError("PostgreSQL platform stores are not wired in this build");
}

/** Markets a batch touched, as the catalogue's projector tells the catalogue on the leader. */
export function marketsTouched(
  entries: readonly { readonly events: readonly ExchangeEvent[] }[],
): ReadonlySet<number> {
  const touched = new Set<number>();
  for (const entry of entries) {
    for (const event of entry.events) {
      if ("marketId" in event && typeof event.marketId === "number") touched.add(event.marketId);
    }
  }
  return touched;
}

/**
 * The exchange of a PostgreSQL node: a forwarding engine on a replica of the journal, and for an
 * all-in-one node an engine node beside it. Markets the followed batches touch go to
 * `marketsChanged` (the catalogue's cache on this node).
 */
export async function openPostgresExchange(
  pool: PostgresPool,
  options: PostgresPlatformStoresOptions & {
    readonly readModels: ExchangeReadModels;
    readonly marketsChanged: readonly MarketsChangedListener[];
    readonly exchange: PlatformExchangeOptions;
  },
): Promise<PlatformExchange> {
  const topology = options.topology ?? loadTopologyConfig(process.env, (message) => new ConfigError(message));
  let engineNode: EngineNode | undefined;
  if (options.role === "all") {
    engineNode = await startEngineNode({
      databaseUrl: options.url,
      topology,
      masterKey: options.masterKey,
      logger: options.exchange.logger,
      openProjectors: openPostgresEngineProjectors,
      clock: options.exchange.clock,
      ...(options.exchange.limits === undefined ? {} : { limits: options.exchange.limits }),
      ...(options.exchange.observer === undefined ? {} : { observer: options.exchange.observer }),
      onFatal: (reason) => options.exchange.onFatal(reason),
      journalArchiveDir: options.exchange.journalArchiveDir,
    });
  }
  const applicationName = `predex-api:${process.pid}`;
  const cluster = await openPostgresEngineCluster<ExchangeCommand, ExchangeEvent>(pool, {
    url: options.url,
    applicationName,
  });
  const engine = await ForwardingEngine.start<ExchangeState, ExchangeCommand, ExchangeEvent>({
    decider: exchangeDecider,
    codec: exchangeStateCodec,
    cluster,
    key: deriveCommandKey(options.masterKey),
    logger: options.exchange.logger.child({ component: "forwarding" }),
    failoverDeadlineMs: topology.failoverDeadlineMs,
  });
  engine.onCommitted((entries) => {
    const touched = marketsTouched(entries);
    if (touched.size > 0) for (const listener of options.marketsChanged) listener(touched);
  });
  return {
    engine,
    readModels: options.readModels,
    journalArchiver: undefined,
    async close() {
      await engine.close();
      await engineNode?.close();
    },
  };
}

/** The pool of an API node's ports: its sessions are named, so an operator sees whose they are. */
export function openApiNodePool(url: string): PostgresPool {
  return openPostgresPool({ url, applicationName: `predex-api:${process.pid}`, poolConnectionsMax: 20 });
}
