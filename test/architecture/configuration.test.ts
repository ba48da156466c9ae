// Configuration is read in one place: src/config.ts and src/config/ parse every PREDEX_* variable
// into the platform's configuration, and the rest of src is handed what it needs. A file that
// reads process.env itself is found here.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, it } from "node:test";

const repositoryRoot = resolve(import.meta.dirname, "../..");
const source = join(repositoryRoot, "src");

/** Files outside src/config that may touch process.env, with the reason. */
const allowed: Readonly<Record<string, string>> = {
  "src/chain/devnet/devnet.ts": "hands its own environment on to the Hardhat child process it starts",
  "src/chain/devnet/dev.ts": "`npm run chain:dev`, a developer's script, not the platform (CHAIN_DEV_PORT)",
};

function typeScriptFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

function isConfiguration(file: string): boolean {
  return file === "src/config.ts" || file.startsWith("src/config/");
}

describe("configuration", () => {
  it("is read from process.env only in src/config", () => {
    const readers = typeScriptFiles(source)
      .map((path) => relative(repositoryRoot, path))
      .filter((file) => !isConfiguration(file) && allowed[file] === undefined)
      .filter((file) => /\bprocess\.env\b/.test(readFileSync(join(repositoryRoot, file), "utf8")));
    assert.deepEqual(readers, []);
  });
});
