// With PREDEX_DATABASE_URL set the data is in PostgreSQL: the commands that copy the embedded
// SQLite file (backup, restore) refuse and name PostgreSQL's own tools, rather than
// copy or check a file nobody reads.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);
const cliEntry = new URL("../../src/cli/main.ts", import.meta.url).pathname;

describe("SQLite-only commands on a PostgreSQL deployment", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-cli-pg-"));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = {
    ...process.env,
    PREDEX_DATA_DIR: dataDir,
    // Nothing listens there: the commands must refuse before they would connect.
    PREDEX_DATABASE_URL: "postgres://predex@127.0.0.1:1/predex",
  };

  for (const args of [
    ["backup", join(dataDir, "copy.db")],
    ["restore", join(dataDir, "copy.db")],
  ]) {
    it(`predex ${args.join(" ")} refuses and names what to use instead`, async () => {
      const refused = await run(process.execPath, ["--import", "tsx", cliEntry, ...args], { env }).then(
        () => assert.fail("the command succeeded"),
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /PREDEX_DATABASE_URL is set/);
      assert.match(refused.stderr, /pg_basebackup/);
    });
  }
});
