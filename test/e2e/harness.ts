// Starts a real platform for end-to-end tests: every listener on a free loopback port, a fresh
// temporary data dir, silent logs. Partners are created through the admin API and driven through
// the SDK over real sockets, as a partner would. Reuse it in every part's e2e tests:
//
//   const platform = await startTestPlatform();
//   after(() => platform.close());
//   const { client, user, partner } = await platform.registeredUser();
//   await client.request("GET", "/account/assets");
//   const refused = await platform.signed(partner, { method: "POST", path: "/ordering/claim", body: "{}" });
//   assert.equal(refused.status, 400);

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type PlatformConfig } from "../../src/config.js";
import type { RegisteredUser } from "../../src/contract/partner/users.js";
import { PredexClient, type PredexClientOptions } from "../../src/sdk/client.js";
import { PredexApiError } from "../../src/sdk/errors.js";
import { type GatewayCredentials, type QueryParams, signRequest } from "../../src/sdk/signer.js";
import { type Platform, type PlatformOptions, startPlatform } from "../../src/server.js";

export interface PartnerCredentials extends GatewayCredentials {
  readonly merchantId: string;
}

export interface TestPlatformOptions {
  /** Extra PREDEX_* variables (ports, data dir and log level are set by the harness). */
  readonly env?: Readonly<Record<string, string>>;
  readonly platform?: PlatformOptions;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed body when it is JSON, else undefined. */
  readonly json: unknown;
}

export interface TestPlatform {
  readonly platform: Platform;
  readonly dataDir: string;
  readonly addresses: Platform["addresses"];
  /** Calls the admin API with the platform's bearer token; resolves to the parsed answer. */
  admin(method: string, path: string, body?: unknown): Promise<RawResponse>;
  /** Creates a partner through POST /admin/partners. */
  createPartner(body?: Record<string, unknown>): Promise<PartnerCredentials>;
  /** An SDK client for the signed host; options override the defaults (no retry delays). */
  client(credentials: GatewayCredentials, options?: Partial<PredexClientOptions>): PredexClient;
  /** A new partner and a client that has registered a new user (session cookie in hand). */
  registeredUser(options?: {
    partner?: PartnerCredentials;
    marchantUserId?: string;
    client?: Partial<PredexClientOptions>;
  }): Promise<{ client: PredexClient; user: RegisteredUser; partner: PartnerCredentials }>;
  /**
   * A correctly signed request with exactly the body bytes given (or none), for the bad inputs the
   * typed SDK will not send: malformed JSON, another content type, wrong field types. `headers`
   * are added after signing, so they can also break the request on purpose.
   */
  signed(
    credentials: GatewayCredentials,
    request: {
      method?: string;
      path: string;
      query?: QueryParams;
      body?: string | Uint8Array;
      contentType?: string;
      cookie?: string;
      headers?: Record<string, string>;
    },
  ): Promise<RawResponse>;
  /** Ends every session of a user through the admin API (the next user-scoped call gets 1401). */
  revokeSessions(userId: string): Promise<void>;
  /** An unsigned (or hand-signed) request, for the bad requests the SDK cannot make. */
  raw(
    surface: keyof Platform["addresses"],
    request: { method?: string; path: string; headers?: Record<string, string>; body?: string | Uint8Array },
  ): Promise<RawResponse>;
  close(): Promise<void>;
}

let userCounter = 0;

/**
 * The PREDEX_* variables of a test platform on `dataDir`: every listener on a free loopback port,
 * silent logs. Tests that run the server as a child process hand it these.
 */
export function testPlatformEnv(dataDir: string): Record<string, string> {
  return {
    PREDEX_DATA_DIR: dataDir,
    PREDEX_HOST: "127.0.0.1",
    PREDEX_PORT: "0",
    PREDEX_PUBLIC_PORT: "0",
    PREDEX_LEGACY_PORT: "0",
    PREDEX_ADMIN_PORT: "0",
    PREDEX_LOG_LEVEL: "silent",
  };
}

/**
 * A master key for tests that run `predex serve` (a production start) as a child process: such a
 * start takes its key from the environment, as an operator's does (src/cli/master-key.ts).
 */
export const testMasterKeyHex = "5eed".repeat(16);

/**
 * The configuration of a test platform on `dataDir` (testPlatformEnv), then `env`. Tests that stop
 * and start a platform on the same dir use it directly.
 */
export function testPlatformConfig(
  dataDir: string,
  env: Readonly<Record<string, string>> = {},
): PlatformConfig {
  return loadConfig({ ...testPlatformEnv(dataDir), ...testDatabaseEnv(dataDir), ...env });
}

/** The name of a data dir's database in the PostgreSQL pass: the same dir, the same database. */
function testDatabaseName(dataDir: string): string {
  return `predex_${createHash("sha256").update(dataDir).digest("hex").slice(0, 24)}`;
}

/**
 * In the PostgreSQL pass, the URL of a data dir's database (testDatabaseEnv creates it); undefined
 * in the SQLite pass.
 */
