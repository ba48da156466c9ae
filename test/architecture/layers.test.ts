// The layer rules (.dependency-cruiser.cjs) hold on the code, and they fire: a small tree of files,
// each breaking one rule with one import, must give exactly the violations expected, and the
// imports that go the right way must give none.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);
const repositoryRoot = resolve(import.meta.dirname, "../..");
const rules = join(repositoryRoot, ".dependency-cruiser.cjs");
const cruiser = join(repositoryRoot, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");

interface Violation {
  readonly from: string;
  readonly to: string;
  readonly rule: { readonly name: string };
}

/** Runs the cruiser with the repository's rules in `cwd` and returns the violations. */
async function cruise(cwd: string, paths: readonly string[]): Promise<Violation[]> {
  // The cruiser exits non-zero when it finds a violation; the JSON report is on stdout either way.
  const output = await run(
    process.execPath,
    [cruiser, ...paths, "--config", rules, "--output-type", "json"],
    {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
    },
  ).catch((error: { stdout?: string }) => {
    if (typeof error.stdout === "string" && error.stdout.startsWith("{")) return { stdout: error.stdout };
    throw error;
  });
  return (JSON.parse(output.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

/** One forbidden import each: file → what it imports → the rule that must fire. */
const forbidden: readonly { file: string; imports: string; rule: string }[] = [
  { file: "src/core/uses-api.ts", imports: "../api/a.js", rule: "core-imports-only-itself" },
  { file: "src/core/reads-disk.ts", imports: "node:fs", rule: "core-does-no-io" },
  { file: "src/contract/uses-core.ts", imports: "../core/market.js", rule: "contract-imports-only-itself" },
  { file: "src/sdk/uses-server.ts", imports: "../api/a.js", rule: "sdk-imports-only-contract" },
  { file: "src/engine/uses-store.ts", imports: "../store/sqlite/a.js", rule: "engine-imports-only-core" },
  {
    file: "src/store/port-uses-service.ts",
    imports: "../catalog/a.js",
    rule: "ports-imports-only-core-engine-contract",
  },
  {
    file: "src/store/sqlite/uses-service.ts",
    imports: "../../legacy/a.js",
    rule: "adapters-imports-only-core-engine-ports-contract",
  },
  { file: "src/store/memory/uses-sqlite.ts", imports: "../sqlite/a.js", rule: "adapters-stand-apart" },
  {
    file: "src/realtime/uses-surface.ts",
    imports: "../api/a.js",
    rule: "services-imports-only-core-engine-ports-contract",
  },
  {
    file: "src/legacy/uses-adapter.ts",
    imports: "../store/sqlite/a.js",
    rule: "services-imports-only-core-engine-ports-contract",
  },
  {
    file: "src/api/uses-adapter.ts",
    imports: "../store/sqlite/a.js",
    rule: "surfaces-imports-only-core-engine-ports-services-contract-settings",
  },
  {
    file: "src/api/uses-composition.ts",
    imports: "../server.js",
    rule: "surfaces-imports-only-core-engine-ports-services-contract-settings",
  },
  { file: "src/core/cycle-a.ts", imports: "./cycle-b.js", rule: "no-circular" },
];

/** Imports that go the right way. */
const allowed: readonly { file: string; imports: string }[] = [
  { file: "src/sdk/ok.ts", imports: "../contract/a.js" },
  { file: "src/engine/ok.ts", imports: "../core/market.js" },
  { file: "src/store/ok-port.ts", imports: "../core/market.js" },
  { file: "src/store/sqlite/ok.ts", imports: "../ok-port.js" },
  { file: "src/catalog/ok.ts", imports: "../store/ok-port.js" },
  { file: "src/api/ok.ts", imports: "../catalog/ok.js" },
  { file: "src/api/ok-settings.ts", imports: "../config.js" },
  { file: "src/server.ts", imports: "./store/sqlite/ok.js" },
];

describe("the layer rules", () => {
  let fixture: string;

  before(() => {
    fixture = mkdtempSync(join(tmpdir(), "predex-layers-"));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(fixture, path)), { recursive: true });
      writeFileSync(join(fixture, path), text);
    };
    write(
      "tsconfig.json",
      JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext" } }),
    );
    // The targets the fixtures import.
    for (const target of [
      "src/api/a.ts",
      "src/core/market.ts",
      "src/contract/a.ts",
      "src/store/sqlite/a.ts",
      "src/catalog/a.ts",
      "src/legacy/a.ts",
      "src/config.ts",
    ]) {
      write(target, "export const value = 1;\n");
    }
    write("src/core/cycle-b.ts", 'import { value } from "./cycle-a.js";\nexport const other = value;\n');
    for (const { file, imports } of [...forbidden, ...allowed]) {
      const text = imports.startsWith("node:")
        ? `import { readFileSync } from "${imports}";\nexport const value = readFileSync;\n`
        : `import { value as imported } from "${imports}";\nexport const value = imported;\n`;
      write(file, text);
    }
  });

  after(() => rmSync(fixture, { recursive: true, force: true }));

  it("fire on every forbidden import, and on nothing else", async () => {
    const violations = await cruise(fixture, ["src"]);
    const found = violations.map((violation) => `${violation.from} ${violation.rule.name}`).sort();
    const expected = forbidden.map(({ file, rule }) => `${file} ${rule}`).sort();
    assert.deepEqual(found, expected);
  });

  it("hold on the code", async () => {
    const violations = await cruise(repositoryRoot, ["src", "tools"]);
    assert.deepEqual(
      violations.map((violation) => `${violation.from} → ${violation.to}: ${violation.rule.name}`),
      [],
    );
  });
});
