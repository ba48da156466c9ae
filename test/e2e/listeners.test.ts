// The four listeners of DESIGN §1 in one process: each answers unknown paths in its own envelope
// and serves its OpenAPI document at /docs.

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { ConfigError } from "../../src/config.js";
import { databaseFileName, startPlatform } from "../../src/server.js";
import { freeLoopbackPort } from "../support/loopback-port.js";
import { startTestPlatform, type TestPlatform, testPlatformConfig } from "./harness.js";

let platform: TestPlatform;
before(async () => {
  platform = await startTestPlatform();
});
after(() => platform.close());

describe("listeners", () => {
  it("binds four different loopback ports", () => {
    const ports = Object.values(platform.addresses).map((address) => new URL(address).port);
    assert.equal(new Set(ports).size, 4);
    for (const address of Object.values(platform.addresses))
      assert.match(address, /^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("answers an unknown path on the public host with the current envelope", async () => {
    const response = await platform.raw("public", { path: "/nothing" });
    assert.equal(response.status, 404);
    assert.deepEqual(response.json, {
      code: 1404,
      message: "resource not found: Route not found",
      data: null,
    });
  });

  it("answers an unknown path on the legacy host with the legacy envelope", async () => {
    const response = await platform.raw("legacy", { path: "/api/nothing" });
    assert.equal(response.status, 404);
    assert.deepEqual(response.json, { code: 404, msg: "not found", data: { errorCode: 404 } });
  });

  it("serves an OpenAPI document at /docs on every listener, without credentials", async () => {
    for (const surface of ["gateway", "public", "legacy", "admin"] as const) {
      const document = await platform.raw(surface, { path: "/docs/json" });
      assert.equal(document.status, 200, surface);
      assert.match(String((document.json as { openapi: string }).openapi), /^3\./);
      const page = await platform.raw(surface, { path: "/docs" });
      assert.ok(page.status === 200 || page.status === 302, `${surface} /docs answered ${page.status}`);
    }
  });
});

describe("PREDEX_DATABASE_URL", () => {
  it("selects PostgreSQL: a server that is not there fails the start, SQLite is never used instead", async () => {
    // A loopback port nothing listens on (picked below the ephemeral range: no other test's
    // listen(0) is handed it meanwhile).
    const port = await freeLoopbackPort();
    const dataDir = mkdtempSync(join(tmpdir(), "predex-no-postgres-"));
    try {
      const config = testPlatformConfig(dataDir, {
        PREDEX_DATABASE_URL: `postgres://127.0.0.1:${port}/predex`,
      });
      await assert.rejects(startPlatform(config, { logger: pino({ level: "silent" }) }), (error: unknown) =>
        /ECONNREFUSED|connect/.test(String((error as Error).message ?? error)),
      );
      assert.ok(!existsSync(join(dataDir, databaseFileName)), "no SQLite file was created");
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("is required by serve --role api", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "predex-api-role-"));
    try {
      const config = { ...testPlatformConfig(dataDir), databaseUrl: undefined };
      await assert.rejects(
        startPlatform(config, { role: "api", logger: pino({ level: "silent" }) }),
        (error: unknown) => error instanceof ConfigError && error.message.includes("PREDEX_DATABASE_URL"),
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