export function testDatabaseUrl(dataDir: string): string | undefined {
  const clusterUrl = process.env.PREDEX_TEST_POSTGRES_URL;
  if (clusterUrl === undefined || clusterUrl === "") return undefined;
  const url = new URL(clusterUrl);
  url.pathname = `/${testDatabaseName(dataDir)}`;
  return url.href;
}

/**
 * In the PostgreSQL pass (test/support/with-postgres.ts sets PREDEX_TEST_POSTGRES_URL), the
 * database of a data dir: one per dir, created on first use and found again by a restart on the
 * same dir, as a platform's SQLite file would be. Empty in the SQLite pass.
 */
export function testDatabaseEnv(dataDir: string): Record<string, string> {
  const clusterUrl = process.env.PREDEX_TEST_POSTGRES_URL;
  const url = testDatabaseUrl(dataDir);
  if (clusterUrl === undefined || url === undefined) return {};
  const name = testDatabaseName(dataDir);
  // Synchronous (config loading is): psql ships with the server package the pass needs anyway.
  execFileSync("psql", ["--quiet", "--no-psqlrc", "--dbname", clusterUrl, "--set", "ON_ERROR_STOP=1"], {
    input: `SELECT 'CREATE DATABASE ${name}' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '${name}')\\gexec\n`,
    stdio: ["pipe", "ignore", "inherit"],
  });
  return { PREDEX_DATABASE_URL: url };
}

/** True in the end-to-end suite's PostgreSQL pass. */
export const testingOnPostgres = (process.env.PREDEX_TEST_POSTGRES_URL ?? "") !== "";

/**
 * For `assert.rejects`: the error is the SDK's PredexApiError with exactly this HTTP status, code
 * and message.
 */
export function apiError(status: number, code: number, message: string): (error: unknown) => true {
  return (error: unknown) => {
    assert.ok(error instanceof PredexApiError, String(error));
    assert.deepEqual([error.status, error.code, error.message], [status, code, message]);
    return true;
  };
}

export async function startTestPlatform(options: TestPlatformOptions = {}): Promise<TestPlatform> {
  const dataDir = mkdtempSync(join(tmpdir(), "predex-test-"));
  let platform: Platform;
  try {
    const config = testPlatformConfig(dataDir, options.env);
    platform = await startPlatform(config, options.platform);
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }

  const raw: TestPlatform["raw"] = async (surface, request) => {
    const response = await fetch(new URL(request.path, platform.addresses[surface]), {
      method: request.method ?? "GET",
      headers: request.headers ?? {},
      ...(request.body === undefined
        ? {}
        : { body: typeof request.body === "string" ? request.body : new Uint8Array(request.body) }),
    });
    return readResponse(response);
  };

  const admin: TestPlatform["admin"] = (method, path, body) =>
    raw("admin", {
      method,
      path,
      headers: {
        authorization: `Bearer ${platform.adminToken}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  const createPartner: TestPlatform["createPartner"] = async (body = {}) => {
    const response = await admin("POST", "/admin/partners", body);
    if (response.status !== 200)
      throw new Error(`creating a partner failed: ${response.status} ${response.text}`);
    return (response.json as { data: PartnerCredentials }).data;
  };

  const client: TestPlatform["client"] = (credentials, clientOptions = {}) =>
    new PredexClient({
      baseUrl: platform.addresses.gateway,
      credentials,
      retry: { attemptsMax: 3, delayMsBase: 1, delayMsMax: 5 },
      ...clientOptions,
    });

  const signed: TestPlatform["signed"] = (credentials, request) => {
    const body = typeof request.body === "string" ? Buffer.from(request.body, "utf8") : request.body;
    const signedRequest = signRequest(credentials, {
      method: request.method ?? "GET",
      path: request.path,
      ...(request.query === undefined ? {} : { query: request.query }),
      ...(body === undefined ? {} : { body }),
      ...(request.contentType === undefined ? {} : { contentType: request.contentType }),
      ...(request.cookie === undefined ? {} : { cookie: request.cookie }),
    });
    return raw("gateway", {
      method: request.method ?? "GET",
      path: signedRequest.pathAndQuery,
      headers: { ...signedRequest.headers, ...request.headers },
      ...(body === undefined ? {} : { body }),
    });
  };

  return {
    platform,
    dataDir,
    addresses: platform.addresses,
    admin,
    createPartner,
    client,
    async registeredUser(userOptions = {}) {
      const partner = userOptions.partner ?? (await createPartner());
      const sdk = client(partner, userOptions.client);
      userCounter += 1;
      const marchantUserId = userOptions.marchantUserId ?? `user-${process.pid}-${userCounter}`;
      const user = await sdk.register({
        userEmail: `${marchantUserId}@example.com`,
        merchantId: partner.merchantId,
        marchantUserId,
      });
      return { client: sdk, user, partner };
    },
    signed,
    async revokeSessions(userId) {
      const response = await admin("POST", `/admin/users/${userId}/revoke-sessions`);
      if (response.status !== 200)
        throw new Error(`revoking sessions failed: ${response.status} ${response.text}`);
    },
    raw,
    async close() {
      await platform.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function readResponse(response: Response): Promise<RawResponse> {
  const text = await response.text();
  let json: unknown;
  if ((response.headers.get("content-type") ?? "").includes("json")) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: response.status, headers: response.headers, text, json };
}
