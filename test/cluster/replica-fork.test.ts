// A journal rewritten below the position of the nodes that follow it, as an asynchronous failover
// does: the database loses the last entries it acknowledged (here: deleted, with the snapshots and
// forward ids of the same transactions) and a new leader reissues their sequences to other
// commands. The API node's replica (src/cluster/forwarding-engine.ts) and the warm standby
// (src/store/postgres/warm-standby.ts) held the lost entries. Each must see the fork by the
// journal's hash chain, rebuild from the database's own snapshot and journal, and never serve the
// forked state meanwhile: the standby leads from the database's history, the replica refuses reads
// until it has reloaded (and /readyz's `unavailable` says why), closes its realtime sockets with
// 1012, counts the fork for predex_journal_forks_total, and then holds exactly the new leader's state.

import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { WebSocket, WebSocketServer } from "ws";
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
import type { EngineStore } from "../../src/engine/store.js";
import { PlatformMetrics } from "../../src/metrics/platform-metrics.js";
import { Subscriber } from "../../src/realtime/fanout.js";
import { RealtimeHub } from "../../src/realtime/hub.js";
import { realtimeLimits } from "../../src/realtime/limits.js";
import type { EngineClusterStore } from "../../src/store/engine-cluster.js";
import { openPostgresPool, type PostgresPool } from "../../src/store/postgres/database.js";
import { openPostgresEngineCluster } from "../../src/store/postgres/engine-cluster.js";
import { engineApplicationName } from "../../src/store/postgres/leadership.js";
import { type EngineNode, type LeaderState, startEngineNode } from "../../src/topology/engine-node.js";
import { testMasterKeyHex } from "../e2e/harness.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();
const masterKey = Buffer.from(testMasterKeyHex, "hex");
const silent = pino({ level: "silent" });
const forkedUser = 7;

type Exchange = ForwardingEngine<ExchangeState, ExchangeCommand, ExchangeEvent>;

