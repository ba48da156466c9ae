// `npm run test:fast`: the unit and property tests, for everyday work. No browser, no PostgreSQL,
// no platform server, no child process: the core's deciders and their properties, the realtime
// hub's parts, signing, the SDK's pieces, configuration and the layer rules. Under a minute on the
// 2-core development machine. `npm test` runs everything, these included.
//
//   tsx test/support/fast-pass.ts [FILE…]     (default: every file of the directories below)

import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";

const repositoryRoot = join(import.meta.dirname, "../..");

/** Directories whose every test file is a unit or property test. */
const fastDirectories = [
  "test/core",
  "test/realtime",
  "test/gateway",
  "test/identity",
  "test/legacy",
  "test/metrics",
  "test/mfa",
  "test/wallet",
  "test/web",
  "test/contract",
  "test/api",
  "test/architecture",
  "test/support",
  "test/bench",
];

/** Single files elsewhere that are unit tests too. */
const fastFiles = [
  "test/config.test.ts",
  "test/sdk/client.test.ts",
  "test/sdk/signer.test.ts",
  "test/sdk/user-subscription.test.ts",
  "test/catalog/category-tree.test.ts",
  "test/catalog/hot-score.test.ts",
  "test/catalog/languages.test.ts",
  "test/catalog/market-search-query.test.ts",
  "test/store/engine-journal.test.ts",
];

function testFilesIn(directory: string): string[] {
  return readdirSync(join(repositoryRoot, directory), { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return testFilesIn(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

const requested = process.argv.slice(2);
const files =
  requested.length > 0
    ? requested
    : [...fastDirectories.flatMap(testFilesIn), ...fastFiles]
        .sort()
        .map((file) => relative(process.cwd(), join(repositoryRoot, file)));

const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=2", ...files], {
  stdio: "inherit",
});
const stopChild = (signal: NodeJS.Signals) => child.kill(signal);
process.on("SIGINT", stopChild);
process.on("SIGTERM", stopChild);
child.on("exit", (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)));
