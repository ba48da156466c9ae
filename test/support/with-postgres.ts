// Runs a command with one throwaway PostgreSQL cluster for all of it: the end-to-end suite's
// PostgreSQL pass (`npm run test:postgres`). The cluster's URL goes to the command as
// PREDEX_TEST_POSTGRES_URL; test/e2e/harness.ts then gives every test platform a database of its own
// on it (CREATE DATABASE takes milliseconds; a cluster per test file would take seconds each).
//
//   tsx test/support/with-postgres.ts node --import tsx --test test/e2e/x.test.ts

import { spawn } from "node:child_process";
import { postgresSkipReason, startPostgresCluster } from "./postgres-cluster.js";

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  console.error("usage: with-postgres.ts COMMAND [ARG…]");
  process.exit(2);
}

// Outside CI without PostgreSQL this says so loudly and skips the pass; with CI=true it throws.
if (postgresSkipReason() !== undefined) process.exit(0);

// Each platform opens a pool (engine, projections, API reads) and tests run two files at once.
const cluster = await startPostgresCluster({ maxConnections: 500 });
const child = spawn(command, args, {
  stdio: "inherit",
  env: { ...process.env, PREDEX_TEST_POSTGRES_URL: cluster.urlOf("postgres") },
});
const stopChild = (signal: NodeJS.Signals) => child.kill(signal);
process.on("SIGINT", stopChild);
process.on("SIGTERM", stopChild);
const code = await new Promise<number>((resolve) => {
  child.on("exit", (exitCode, signal) => resolve(exitCode ?? (signal === null ? 1 : 128)));
});
await cluster.stop();
process.exit(code);
