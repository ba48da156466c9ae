// `predex serve --role engine`: an engine node on PostgreSQL (src/topology/engine-node.ts). It needs
// PREDEX_DATABASE_URL and the deployment's PREDEX_MASTER_KEY (API nodes authenticate to its command
// port with a key derived from it); everything else has a default, so several engine nodes run side
// by side on one machine with no further settings. It prints a line where its probes listen
// (GET /healthz, /readyz: PREDEX_ADMIN_HOST and PREDEX_ENGINE_PROBE_PORT, any free port by default),
// one when it starts following, one each time it leads and one each time it steps down. A database
// that is away (at start too) is waited out; the process ends only on a signal or a broken invariant.

import { pino } from "pino";
import { defaultTopologyConfig } from "../config/topology-config.js";
import { ConfigError, type PlatformConfig } from "../config.js";
import { openPostgresPool } from "../store/postgres/database.js";
import { reportReplicationAtStart } from "../store/postgres/replication-status.js";
import { type EngineNode, startEngineNode } from "../topology/engine-node.js";
import { startEngineProbes } from "../topology/engine-probes.js";
import { openPostgresEngineProjectors } from "../topology/postgres-projectors.js";
import { resolveMasterKey } from "./master-key.js";

/** Returns -1: the process keeps running until a signal (or a broken invariant) ends it. */
export async function runEngineRole(config: PlatformConfig): Promise<number> {
  if (config.databaseUrl === undefined) {
    throw new ConfigError(
      "serve --role engine needs PREDEX_DATABASE_URL (postgres://…): engine nodes share it",
    );
  }
  const topology = config.topology ?? defaultTopologyConfig();
  const resolvedKey = resolveMasterKey(config, "external");
  const logger = pino({ level: config.logLevel });
  for (const warning of resolvedKey.warnings) logger.warn(warning);
  let node: EngineNode | undefined;
  const probes = await startEngineProbes({
    host: config.admin.host,
    port: topology.engineProbePort ?? 0,
    databaseUrl: config.databaseUrl,
    role: () => node?.role ?? "starting",
  });
  console.log(`predex engine node: probes at ${probes.url} (GET /healthz, GET /readyz)`);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`\n${signal}: stopping the engine node…`);
    (node?.close() ?? Promise.resolve())
      .then(() => probes.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error("predex: error while stopping", error);
          process.exit(1);
        },
      );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // Resolves once the node has loaded its state: a database that is away is waited out (logged).
  node = await startEngineNode({
    databaseUrl: config.databaseUrl,
    topology,
    masterKey: resolvedKey.key,
    logger,
    openProjectors: openPostgresEngineProjectors,
  });
  const { nodeId } = node;
  console.log(`predex engine node ${nodeId}: standby, following the journal from ${node.followingFrom}`);
  node.onLeading((leader) =>
    console.log(
      `predex engine node ${nodeId}: leading (epoch ${leader.epoch}, took over at sequence ${leader.tookOverAt}), commands at ${leader.commandUrl}`,
    ),
  );
  node.onSteppedDown((reason, sequence) =>
    console.log(
      `predex engine node ${nodeId}: stepped down (${reason.message}); standby again, following the journal from ${sequence}`,
    ),
  );
  // Without synchronous replication a failover of the database may lose acknowledged orders. Read
  // once the node has started (the database answers) and its listeners are in place: the node may
  // lead while this runs, and that line must not be missed.
  const probe = openPostgresPool({ url: config.databaseUrl, applicationName: "predex-engine-start" });
  try {
    await reportReplicationAtStart(probe, logger);
  } finally {
    await probe.end();
  }
  return -1;
}
