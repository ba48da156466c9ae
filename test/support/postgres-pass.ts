// The end-to-end suite's PostgreSQL pass (`npm run test:postgres`): every test/e2e file again, each
// test platform on a database of its own in one throwaway cluster (with-postgres.ts sets
// PREDEX_TEST_POSTGRES_URL; test/e2e/harness.ts does the rest), except the files below. A file is
// left out only when what it tests is SQLite's own, never to hide a failure: the reason is written
// beside it. Outside CI without PostgreSQL the pass skips loudly; with CI=true it fails.
//
//   tsx test/support/postgres-pass.ts [FILE…]     (default: the whole suite minus the list)

import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative } from "node:path";

const e2eDirectory = join(import.meta.dirname, "../e2e");

/** Files of test/e2e not run on PostgreSQL, with the reason. */
export const sqliteOnlyE2eFiles: Readonly<Record<string, string>> = {
  "backup-restore.test.ts":
    "predex backup/restore is SQLite's online backup of the database file; on PostgreSQL an operator backs up the server (pg_basebackup/PITR, docs/deployment.md)",
  "postgres-legacy-rate-limit.test.ts":
    "already runs on PostgreSQL in the main pass (its own cluster and two API nodes)",
  "engine-failure-answers.test.ts":
    "locks the single-process engine's SQLite file; PostgreSQL outages have their own test (test/topology/database-outage.test.ts)",
};

const requested = process.argv.slice(2);
const files =
  requested.length > 0
    ? requested
    : readdirSync(e2eDirectory)
        .filter((name) => name.endsWith(".test.ts") && sqliteOnlyE2eFiles[name] === undefined)
        .sort()
        .map((name) => relative(process.cwd(), join(e2eDirectory, name)));

// Test files mostly wait on PostgreSQL round trips: a file more than the cores keeps them busy.
const concurrency = Math.max(2, Math.min(4, availableParallelism()));
const child = spawn(
  process.execPath,
  [
    "--import",
    "tsx",
    join(import.meta.dirname, "with-postgres.ts"),
    process.execPath,
    "--import",
    "tsx",
    "--test",
    `--test-concurrency=${concurrency}`,
    ...files,
  ],
  { stdio: "inherit" },
);
const stopChild = (signal: NodeJS.Signals) => child.kill(signal);
process.on("SIGINT", stopChild);
process.on("SIGTERM", stopChild);
child.on("exit", (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)));
