// The PostgreSQL role and database of docs/deployment.md ("The PostgreSQL role and database"), run
// exactly as the document writes them: the SQL block is read from the document and fed to psql as a
// superuser, then predex runs as that role, which is no superuser. Checked: every store's migrations
// apply (an all-in-one node and an API node start and serve a partner's user through the SDK); one
// predex session may end another (pg_terminate_backend, as a standby taking over from a paused
// leader does); the replication role takes a base backup and the predex role cannot.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import pg from "pg";
import { pino } from "pino";
import { PredexAdminClient } from "../../src/sdk/admin-client.js";
import { PredexClient } from "../../src/sdk/client.js";
import { type Platform, type PlatformOptions, startPlatform } from "../../src/server.js";
import { type PartnerCredentials, testMasterKeyHex, testPlatformConfig } from "../e2e/harness.js";
import {
  findPostgresBinaries,
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";

const skipReason = postgresSkipReason();
const run = promisify(execFile);
const adminToken = "operator-role-test-admin-token-0123456789";

/** The first ```sql block after the heading, as the operator copies it. */
function documentedSql(): string {
  const document = readFileSync(new URL("../../docs/deployment.md", import.meta.url), "utf8");
  const section = document.slice(document.indexOf("### The PostgreSQL role and database"));
  const block = /```sql\n([\s\S]*?)```/.exec(section);
  assert.ok(block !== null, "docs/deployment.md has the role's SQL block");
  return block[1]!;
}

describe("the documented PostgreSQL role", { skip: skipReason }, () => {
  let cluster: PostgresCluster;
  let url: string;
  const platforms: Platform[] = [];
  const dirs: string[] = [];
  const newDir = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  const asRole = (role: string, database: string) => {
    const roleUrl = new URL(cluster.urlOf(database));
    roleUrl.username = role;
    return roleUrl.href;
  };

  before(async () => {
    cluster = await startPostgresCluster();
    // psql reads the script from stdin, as an operator pastes it (its \connect included).
    const psql = execFile("psql", [
      "--no-psqlrc",
      "--quiet",
      "--set",
      "ON_ERROR_STOP=1",
      "--dbname",
      cluster.urlOf("postgres"),
    ]);
    psql.stdin!.end(documentedSql());
    const code = await new Promise<number | null>((resolve) => psql.on("exit", resolve));
    assert.equal(code, 0, "the documented SQL runs without an error");
    url = asRole("predex", "predex");
  });
  after(async () => {
    for (const platform of platforms.splice(0).reverse()) await platform.close();
    await cluster?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("is no superuser and may create no database or role", async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication FROM pg_roles WHERE rolname = current_user",
      );
      assert.deepEqual(rows, [
        { rolsuper: false, rolcreatedb: false, rolcreaterole: false, rolreplication: false },
      ]);
    } finally {
      await client.end();
    }
  });

  it("runs every migration and serves: an all-in-one node and an API node as that role", {
    timeout: 180_000,
  }, async () => {
    const startNode = async (options: PlatformOptions) => {
      const config = testPlatformConfig(newDir("predex-operator-role-"), {
        PREDEX_DATABASE_URL: url,
        PREDEX_MASTER_KEY: testMasterKeyHex,
        PREDEX_ADMIN_TOKEN: adminToken,
      });
      const platform = await startPlatform(config, { logger: pino({ level: "silent" }), ...options });
      platforms.push(platform);
      return platform;
    };
    const allInOne = await startNode({});
    const api = await startNode({ role: "api" });
    const operator = new PredexAdminClient({ baseUrl: api.addresses.admin, token: adminToken });
    const partner = (await operator.createPartner()) as unknown as PartnerCredentials;
    const client = new PredexClient({ baseUrl: api.addresses.gateway, credentials: partner });
    await client.register({
      userEmail: "role@example.com",
      merchantId: partner.merchantId,
      marchantUserId: "role",
    });
    assert.match((await client.getDepositAddress()).address, /^0x[0-9a-fA-F]{40}$/);
    assert.equal((await fetch(`${allInOne.addresses.admin}/readyz`)).status, 200);
    assert.equal((await fetch(`${api.addresses.admin}/readyz`)).status, 200);
  });

  it("may end another predex session, as a standby taking over does", async () => {
    const victim = new pg.Client({ connectionString: url, application_name: "predex-engine:old-leader" });
    await victim.connect();
    victim.on("error", () => {});
    const successor = new pg.Client({ connectionString: url });
    await successor.connect();
    try {
      const ended = await successor.query(
        "SELECT pg_terminate_backend(pid, 2000) AS ended FROM pg_stat_activity WHERE application_name = $1",
        ["predex-engine:old-leader"],
      );
      assert.deepEqual(ended.rows, [{ ended: true }]);
      await assert.rejects(victim.query("SELECT 1"));
    } finally {
      await successor.end();
      await victim.end().catch(() => {});
    }
  });

  it("leaves base backups to the replication role", { timeout: 120_000 }, async () => {
    const binaries = findPostgresBinaries()!;
    const basebackup = (role: string) =>
      run(join(binaries.directory, "pg_basebackup"), [
        "--dbname",
        asRole(role, "postgres"),
        "--pgdata",
        join(newDir("predex-operator-basebackup-"), "copy"),
        "--wal-method",
        "stream",
        "--checkpoint",
        "fast",
        "--no-sync",
      ]);
    await basebackup("replicator");
    await assert.rejects(basebackup("predex"), /replication/);
  });
});
