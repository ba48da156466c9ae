#!/usr/bin/env node
// The `predex` command (`npm run predex`, or the installed bin): runs the compiled build in dist/
// (`npm run build`; `npm install` makes it), which starts without compiling anything, so a node
// restarted on the failover path is ready sooner (docs/performance.md, bench:start). When the build
// is missing or older than the sources (edited, or deleted, since), it says so on stderr and runs the TypeScript
// sources through tsx instead, as `npm start` does: slower to start, never stale.
import { pathToFileURL } from "node:url";
import { buildState, compiledEntry } from "./build-state.js";

const state = buildState();
if (state.kind === "fresh") {
  await import(pathToFileURL(compiledEntry()).href);
} else {
  process.stderr.write(
    `predex: ${state.reason}; running the TypeScript sources through tsx (slower start). ` +
      "`npm run build` makes the compiled build.\n",
  );
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli/main.ts");
}
