// Nodes started while their database is away, through the real CLI: an engine node
// (`serve --role engine`) and an API node (`serve --role api`) wait for it instead of exiting (both
// exited 1 before); meanwhile the engine node's probe says 503. Once the database starts, the engine
// node leads, the API node listens, and both probes say 200.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { testMasterKeyHex, testPlatformEnv } from "../e2e/harness.js";
import { CliNode } from "../support/cli-node.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();

async function readyStatus(base: string): Promise<number> {
  const response = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5_000) });
  await response.arrayBuffer();
  return response.status;
}

describe("nodes started while the database is away", { skip: skipReason }, () => {
  let cluster: PostgresCluster;
  const nodes: CliNode[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), "predex-late-database-"));

  before(async () => {
    cluster = await startPostgresCluster();
  });
  after(async () => {
    for (const node of nodes) {
      node.kill("SIGKILL");
      await node.exited;
    }
    await cluster?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("wait for it, then start; the engine node's probe says 503 meanwhile", {
    timeout: 180_000,
  }, async () => {
    const url = await cluster.createDatabase("late");
    await cluster.shutdown("fast");
    const env = {
      ...testPlatformEnv(dataDir),
      PREDEX_LOG_LEVEL: "warn",
      PREDEX_DATABASE_URL: url,
      PREDEX_MASTER_KEY: testMasterKeyHex,
      PREDEX_ADMIN_TOKEN: "late-database-admin-token-0123456789",
    };
    const engine = CliNode.start(["serve", "--role", "engine"], env);
    nodes.push(engine);
    const api = CliNode.start(["serve", "--role", "api"], env);
    nodes.push(api);
    const [, probes] = await engine.waitFor(/probes at (\S+)/, 90_000);
    await engine.waitFor(/could not load the state from the database/, 90_000);
    await api.waitFor(/the database does not answer; waiting for it/, 90_000);
    assert.equal(await readyStatus(probes!), 503, "the engine node is not ready without its database");
    assert.ok(engine.running && api.running, "neither node exits while the database is away");

    await cluster.start();
    await engine.waitFor(/leading \(epoch 1/, 60_000);
    const [, admin] = await api.waitFor(/^\s+admin\s.*?(https?:\/\/\S+)/, 60_000);
    let statuses: number[] = [];
    await waitUntil(
      async () => {
        statuses = [await readyStatus(probes!), await readyStatus(admin!)];
        return statuses.every((status) => status === 200);
      },
      { what: () => `both ready, not ${statuses.join(", ")}`, timeoutMs: 30_000, intervalMs: 100 },
    );
  });
});
