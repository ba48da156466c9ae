// `predex openapi [--out docs/openapi]`: writes the OpenAPI document of every listener, generated
// from the route schemas, by starting the platform on free loopback ports in a scratch data dir.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../config.js";
import { startPlatform } from "../server.js";

export async function runOpenapi(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: { out: { type: "string", default: "docs/openapi" } },
  });
  const outDir = resolve(values.out);
  const scratchDir = mkdtempSync(join(tmpdir(), "predex-openapi-"));
  const platform = await startPlatform(
    loadConfig({
      PREDEX_DATA_DIR: scratchDir,
      PREDEX_HOST: "127.0.0.1",
      PREDEX_PORT: "0",
      PREDEX_PUBLIC_PORT: "0",
      PREDEX_LEGACY_PORT: "0",
      PREDEX_ADMIN_PORT: "0",
      PREDEX_ADMIN_TOKEN: "openapi",
      PREDEX_LOG_LEVEL: "silent",
    }),
  );
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
