// A real asynchronous failover on PostgreSQL: a primary with a streaming replica, an engine leader
// and an API node on the primary. With synchronous_standby_names set, predex reports synchronous
// replication; without it, a warning. Then the replica is cut off, the primary acknowledges eight
// more deposits it never ships, and dies; the replica is promoted and takes over the primary's
// address. A new engine leader goes on from the promoted database and reissues the lost sequences.
// The API node held the lost deposits: it must see the fork (the journal's hash chain), refuse
// reads until it has reloaded from the promoted database, and then hold the new leader's state;
// no read after the fork's detection shows the lost balance.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { deriveCommandKey } from "../../src/cluster/command-auth.js";
import { ForwardingEngine } from "../../src/cluster/forwarding-engine.js";
import {
  assertInvariants,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
} from "../../src/core/exchange.js";
import { hashEncodedState } from "../../src/engine/recovery.js";
import { openPostgresPool, type PostgresPool } from "../../src/store/postgres/database.js";
import { openPostgresEngineCluster } from "../../src/store/postgres/engine-cluster.js";
import {
  asynchronousReplicationWarning,
  readReplicationStatus,
} from "../../src/store/postgres/replication-status.js";
import { type EngineNode, startEngineNode } from "../../src/topology/engine-node.js";
import { testMasterKeyHex } from "../e2e/harness.js";
import {
  type PostgresCluster,
  type PostgresReplica,
  postgresSkipReason,
  setSynchronousStandbyNames,
  startPostgresCluster,
  waitForReplay,
} from "../support/postgres-cluster.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();
const masterKey = Buffer.from(testMasterKeyHex, "hex");
const silent = pino({ level: "silent" });
const user = 11;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const deposit = (tag: string, amount = 100_00000000n): ExchangeCommand => ({
  type: "Deposit",
  userId: user,
  amount,
  txHash: `0x${tag}`,
});
const balance = (state: Readonly<ExchangeState>) => state.accounts.get(user)?.available ?? 0n;

