// `predex serve --role engine`: an engine node on PostgreSQL (src/topology/engine-node.ts). It needs
// PREDEX_DATABASE_URL and the deployment's PREDEX_MASTER_KEY (API nodes authenticate to its command
// port with a key derived from it); everything else has a default, so several engine nodes run side
// by side on one machine with no further settings. It prints one line when it starts following and
// one when it leads; it exits (for a supervisor to restart it) when it loses leadership.

import { pino } from "pino";
import { loadTopologyConfig } from "../config/topology-config.js";
import { ConfigError, type PlatformConfig } from "../config.js";
import { openPostgresPool } from "../store/postgres/database.js";
import { reportReplicationAtStart } from "../store/postgres/replication-status.js";
import { startEngineNode } from "../topology/engine-node.js";
import { openPostgresEngineProjectors } from "../topology/postgres-projectors.js";
import { resolveMasterKey } from "./master-key.js";

/** Returns -1: the process keeps running until a signal (or lost leadership) ends it. */
export async function runEngineRole(config: PlatformConfig): Promise<number> {
  if (config.databaseUrl === undefined) {
    throw new ConfigError(
      "serve --role engine needs PREDEX_DATABASE_URL (postgres://…): engine nodes share it",
    );
  }
  const topology = loadTopologyConfig(process.env, (message) => new ConfigError(message));
  const resolvedKey = resolveMasterKey(config, "external");
  const logger = pino({ level: config.logLevel });
  for (const warning of resolvedKey.warnings) logger.warn(warning);
  // Without synchronous replication a failover of the database may lose acknowledged orders.
  const probe = openPostgresPool({ url: config.databaseUrl, applicationName: "predex-engine-start" });
  try {
    await reportReplicationAtStart(probe, logger);
  } finally {
    await probe.end();
  }
  const node = await startEngineNode({
    databaseUrl: config.databaseUrl,
    topology,
    masterKey: resolvedKey.key,
    logger,
    openProjectors: openPostgresEngineProjectors,
  });
  console.log(`predex engine node ${node.nodeId}: standby, following the journal from ${node.followingFrom}`);
  node.leading.then(
    (leader) =>
      console.log(
        `predex engine node ${node.nodeId}: leading (epoch ${leader.epoch}, took over at sequence ${leader.tookOverAt}), commands at ${leader.commandUrl}`,
      ),
    () => {},
  );
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`\n${signal}: stopping the engine node…`);
    node.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("predex: error while stopping", error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return -1;
}
