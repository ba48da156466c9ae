// Loads every route file of a surface's routes/ folder, in file-name order. Parts of the platform
// built in parallel each add their own file; no shared index has to be edited.

import { existsSync, readdirSync } from "node:fs";
import type { PlatformDeps } from "../deps.js";
import type { RoutePlugin, TypeBoxApp } from "./typebox-app.js";

const routeFilePattern = /^[^.].*(?<!\.d|\.test)\.(ts|js)$/;

export async function registerRouteFiles(app: TypeBoxApp, deps: PlatformDeps, directory: URL): Promise<void> {
  // A surface whose routes have not been written yet has no folder (git keeps no empty ones).
  if (!existsSync(directory)) return;
  const files = readdirSync(directory)
    .filter((file) => routeFilePattern.test(file))
    .sort();
  for (const file of files) {
    const module: { default?: unknown } = await import(new URL(file, directory).href);
    if (typeof module.default !== "function") {
      throw new Error(`${new URL(file, directory).pathname} must export a route plugin as default`);
    }
    const plugin = module.default as RoutePlugin;
    await app.register(async (scope) => plugin(scope, deps));
  }
}