describe("an asynchronous failover of the database", { skip: skipReason }, () => {
  let primary: PostgresCluster;
  let replica: PostgresReplica | undefined;
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    primary = await startPostgresCluster();
  });
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    await replica?.stop();
    await primary?.stop();
  });

  function engineNode(url: string, fatal: Error[]): Promise<EngineNode> {
    return startEngineNode({
      databaseUrl: url,
      topology: {
        engineHost: "127.0.0.1",
        enginePort: 0,
        engineAdvertiseHost: "127.0.0.1",
        leaseMs: 5_000,
        failoverDeadlineMs: 10_000,
      },
      masterKey,
      logger: silent,
      openProjectors: async () => ({ projectors: [], close: async () => {} }),
      limits: { snapshotEveryCommands: 8 },
      pollEveryMs: 100,
      onFatal: (reason) => fatal.push(reason),
    }).then((node) => {
      cleanups.push(() => node.close());
      return node;
    });
  }

  it("is reported, and the API node that held acknowledged entries the new primary lost never serves them", async () => {
    const url = await primary.createDatabase("async_failover");
    replica = await primary.startReplica({ name: "replica_a" });
    const pool: PostgresPool = openPostgresPool({
      url,
      applicationName: "predex-api:async-failover",
      poolConnectionsMax: 4,
    });
    cleanups.push(() => pool.end());

    // Synchronous replication is reported as such; asynchronous with the warning.
    await setSynchronousStandbyNames(primary, replica.name);
    await waitUntil(async () => (await readReplicationStatus(pool)).synchronousStandbys === 1, {
      what: "the standby counts as synchronous",
      timeoutMs: 60_000,
    });
    const synchronous = await readReplicationStatus(pool);
    assert.equal(synchronous.synchronous, true);
    assert.equal(synchronous.synchronousStandbyNames, "replica_a");
    assert.equal(synchronous.warning, undefined);
    await setSynchronousStandbyNames(primary, "");
    await waitUntil(async () => !(await readReplicationStatus(pool)).synchronous, {
      what: "the setting is reloaded",
      timeoutMs: 60_000,
    });
    const asynchronous = await readReplicationStatus(pool);
    assert.deepEqual(asynchronous, {
      synchronous: false,
      synchronousStandbyNames: "",
      synchronousCommit: "on",
      standbys: 1,
      synchronousStandbys: 0,
      warning: asynchronousReplicationWarning,
    });

    const nodeA = await engineNode(url, []);
    await nodeA.leading;
    const cluster = await openPostgresEngineCluster<ExchangeCommand, ExchangeEvent>(pool, {
      url,
      applicationName: "predex-api:async-failover",
      pollEveryMs: 100,
    });
    const api = await ForwardingEngine.start<ExchangeState, ExchangeCommand, ExchangeEvent>({
      decider: exchangeDecider,
      codec: exchangeStateCodec,
      cluster,
      key: deriveCommandKey(masterKey),
      logger: silent,
      failoverDeadlineMs: 10_000,
      assertState: assertInvariants,
      reloadRetryFirstMs: 50,
      reloadRetryMaxMs: 500,
    });
    cleanups.push(() => api.close());

    // 20 deposits reach the replica; 8 more are acknowledged by the primary alone.
    for (let index = 1; index <= 20; index++) assert.ok((await api.submit(deposit(`shipped-${index}`))).ok);
    await waitForReplay(url, replica);
    await replica.shutdown();
    for (let index = 1; index <= 8; index++) assert.ok((await api.submit(deposit(`lost-${index}`))).ok);
    assert.equal(api.committedSequence, 28n);
    const lostBalance = 2800_00000000n;
    assert.equal(await api.read(balance), lostBalance);

    // From here every read the API node answers is recorded with whether the fork was known then.
    const reads: { forkKnown: boolean; value: bigint | "refused" }[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const forkKnown = api.stats.forks > 0;
        try {
          reads.push({ forkKnown, value: await api.read(balance) });
        } catch {
          reads.push({ forkKnown, value: "refused" });
        }
        await sleep(5);
      }
    })();

    // The primary dies; the replica is promoted and takes over its address.
    const address = primary.port;
    await primary.stop();
    await replica.start();
    await replica.promote();
    await replica.shutdown();
    await replica.start(address);
    assert.equal(replica.urlOf("async_failover"), url);

    await waitUntil(() => api.stats.forks === 1, { what: "the API node saw the fork", timeoutMs: 60_000 });
    await waitUntil(() => api.stats.reloads === 1 && api.unavailable === undefined, {
      what: "the API node reloaded",
      timeoutMs: 60_000,
    });
    assert.equal(api.committedSequence, 20n, "reloaded from the promoted database, which ends at 20");
    assert.equal(await api.read(balance), 2000_00000000n);

    // The old leader's node went with its database (whether it would stop or step down); a new
    // leader on the promoted database reissues the lost sequences to other deposits.
    await nodeA.close().catch(() => {});
    const leaderB = await (await engineNode(url, [])).leading;
    assert.equal(leaderB.tookOverAt, 20n);
    for (let index = 1; index <= 3; index++) {
      assert.ok((await api.submit(deposit(`reissued-${index}`, 1_00000000n))).ok);
    }
    const expected = await leaderB.engine.read((state, position) => ({
      sequence: position.sequence,
      hash: hashEncodedState(exchangeStateCodec.encode(state)),
    }));
    await waitUntil(() => api.committedSequence === expected.sequence, {
      what: "the API node follows the new leader",
      timeoutMs: 60_000,
    });
    assert.equal(api.stateHash(), expected.hash);
    assert.equal(await api.read(balance), 2003_00000000n);
    reading = false;
    await reader;

    assert.equal(api.stats.forks, 1);
    const afterDetection = reads.filter((read) => read.forkKnown);
    assert.ok(afterDetection.length > 0);
    assert.ok(
      afterDetection.every((read) => read.value !== lostBalance),
      "no read after the fork was detected shows the lost deposits",
    );
  });
});
