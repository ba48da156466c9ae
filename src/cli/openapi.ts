// `predex openapi [--out docs/openapi]`: writes the OpenAPI document of every listener, generated
// from the route schemas, by starting the platform on free loopback ports in a scratch data dir.
// Each document's `servers` is where that listener is reached by the operator's settings: its
// PREDEX_*BASE_URL, else PREDEX_HOST and its PREDEX_*PORT (the defaults: http://127.0.0.1:8080 …),
// never the scratch platform's own ports.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type ListenerConfig, loadConfig, type PlatformConfig } from "../config.js";
import { startPlatform } from "../server.js";

export async function runOpenapi(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: { out: { type: "string", default: "docs/openapi" } },
  });
  const outDir = resolve(values.out);
  const scratchDir = mkdtempSync(join(tmpdir(), "predex-openapi-"));
  const settings = loadConfig();
  const scheme = settings.tls === undefined ? "http" : "https";
  const servedAt = (listener: ListenerConfig, listenerScheme: string): string =>
    listener.baseUrl ?? `${listenerScheme}://${listener.host}:${listener.port}`;
  const scratch = loadConfig({
    PREDEX_DATA_DIR: scratchDir,
    PREDEX_HOST: "127.0.0.1",
    PREDEX_PORT: "0",
    PREDEX_PUBLIC_PORT: "0",
    PREDEX_LEGACY_PORT: "0",
    PREDEX_ADMIN_PORT: "0",
    PREDEX_ADMIN_TOKEN: "openapi",
    PREDEX_LOG_LEVEL: "silent",
  });
  const withBaseUrl = (listener: ListenerConfig, baseUrl: string): ListenerConfig => ({
    ...listener,
    baseUrl,
  });
  const config: PlatformConfig = {
    ...scratch,
    gateway: withBaseUrl(scratch.gateway, servedAt(settings.gateway, scheme)),
    public: withBaseUrl(scratch.public, servedAt(settings.public, scheme)),
    legacy: withBaseUrl(scratch.legacy, servedAt(settings.legacy, scheme)),
    // The admin listener is never served over TLS.
    admin: withBaseUrl(scratch.admin, servedAt(settings.admin, "http")),
  };
  const platform = await startPlatform(config);
  try {
    mkdirSync(outDir, { recursive: true });
    for (const [surface, app] of Object.entries(platform.apps)) {
      const path = join(outDir, `${surface}.json`);
      writeFileSync(path, `${JSON.stringify(app.swagger(), null, 2)}\n`);
      console.log(`wrote ${path}`);
    }
  } finally {
    await platform.close();
    rmSync(scratchDir, { recursive: true, force: true });
  }
  return 0;
}
