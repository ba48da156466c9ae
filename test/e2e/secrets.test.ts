// Secrets at rest: a production start (`predex serve` without --demo) never creates the master key
// beside the database, and every data file the platform writes is readable by its owner only.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";
import { ConfigError } from "../../src/config.js";
import { startPlatform } from "../../src/server.js";
import { startTestPlatform, testingOnPostgres, testPlatformConfig, testPlatformEnv } from "./harness.js";

const run = promisify(execFile);
const cliEntry = new URL("../../src/cli/main.ts", import.meta.url).pathname;
const directories: string[] = [];
after(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "predex-secrets-"));
  directories.push(directory);
  return directory;
}

const hexKey = "a".repeat(64);

describe("a production start", () => {
  it("refuses to create a master key beside the database, and says what to set", async () => {
    const dataDir = temporaryDirectory();
    await assert.rejects(
      startPlatform(testPlatformConfig(dataDir), { masterKeyPolicy: "external" }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /PREDEX_MASTER_KEY/.test(error.message) &&
        /PREDEX_MASTER_KEY_FILE/.test(error.message),
    );
    assert.deepEqual(readdirSync(dataDir), [], "nothing was created: no key, no database");
  });

  it("refuses a PREDEX_MASTER_KEY_FILE inside the data directory", async () => {
    const dataDir = temporaryDirectory();
    const keyFile = join(dataDir, "my.key");
    writeFileSync(keyFile, hexKey, { mode: 0o600 });
    await assert.rejects(
      startPlatform(testPlatformConfig(dataDir, { PREDEX_MASTER_KEY_FILE: keyFile }), {
        masterKeyPolicy: "external",
      }),
      (error: unknown) => error instanceof ConfigError && /inside the data directory/.test(error.message),
    );
  });

  it("starts with PREDEX_MASTER_KEY_FILE outside the data directory, and creates no key file", async () => {
    const dataDir = temporaryDirectory();
    const keyFile = join(temporaryDirectory(), "master.key");
    writeFileSync(keyFile, hexKey, { mode: 0o600 });
    const platform = await startPlatform(testPlatformConfig(dataDir, { PREDEX_MASTER_KEY_FILE: keyFile }), {
      masterKeyPolicy: "external",
    });
    try {
      assert.equal(existsSync(join(dataDir, "master.key")), false);
      assert.deepEqual(platform.deps.config.masterKey, Buffer.from(hexKey, "hex"));
    } finally {
      await platform.close();
    }
  });

  it("`predex serve` without --demo exits with the explanation when no key is given", async () => {
    const dataDir = temporaryDirectory();
    const failed = await run(process.execPath, ["--import", "tsx", cliEntry, "serve"], {
      env: { ...process.env, ...testPlatformEnv(dataDir), PREDEX_MASTER_KEY: "", PREDEX_MASTER_KEY_FILE: "" },
      timeout: 60_000,
    }).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    assert.ok(failed !== undefined, "serve must not start");
    assert.equal(failed.code, 1);
    assert.match(failed.stderr ?? "", /does not create one beside the database/);
    assert.match(failed.stderr ?? "", /openssl rand -hex 32/);
    assert.equal(existsSync(join(dataDir, "master.key")), false);
  });
});

describe("data files", () => {
  it("are created readable by their owner only (0600), in a 0700 data directory", async () => {
    const platform = await startTestPlatform();
    try {
      const { client } = await platform.registeredUser();
      await client.sendMfaEmailCode();
      const { dataDir } = platform;
      assert.equal(statSync(dataDir).mode & 0o777, 0o700);
      // On PostgreSQL the database is the server's (its own files and permissions): no SQLite file
      // is made, and the data dir keeps the rest.
      const databaseFiles = ["predex.db", "predex.db-wal", "predex.db-shm"];
      if (testingOnPostgres) {
        for (const file of databaseFiles) assert.equal(existsSync(join(dataDir, file)), false, file);
      }
      const files = [
        ...(testingOnPostgres ? [] : databaseFiles),
        "master.key",
        "admin-token",
        join("mail", "outbox.jsonl"),
      ];
      for (const file of files) {
        assert.equal((statSync(join(dataDir, file)).mode & 0o777).toString(8), "600", file);
      }
    } finally {
      await platform.close();
    }
  });
});
