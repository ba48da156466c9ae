// Nodes started while their database is away, through the real CLI: an engine node
// (`serve --role engine`) and an API node (`serve --role api`) wait for it instead of exiting (both
// exited 1 before); meanwhile the engine node's probe says 503. Once the database starts, the engine
// node leads, the API node listens, and both probes say 200.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { CliTopology, readyStatus } from "../support/cli-deployment.js";
import { postgresSkipReason } from "../support/postgres-cluster.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();

describe("nodes started while the database is away", { skip: skipReason }, () => {
  let topology: CliTopology;

  before(async () => {
    topology = await CliTopology.start("late-database");
  });
  after(() => topology?.stop());

  it("wait for it, then start; the engine node's probe says 503 meanwhile", {
    timeout: 180_000,
  }, async () => {
    const { cluster } = topology;
    const env = await topology.env("late", "late-database-admin-token-0123456789");
    await cluster.shutdown("fast");
    const engine = topology.startNode("engine", env);
    const api = topology.startNode("api", env);
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
