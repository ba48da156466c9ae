import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError, loadConfig } from "../src/config.js";

describe("configuration from PREDEX_* variables", () => {
  it("defaults to the design's ports on loopback, admin on 127.0.0.1", () => {
    const config = loadConfig({});
    assert.deepEqual(
      [config.gateway.port, config.public.port, config.legacy.port, config.admin.port],
      [8080, 8081, 8082, 8083],
    );
    assert.equal(config.admin.host, "127.0.0.1");
    assert.equal(config.sessionTtlSeconds, 86_400);
    assert.ok(config.dataDir.endsWith("/data"));
    assert.equal(config.adminToken, undefined);
    assert.deepEqual(config.listenerLimits, { requestReceiveMsMax: 30_000, listenBacklogConnections: 4_096 });
    assert.deepEqual(config.adminAllowedHosts, []);
  });

  it("honours every variable, port 0 included", () => {
    const config = loadConfig({
      PREDEX_DATA_DIR: "/tmp/x",
      PREDEX_HOST: "0.0.0.0",
      PREDEX_PORT: "0",
      PREDEX_PUBLIC_PORT: "9001",
      PREDEX_LEGACY_PORT: "9002",
      PREDEX_ADMIN_PORT: "9003",
      PREDEX_ADMIN_HOST: "::1",
      PREDEX_ADMIN_TOKEN: "tok",
      PREDEX_MASTER_KEY: "00".repeat(32),
      PREDEX_SESSION_TTL_SECONDS: "60",
      PREDEX_LOG_LEVEL: "debug",
      PREDEX_DATABASE_URL: "postgres://db/predex",
      PREDEX_REQUEST_TIMEOUT_MS: "5000",
      PREDEX_LISTEN_BACKLOG: "8192",
      PREDEX_ADMIN_ALLOWED_HOSTS: " Admin.Internal., ops.example ,",
    });
    assert.equal(config.dataDir, "/tmp/x");
    assert.deepEqual(config.gateway, { host: "0.0.0.0", port: 0 });
    assert.deepEqual(config.admin, { host: "::1", port: 9003 });
    assert.equal(config.adminToken, "tok");
    assert.equal(config.masterKey?.length, 32);
    assert.equal(config.sessionTtlSeconds, 60);
    assert.equal(config.logLevel, "debug");
    assert.equal(config.databaseUrl, "postgres://db/predex");
    assert.deepEqual(config.listenerLimits, { requestReceiveMsMax: 5_000, listenBacklogConnections: 8_192 });
    assert.deepEqual(config.adminAllowedHosts, ["admin.internal", "ops.example"]);
  });

  it("takes each listener's public base URL for its OpenAPI servers, without a trailing slash", () => {
    const config = loadConfig({
      PREDEX_BASE_URL: "https://api.example.com/",
      PREDEX_PUBLIC_BASE_URL: "https://data.example.com",
      PREDEX_LEGACY_BASE_URL: "https://legacy.example.com/v1",
      PREDEX_ADMIN_BASE_URL: "http://10.0.0.5:8083",
    });
    assert.deepEqual(
      [config.gateway.baseUrl, config.public.baseUrl, config.legacy.baseUrl, config.admin.baseUrl],
      [
        "https://api.example.com",
        "https://data.example.com",
        "https://legacy.example.com/v1",
        "http://10.0.0.5:8083",
      ],
    );
    assert.equal("baseUrl" in loadConfig({}).gateway, false, "unset: the bound address is used");
    for (const wrong of ["api.example.com", "ftp://api.example.com", "https://api.example.com/?x=1"]) {
      assert.throws(
        () => loadConfig({ PREDEX_BASE_URL: wrong }),
        (error: unknown) => error instanceof ConfigError && error.message.startsWith("PREDEX_BASE_URL"),
      );
    }
  });

  it("names the variable that is wrong", () => {
    assert.throws(
      () => loadConfig({ PREDEX_PORT: "http" }),
      (error: unknown) => {
        return error instanceof ConfigError && error.message.startsWith("PREDEX_PORT");
      },
    );
    assert.throws(() => loadConfig({ PREDEX_MASTER_KEY: "short" }), ConfigError);
    assert.throws(() => loadConfig({ PREDEX_LOG_LEVEL: "loud" }), ConfigError);
    assert.throws(() => loadConfig({ PREDEX_TLS_CERT_FILE: "/c" }), ConfigError);
    assert.throws(() => loadConfig({ PREDEX_REQUEST_TIMEOUT_MS: "0" }), ConfigError);
    assert.throws(() => loadConfig({ PREDEX_LISTEN_BACKLOG: "-1" }), ConfigError);
    for (const hosts of ["https://admin.example", "admin.example:8083", "admin example", "a/b"]) {
      assert.throws(() => loadConfig({ PREDEX_ADMIN_ALLOWED_HOSTS: hosts }), ConfigError, hosts);
    }
  });

  it("reads a deployment's node settings only with a database, the demo bot and whether a log level was given", () => {
    assert.equal(loadConfig({ PREDEX_ENGINE_PORT: "not a port" }).topology, undefined);
    const config = loadConfig({
      PREDEX_DATABASE_URL: "postgres://db/predex",
      PREDEX_ENGINE_LEASE_MS: "2000",
      PREDEX_FAILOVER_DEADLINE_MS: "3000",
    });
    assert.deepEqual(
      [config.topology?.engineHost, config.topology?.leaseMs, config.topology?.failoverDeadlineMs],
      ["127.0.0.1", 2_000, 3_000],
    );
    assert.throws(
      () => loadConfig({ PREDEX_DATABASE_URL: "postgres://db/predex", PREDEX_ENGINE_PORT: "not a port" }),
      ConfigError,
    );
    assert.deepEqual(
      [
        loadConfig({}).demoBot,
        loadConfig({ PREDEX_DEMO_BOT: " 0 " }).demoBot,
        loadConfig({ PREDEX_DEMO_BOT: "1" }).demoBot,
      ],
      [true, false, true],
    );
    assert.deepEqual(
      [loadConfig({}).logLevelGiven, loadConfig({ PREDEX_LOG_LEVEL: "info" }).logLevelGiven],
      [false, true],
    );
  });
});
