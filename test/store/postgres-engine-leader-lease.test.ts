// What readiness asks the database about the engine leader (OperationsQueries.engineLeader on
// PostgreSQL): live only while a leader has advertised its command port, its lease runs, and the
// session that took the epoch still holds the leadership lock. The row's lease outlives the lock
// when the leader's session goes (released, or the database restarted): readiness must not
// believe it for those seconds.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openPostgresPool, type PostgresPool } from "../../src/store/postgres/database.js";
import { advertiseLeader } from "../../src/store/postgres/engine-cluster.js";
import { acquireLeadership, engineApplicationName } from "../../src/store/postgres/leadership.js";
import { openPostgresOperationsQueries } from "../../src/store/postgres/operations-queries.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";

describe("the engine leader's lease, as readiness reads it", { skip: postgresSkipReason() }, () => {
  let cluster: PostgresCluster;
  const pools: PostgresPool[] = [];

  before(async () => {
    cluster = await startPostgresCluster();
  });
  after(async () => {
    for (const pool of pools) await pool.end().catch(() => {});
    await cluster?.stop();
  });

  it("is live only while the leader holds the lock, not for the rest of its lease", async () => {
    const url = await cluster.createDatabase("leader_lease");
    const pool = openPostgresPool({ url, applicationName: "predex-test-readiness" });
    const nodePool = openPostgresPool({ url, applicationName: engineApplicationName("leader") });
    pools.push(pool, nodePool);
    const operations = await openPostgresOperationsQueries(pool);
    assert.deepEqual(await operations.engineLeader(), { epoch: 0n, live: false }, "no engine tables yet");

    // A lease far longer than the test: only the lock can make it not live.
    const leadership = await acquireLeadership(nodePool, { url, nodeId: "leader", leaseMs: 600_000 });
    assert.deepEqual(await operations.engineLeader(), { epoch: 1n, live: false }, "not advertised yet");
    await advertiseLeader(nodePool, leadership.epoch, "http://127.0.0.1:1");
    assert.deepEqual(await operations.engineLeader(), { epoch: 1n, live: true });
    await leadership.release();
    assert.deepEqual(await operations.engineLeader(), { epoch: 1n, live: false }, "the lock is gone");

    const again = await acquireLeadership(nodePool, { url, nodeId: "leader-2", leaseMs: 600_000 });
    await advertiseLeader(nodePool, again.epoch, "http://127.0.0.1:2");
    assert.deepEqual(await operations.engineLeader(), { epoch: 2n, live: true });
    await cluster.restart("fast");
    // The pools' connections died with the server; the next query opens a new one.
    await pool.query("SELECT 1").catch(() => {});
    assert.deepEqual(
      await operations.engineLeader(),
      { epoch: 2n, live: false },
      "no session survives a restart",
    );
  });
});