/** What the test holds back between the database and the API node. */
interface Gate {
  /** Wake-ups are not delivered. */
  held: boolean;
  /** While set, snapshot reads (a reload's first read) wait for it. */
  snapshotsBlocked: Promise<void> | undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function gatedCluster(
  cluster: EngineClusterStore<ExchangeCommand, ExchangeEvent>,
  gate: Gate,
): EngineClusterStore<ExchangeCommand, ExchangeEvent> {
  const journal = cluster.journal;
  const reader: EngineStore<ExchangeCommand, ExchangeEvent, unknown> = {
    lastSequence: () => journal.lastSequence(),
    readJournal: (afterSequence) => journal.readJournal(afterSequence),
    loadLatestSnapshot: async () => {
      await gate.snapshotsBlocked;
      return journal.loadLatestSnapshot();
    },
    commitBatch: () => Promise.reject(new Error("a reader")),
    saveSnapshot: () => Promise.reject(new Error("a reader")),
  };
  return {
    journal: reader,
    currentLeader: () => cluster.currentLeader(),
    findForwarded: (forwardId) => cluster.findForwarded(forwardId),
    listenForAppends: (onWake) =>
      cluster.listenForAppends((lastSequence) => {
        if (!gate.held) onWake(lastSequence);
      }),
  };
}

function deposit(userId: number, amount: bigint, tag: string): ExchangeCommand {
  return { type: "Deposit", userId, amount, txHash: `0x${tag}` };
}

const balanceOf = (state: Readonly<ExchangeState>, userId: number) =>
  state.accounts.get(userId)?.available ?? 0n;

describe("a journal rewritten below its followers (an asynchronous failover)", { skip: skipReason }, () => {
  let cluster: PostgresCluster;
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    cluster = await startPostgresCluster();
  });
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    await cluster?.stop();
  });

  async function engineNode(url: string, fatal: Error[]): Promise<EngineNode> {
    const node = await startEngineNode({
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
      limits: { snapshotEveryCommands: 10 },
      pollEveryMs: 100,
      onFatal: (reason) => fatal.push(reason),
    });
    cleanups.push(() => node.close());
    return node;
  }

  async function replicaOn(url: string, name: string, gate: Gate): Promise<Exchange> {
    const pool = openPostgresPool({ url, applicationName: `predex-api:${name}`, poolConnectionsMax: 4 });
    cleanups.push(() => pool.end());
    const engineCluster = await openPostgresEngineCluster<ExchangeCommand, ExchangeEvent>(pool, {
      url,
      applicationName: `predex-api:${name}`,
      pollEveryMs: 100,
    });
    const replica = await ForwardingEngine.start<ExchangeState, ExchangeCommand, ExchangeEvent>({
      decider: exchangeDecider,
      codec: exchangeStateCodec,
      cluster: gatedCluster(engineCluster, gate),
      key: deriveCommandKey(masterKey),
      logger: silent,
      failoverDeadlineMs: 10_000,
      assertState: assertInvariants,
      reloadRetryFirstMs: 20,
      reloadRetryMaxMs: 200,
    });
    cleanups.push(() => replica.close());
    return replica;
  }

  /** A realtime hub on the replica with one real socket on the public channel, and its close. */
  async function socketOn(replica: Exchange): Promise<{ closed: Promise<{ code: number; reason: string }> }> {
    const hub = await RealtimeHub.start({
      engine: replica,
      identity: {} as never,
      readModels: {} as never,
      limits: realtimeLimits(),
      logger: silent,
    });
    cleanups.push(async () => hub.close());
    const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    server.on("connection", (socket) => {
      const subscriber = new Subscriber(socket, 1 << 20);
      const remove = hub.addPublicSocket(subscriber);
      hub.track(subscriber, remove);
    });
    await new Promise((resolve) => server.once("listening", resolve));
    const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    cleanups.push(async () => client.terminate());
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      client.once("close", (code, reason) => resolve({ code, reason: reason.toString("utf8") })),
    );
    await new Promise((resolve, reject) => {
      client.once("open", resolve);
      client.once("error", reject);
    });
    // Wrapped: an async function returning the promise itself would wait for the close.
    return { closed };
  }

  /**
   * The failover: the database keeps the journal through `keep` only (the snapshots and forward ids
   * after it go with it, as they were written in the same transactions), and the leader's sessions
   * end with the old primary.
   */
  async function loseEntriesAfter(admin: PostgresPool, keep: bigint, leader: EngineNode): Promise<void> {
    // One statement: atomic.
    await admin.query(
      `WITH forwarded AS (DELETE FROM engine_forwarded_commands WHERE sequence > $1),
            snapshots AS (DELETE FROM engine_snapshots WHERE sequence > $1)
       DELETE FROM engine_journal WHERE sequence > $1`,
      [keep],
    );
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [
      engineApplicationName(leader.nodeId),
    ]);
  }

  async function leaderStateHash(leader: LeaderState): Promise<{ sequence: bigint; hash: string }> {
    return leader.engine.read((state, position) => ({
      sequence: position.sequence,
      hash: hashEncodedState(exchangeStateCodec.encode(state)),
    }));
  }

  /**
   * Releases the held replica with its reload blocked, and checks that from the fork's detection
   * until the reload is let go nothing is served; then that it holds the new leader's state.
   */
  async function releaseAndResolve(replica: Exchange, gate: Gate, leader: LeaderState): Promise<void> {
    let unblock!: () => void;
    gate.snapshotsBlocked = new Promise((resolve) => {
      unblock = resolve;
    });
    gate.held = false;
    await waitUntil(() => replica.stats.forks === 1, {
      what: "the replica detected the fork",
      timeoutMs: 20_000,
      intervalMs: 10,
    });
    // Resolving: every read is refused, /readyz is told why, and it stays so while the reload waits.
    for (let attempt = 0; attempt < 5; attempt++) {
      await assert.rejects(
        replica.read((state) => balanceOf(state, forkedUser)),
        { name: "EngineStoppedError", message: /fork/ },
      );
      assert.match(replica.unavailable ?? "", /fork/);
      assert.equal(replica.phase, "running");
      await sleep(20);
    }
    unblock();
    gate.snapshotsBlocked = undefined;
    await waitUntil(() => replica.stats.reloads === 1, {
      what: "the replica reloaded",
      timeoutMs: 20_000,
      intervalMs: 10,
    });
    assert.equal(replica.unavailable, undefined);
    await waitUntil(
      async () => {
        const expected = await leaderStateHash(leader);
        if (replica.committedSequence !== expected.sequence) return false;
        assert.equal(replica.stateHash(), expected.hash, "the replica holds the new leader's state");
        return true;
      },
      { what: "the replica caught up with the new leader", timeoutMs: 20_000 },
    );
  }

  it("a journal that now ends before them: the standby leads from the database's history, the API replica refuses reads until it has reloaded", async () => {
    const url = await cluster.createDatabase("fork_ends_before");
    const admin = openPostgresPool({ url, applicationName: "predex-test-admin", poolConnectionsMax: 1 });
    cleanups.push(() => admin.end());
    const fatalB: Error[] = [];
    const nodeA = await engineNode(url, []);
    await nodeA.leading;
    const nodeB = await engineNode(url, fatalB);
    const gate: Gate = { held: false, snapshotsBlocked: undefined };
    const replica = await replicaOn(url, "fork_ends_before", gate);
    const socket = await socketOn(replica);
    const metrics = new PlatformMetrics();
    metrics.attach({ journal: { forks: () => replica.stats.forks + nodeB.journalForks } });

    // 30 acknowledged deposits, read on the API node and followed by the standby.
    for (let index = 1; index <= 30; index++) {
      const result = await replica.submit(deposit(forkedUser, 100_00000000n, `acked-${index}`));
      assert.ok(result.ok);
    }
    assert.equal(await replica.read((state) => balanceOf(state, forkedUser)), 3000_00000000n);
    const end = replica.committedSequence;
    await waitUntil(() => nodeB.standbySequence === end, {
      what: "the standby holds all 30",
      timeoutMs: 20_000,
      intervalMs: 10,
    });

    // The failover loses the last 8 acknowledged entries; the replica is cut off meanwhile.
    gate.held = true;
    const keep = end - 8n;
    await loseEntriesAfter(admin, keep, nodeA);
    // The old leader's node goes with its database (whether it would stop or step down).
    await nodeA.close().catch(() => {});

    // The standby holds entries the database no longer has: it must not lead from them.
    const leaderB = await nodeB.leading;
    assert.equal(leaderB.tookOverAt, keep, "the new leader took over where the database ends");
    assert.equal(nodeB.journalForks, 1, "the standby saw the fork");
    assert.equal(fatalB.length, 0);
    assert.equal(
      await leaderB.engine.read((state) => balanceOf(state, forkedUser)),
      BigInt(Number(keep)) * 100_00000000n,
      "the new leader's balance is the database's",
    );
    // The new leader reissues three of the lost sequences to other commands.
    for (let index = 1; index <= 3; index++) {
      assert.ok((await leaderB.engine.submit(deposit(8, 1_00000000n, `after-${index}`))).ok);
    }
    assert.ok(leaderB.engine.committedSequence < end, "the database still ends before the replica");
    assert.equal(
      await replica.read((state) => balanceOf(state, forkedUser)),
      3000_00000000n,
      "held back, the replica still has the lost deposits (the state it must stop serving)",
    );

    await releaseAndResolve(replica, gate, leaderB);
    assert.equal(
      await replica.read((state) => balanceOf(state, forkedUser)),
      BigInt(Number(keep)) * 100_00000000n,
      "after the reload the balance is the database's",
    );
    const closed = await socket.closed;
    assert.equal(closed.code, 1012, "the realtime socket is told to reconnect and re-seed");
    const scraped = (await metrics.scrape()).body;
    assert.match(scraped, /^predex_journal_forks_total 2$/m, "the replica's fork and the standby's");

    // A command through the API node now goes to the new leader, read-your-writes.
    assert.ok((await replica.submit(deposit(forkedUser, 5n, "after-reload"))).ok);
    assert.equal(
      await replica.read((state) => balanceOf(state, forkedUser)),
      BigInt(Number(keep)) * 100_00000000n + 5n,
    );
  });

  it("a journal that holds other entries at and past the replica's position: a fork, found before any read of it", async () => {
    const url = await cluster.createDatabase("fork_differs");
    const admin = openPostgresPool({ url, applicationName: "predex-test-admin", poolConnectionsMax: 1 });
    cleanups.push(() => admin.end());
    const nodeA = await engineNode(url, []);
    await nodeA.leading;
    const gate: Gate = { held: false, snapshotsBlocked: undefined };
    const replica = await replicaOn(url, "fork_differs", gate);
    for (let index = 1; index <= 25; index++) {
      assert.ok((await replica.submit(deposit(forkedUser, 100_00000000n, `acked-${index}`))).ok);
    }
    const end = replica.committedSequence;
    gate.held = true;
    await loseEntriesAfter(admin, end - 5n, nodeA);
    // The old leader's node goes with its database (whether it would stop or step down).
    await nodeA.close().catch(() => {});
    // A new engine node (a cold start on the promoted database) goes past the replica's position.
    const leaderC = await (await engineNode(url, [])).leading;
    for (let index = 1; index <= 9; index++) {
      assert.ok((await leaderC.engine.submit(deposit(9, 1_00000000n, `reissued-${index}`))).ok);
    }
    assert.ok(leaderC.engine.committedSequence > end);
    await releaseAndResolve(replica, gate, leaderC);
    assert.equal(replica.stats.forks, 1);
    assert.deepEqual(await replica.read((state) => [balanceOf(state, forkedUser), balanceOf(state, 9)]), [
      2000_00000000n,
      9_00000000n,
    ]);
  });
});
