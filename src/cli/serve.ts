// `predex serve [--demo]`: starts the platform, prints where it listens, stops cleanly on
// Ctrl-C or SIGTERM (the demo's market maker first, so no order is sent into a closing platform).

import { join } from "node:path";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { ConfigError, loadConfig } from "../config.js";
import type { RunningDemo } from "../demo/run-demo.js";
import { adminTokenFileName, localMailWarning, type Platform, startPlatform } from "../server.js";
import { waitForPostgres } from "../store/postgres/database.js";
import { startServeDemo } from "./demo-serve.js";
import { runEngineRole } from "./serve-engine.js";

/** Returns -1: the process keeps running until a signal closes the platform. */
export async function runServe(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: { demo: { type: "boolean", default: false }, role: { type: "string", default: "all" } },
  });
  const loaded = loadConfig();
  if (values.role === "engine") return runEngineRole(loaded);
  if (values.role !== "all" && values.role !== "api") {
    throw new ConfigError(`--role must be engine, api or all (got "${values.role}")`);
  }
  // The demo's market maker sends several requests a second: logged at info, they would bury
  // everything a newcomer reads. PREDEX_LOG_LEVEL=info still shows them.
  const quietDemo = values.demo && !loaded.logLevelGiven;
  const config = quietDemo ? { ...loaded, logLevel: "warn" as const } : loaded;
  if (config.databaseUrl !== undefined) {
    // Started while the database is away (a restart of both, a failover under way): wait for it.
    const logger = pino({ level: config.logLevel });
    await waitForPostgres(
      { url: config.databaseUrl, applicationName: `predex-api:${process.pid}` },
      (error, attempt) => {
        if ((attempt & (attempt - 1)) === 0 || attempt % 60 === 0) {
          logger.warn(
            { err: error, attempt },
            "the database does not answer; waiting for it before starting",
          );
        }
      },
    );
  }
  // Only the demo may create a master key beside the database (src/cli/master-key.ts).
  const platform = await startPlatform(config, {
    masterKeyPolicy: values.demo ? "create-in-data-dir" : "external",
    role: values.role,
  });

  // A stop may come as soon as the addresses are out (a supervisor, a test): the handlers are in
  // place before the first line is printed, and a stop during the demo's start waits for it.
  let demo: Promise<RunningDemo | undefined> = Promise.resolve(undefined);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      console.log(`\n${signal} again: exiting without waiting`);
      process.exit(1);
    }
    stopping = true;
    console.log(`\n${signal}: stopping predex…`);
    demo
      .then((running) => running?.stop())
      .then(() => platform.close())
      .then(
        () => {
          console.log("predex stopped");
          process.exit(0);
        },
        (error: unknown) => {
          console.error("predex: error while stopping", error);
          process.exit(1);
        },
      );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  console.log("predex is running");
  console.log(`  gateway (signed REST + /socket/*)  ${platform.addresses.gateway}`);
  console.log(`  public  (/prices-history, /ws/market) ${platform.addresses.public}`);
  console.log(`  legacy  (/api/...)                 ${platform.addresses.legacy}`);
  console.log(`  admin   (/admin/...)               ${platform.addresses.admin}`);
  console.log(`  API docs at <listener>/docs; data in ${config.dataDir}`);
  if (quietDemo) console.log("  request logs are off with --demo; PREDEX_LOG_LEVEL=info shows them");
  if (config.smtpUrl === undefined) console.log(`\nWARNING: ${localMailWarning(config)}`);
  if (platform.adminTokenCreated) {
    console.log(`\nAdmin token (created now, saved in ${join(config.dataDir, adminTokenFileName)}):`);
    console.log(`  ${platform.adminToken}`);
  }
  printWallet(platform);
  if (values.demo) {
    demo = startServeDemo(platform, config.dataDir);
    await demo;
  }
  return -1;
}

/** Where deposit addresses come from, and the chain wallet's mode (docs/chain.md). */
function printWallet(platform: Platform): void {
  const demoKey = platform.depositKey.demo;
  if (demoKey !== undefined) {
    const where =
      demoKey.path === undefined
        ? "derived from PREDEX_MASTER_KEY, the same on every node"
        : `saved in ${demoKey.path}`;
    console.log(`\nDeposit addresses: DEMO mnemonic — demo, not for real funds (${where}):`);
    console.log(`  ${demoKey.mnemonic}`);
    console.log("  Its keys control every deposit address shown; set PREDEX_DEPOSIT_XPUB for real funds.");
  } else {
    console.log("\nDeposit addresses: children 0/N of PREDEX_DEPOSIT_XPUB (the operator holds the keys)");
  }
  const chain = platform.chainWallet;
  if (chain === undefined) {
    console.log("Chain: none (PREDEX_CHAIN_RPC_URL unset); deposits are credited by the operator");
    return;
  }
  console.log(
    `Chain ${chain.chainId}: watching ${chain.token} (${chain.decimals} decimals), ${chain.confirmations} confirmations; ` +
      (chain.sender === undefined
        ? "withdrawals exported unsigned (predex admin withdrawal export)"
        : `withdrawals paid from hot wallet ${chain.sender.address}`),
  );
}
