// Whether the compiled build (dist/, made by `npm run build`, which `npm install` runs) matches the
// TypeScript sources it was built from. `predex` (bin/predex.js) runs the build when it is fresh and
// falls back to the sources through tsx otherwise; the build, its test and bench:start use it too.
// Plain JavaScript, so the fast path of `predex` loads no compiler.

import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const projectRoot = fileURLToPath(new URL("..", import.meta.url));
export const buildDirectoryName = "dist";
/** Written by tools/build.ts after a successful build, dated when the build started. */
export const buildStampName = ".build-stamp";
/** Not in the build: the devnet is a development tool on development dependencies (tsconfig.build.json). */
const sourcesNotBuilt = ["src/chain/devnet"];

/** The build's entry point: the `predex` command compiled. */
export function compiledEntry(root = projectRoot) {
  return join(root, buildDirectoryName, "cli", "main.js");
}

/**
 * "fresh": every source is older than the build's stamp, and every compiled module still has its
 * source. "missing": no complete build. "stale": a source (named) changed after the build started,
 * or a compiled module (named) lost its source: a route file deleted since the build would still
 * be loaded from dist/ (every routes/ file found is).
 */
export function buildState(root = projectRoot) {
  const stamp = join(root, buildDirectoryName, buildStampName);
  if (!existsSync(stamp) || !existsSync(compiledEntry(root))) {
    return { kind: "missing", reason: `no compiled build in ${join(root, buildDirectoryName)}` };
  }
  const builtAtMs = statSync(stamp).mtimeMs;
  const sources = join(root, "src");
  /** Each built source's path below src/, without `.ts`. */
  const built = new Set();
  for (const entry of readdirSync(sources, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    const relativePath = relative(root, path);
    if (sourcesNotBuilt.some((excluded) => relativePath.startsWith(`${excluded}/`))) continue;
    if (statSync(path).mtimeMs > builtAtMs) {
      return { kind: "stale", reason: `${relativePath} changed after the compiled build` };
    }
    built.add(relative(sources, path).slice(0, -".ts".length));
  }
  const build = join(root, buildDirectoryName);
  for (const entry of readdirSync(build, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".js")) continue;
    const module = relative(build, join(entry.parentPath ?? entry.path, entry.name));
    if (!built.has(module.slice(0, -".js".length))) {
      return { kind: "stale", reason: `${buildDirectoryName}/${module} has no source any more` };
    }
  }
  return { kind: "fresh", reason: "the compiled build is up to date" };
}
