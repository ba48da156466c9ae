// An API node's replica that falls behind the journal archive (src/cluster/forwarding-engine.ts):
// an engine leader runs in-process (startEngineNode, the code `serve --role engine` runs) with its
// journal archive (in the database) and frequent snapshots; the API node's forwarding engine
// follows it through a cluster store whose wake-ups (and, for an all-in-one node, in-process batches) the test can hold
// back. Held, the replica misses the leader's commits while the leader snapshots and its archiver
// deletes the journal through the snapshot. Released, the replica meets the gap and must reload
// from the latest snapshot (not fail), hold exactly the leader's state, answer the next command
// read-your-writes, tell its listeners (a realtime hub's socket is closed with 1012), and retry a
// reload the database refused. A reloaded state that breaks the core's invariants fails the node.

import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { WebSocket, WebSocketServer } from "ws";
import { deriveCommandKey } from "../../src/cluster/command-auth.js";
import { ForwardingEngine } from "../../src/cluster/forwarding-engine.js";
import type { LocalCommandPort } from "../../src/cluster/local-command-port.js";
import {
  assertInvariants,
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
} from "../../src/core/exchange.js";
import { hashEncodedState } from "../../src/engine/recovery.js";
import type { EngineStore, JournalEntry } from "../../src/engine/store.js";
import { Subscriber } from "../../src/realtime/fanout.js";
import { RealtimeHub } from "../../src/realtime/hub.js";
import { realtimeLimits } from "../../src/realtime/limits.js";
import type { EngineClusterStore } from "../../src/store/engine-cluster.js";
import { openPostgresPool, type PostgresPool } from "../../src/store/postgres/database.js";
import { openPostgresEngineCluster } from "../../src/store/postgres/engine-cluster.js";
import { PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import { type EngineNode, type LeaderState, startEngineNode } from "../../src/topology/engine-node.js";
import { testMasterKeyHex } from "../e2e/harness.js";
import { CommandStream } from "../sim/command-stream.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";
import { waitForValue, waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();
const masterKey = Buffer.from(testMasterKeyHex, "hex");
const snapshotEveryCommands = 20;
const silent = pino({ level: "silent" });

type Exchange = ForwardingEngine<ExchangeState, ExchangeCommand, ExchangeEvent>;

/** What the test holds back or breaks between the database and the API node. */
interface Gate {
  /** Wake-ups and in-process batches are not delivered. */
  held: boolean;
  /** The next this-many snapshot reads fail as if the database were away. */
  snapshotReadFailures: number;
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
    loadLatestSnapshot: () => {
      if (gate.snapshotReadFailures > 0) {
        gate.snapshotReadFailures -= 1;
        return Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432 (the test's outage)"));
      }
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

function gatedLocal(
  local: LocalCommandPort<ExchangeCommand, ExchangeEvent>,
  gate: Gate,
): LocalCommandPort<ExchangeCommand, ExchangeEvent> {
  return {
    serves: (leader) => local.serves(leader),
    submit: (command, forwardId) => local.submit(command, forwardId),
    submitMany: (commands, forwardIds) => local.submitMany(commands, forwardIds),
    onCommitted: (listener) =>
      local.onCommitted((entries) => {
        if (!gate.held) listener(entries);
      }),
  };
}

describe("an API node's replica that falls behind the journal archive", { skip: skipReason }, () => {
  let cluster: PostgresCluster;
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    cluster = await startPostgresCluster();
  });
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    await cluster?.stop();
  });

  interface Setup {
    readonly node: EngineNode;
    readonly leader: LeaderState;
    readonly replica: Exchange;
    readonly gate: Gate;
    readonly pool: PostgresPool;
    readonly fatal: Error[];
    readonly stream: CommandStream;
  }

  async function setUp(
    name: string,
    options: {
      readonly allInOne?: boolean;
      readonly assertState?: (state: ExchangeState) => void;
    } = {},
  ): Promise<Setup> {
    const url = await cluster.createDatabase(name);
    const fatal: Error[] = [];
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
      limits: { snapshotEveryCommands },
      onFatal: (reason) => fatal.push(reason),
    });
    cleanups.push(() => node.close());
    const leader = await node.leading;
    const pool = openPostgresPool({ url, applicationName: `predex-api:${name}`, poolConnectionsMax: 4 });
    cleanups.push(() => pool.end());
    const engineCluster = await openPostgresEngineCluster<ExchangeCommand, ExchangeEvent>(pool, {
      url,
      applicationName: `predex-api:${name}`,
      pollEveryMs: 100,
    });
    const gate: Gate = { held: false, snapshotReadFailures: 0 };
    const replica = await ForwardingEngine.start<ExchangeState, ExchangeCommand, ExchangeEvent>({
      decider: exchangeDecider,
      codec: exchangeStateCodec,
      cluster: gatedCluster(engineCluster, gate),
      key: deriveCommandKey(masterKey),
      logger: silent,
      failoverDeadlineMs: 10_000,
      assertState: options.assertState ?? assertInvariants,
      reloadRetryFirstMs: 20,
      reloadRetryMaxMs: 200,
      ...(options.allInOne === true ? { local: gatedLocal(node.localCommands, gate) } : {}),
    });
    cleanups.push(() => replica.close());
    return { node, leader, replica, gate, pool, fatal, stream: new CommandStream(name.length) };
  }

  /** Submits `count` commands of the simulated stream to `engine`, one after another. */
  async function trade(
    engine: Exchange | LeaderState["engine"],
    stream: CommandStream,
    count: number,
  ): Promise<void> {
    for (let index = 0; index < count; index++) {
      const [command] = await engine.read((state) => stream.next(state, Date.now(), 1));
      await engine.submit(command!);
    }
  }

  /**
   * Holds the replica back while the leader commits past a snapshot and the archiver deletes the
   * journal through it; returns the sequence the replica was held at.
   */
  async function leaveBehind(setup: Setup): Promise<bigint> {
    const { replica, leader, gate, stream, pool } = setup;
    gate.held = true;
    // A catch-up already under way when the gate closed (the leader's scheduler may have just
    // committed, e.g. a dead-man's switch of the stream's heartbeats) still lands: wait until the
    // replica stands still before taking where it is held.
    let heldAt = replica.committedSequence;
    for (let still = 0, looks = 0; still < 3 && looks < 50; looks++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      still = replica.committedSequence === heldAt ? still + 1 : 0;
      heldAt = replica.committedSequence;
    }
    await trade(leader.engine, stream, snapshotEveryCommands * 2 + 5);
    await waitUntil(() => leader.engine.snapshotSequence > heldAt + 1n, {
      what: "the leader wrote a snapshot past the held replica",
      timeoutMs: 20_000,
    });
    await trade(leader.engine, stream, 3);
    const run = await leader.journalArchiver.runNow();
    assert.ok(run.archivedEntries > 0, "the archiver deleted part of the journal");
    const reader = await PostgresEngineStore.open<ExchangeCommand, ExchangeEvent>(pool);
    assert.ok((await reader.firstSequence()) > heldAt + 1n, "the entries the replica needs next are gone");
    assert.equal(replica.committedSequence, heldAt, "the replica was held back");
    return heldAt;
  }

  /**
   * Waits until the replica is where the leader is (the leader's scheduler may commit on its own
   * meanwhile) and checks both states encode the same; returns that sequence.
   */
  async function assertSameStateAsLeader(replica: Exchange, leader: LeaderState): Promise<bigint> {
    let leaderSequence = 0n;
    return waitForValue(
      async () => {
        const expected = await leader.engine.read((state, position) => ({
          sequence: position.sequence,
          hash: hashEncodedState(exchangeStateCodec.encode(state)),
        }));
        leaderSequence = expected.sequence;
        if (replica.committedSequence !== expected.sequence) return undefined;
        assert.equal(replica.stateHash(), expected.hash, "the replica holds the leader's state");
        return expected.sequence;
      },
      {
        what: () => `the replica, at ${replica.committedSequence}, reached the leader, at ${leaderSequence}`,
        timeoutMs: 20_000,
      },
    );
  }

  it("reloads from the latest snapshot, answers read-your-writes, closes realtime sockets with 1012, and retries a refused reload", async () => {
    const setup = await setUp("reload_api");
    const { replica, leader, gate, stream } = setup;

    // What the replica hands its listeners, and its reloads.
    const seen: bigint[] = [];
    replica.onCommitted((entries: readonly JournalEntry<ExchangeCommand, ExchangeEvent>[]) => {
      for (const entry of entries) seen.push(entry.sequence);
    });
    const reloadedAt: bigint[] = [];
    replica.onReloaded((position) => reloadedAt.push(position.sequence));

    // A realtime hub on the replica with one real socket subscribed to the public channel.
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
    // The first socket follows the public channel; one opened after the reload every live book's deltas.
    let clobOutcomes: number[] | undefined;
    server.on("connection", (socket) => {
      const subscriber = new Subscriber(socket, 1 << 20);
      const removals = [hub.addPublicSocket(subscriber)];
      for (const outcomeId of clobOutcomes ?? [])
        removals.push(hub.addClobSubscriber(subscriber, outcomeId, 0));
      hub.track(subscriber, () => {
        for (const remove of removals) remove();
      });
    });
    await new Promise((resolve) => server.once("listening", resolve));
    const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      client.once("close", (code, reason) => resolve({ code, reason: reason.toString("utf8") })),
    );
    await new Promise((resolve, reject) => {
      client.once("open", resolve);
      client.once("error", reject);
    });

    await trade(replica, stream, 10);
    const heldAt = await leaveBehind(setup);

    // The database refuses the first reload attempts; then the replica is let go.
    gate.snapshotReadFailures = 3;
    gate.held = false;
    const deposit: ExchangeCommand = {
      type: "Deposit",
      userId: 1,
      amount: 123_00000000n,
      txHash: "0xreload-1",
    };
    const result = await replica.submit(deposit);
    assert.ok(result.ok, "the deposit was accepted");
    // Read-your-writes: the next read on this node holds it.
    const afterDeposit = await replica.read((state, position) => ({
      credited: state.depositTxHashes.has("0xreload-1"),
      sequence: position.sequence,
    }));
    assert.ok(afterDeposit.credited, "the deposit is in the state read right after its answer");
    assert.ok(afterDeposit.sequence >= result.sequence);

    assert.equal(replica.phase, "running", "the replica did not fail");
    assert.equal(replica.stats.reloads, 1, "reloaded once");
    assert.equal(replica.stats.reloadFailures, 3, "the refused reloads were tried again");
    assert.equal(setup.fatal.length, 0);

    // A socket opened after the reload gets every book's deltas with prevSeq continuing from the
    // reload's sequence: a book seeded from the old copy (an older seq) would see the gap.
    assert.equal(reloadedAt.length, 1);
    const reloaded = reloadedAt[0]!;
    clobOutcomes = await replica.read((state) =>
      [...state.outcomes.values()]
        .filter((outcome) => outcome.book !== null)
        .map((outcome) => outcome.outcomeId),
    );
    assert.ok(clobOutcomes.length > 0, "the stream made order books");
    const client2 = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    cleanups.push(async () => client2.terminate());
    const deltas: { outcomeId: string; seq: number; prevSeq: number }[] = [];
    // Book deltas only: a market the stream creates meanwhile is announced on the same socket.
    client2.on("message", (data) => {
      const message = JSON.parse(String(data));
      if ("prevSeq" in message) deltas.push(message);
    });
    await new Promise((resolve, reject) => {
      client2.once("open", resolve);
      client2.once("error", reject);
    });
    for (let sent = 0; sent < 200 && deltas.length === 0; sent++) await trade(replica, stream, 1);
    await trade(replica, stream, 5);
    await sleep(realtimeLimits().publishIntervalMs * 5);
    assert.ok(deltas.length > 0, "a book changed after the reload");
    const lastSeqOf = new Map<string, number>();
    for (const delta of deltas) {
      const previous = lastSeqOf.get(delta.outcomeId);
      // Levels of one round share seq and prevSeq.
      if (previous === undefined)
        assert.equal(delta.prevSeq, Number(reloaded), "the first round follows the reload");
      else if (delta.seq !== previous) assert.equal(delta.prevSeq, previous, "each round follows the last");
      assert.ok(delta.seq > Number(reloaded));
      if (delta.seq !== previous) lastSeqOf.set(delta.outcomeId, delta.seq);
    }

    // It follows on and holds exactly the leader's state.
    const end = await assertSameStateAsLeader(replica, leader);

    // Listeners saw 1..heldAt, then were told of the reload, then every batch after it: never a
    // silent jump.
    assert.ok(reloaded > heldAt + 1n, "the reload skipped the archived stretch");
    const beforeReload = seen.filter((sequence) => sequence <= heldAt);
    assert.deepEqual(
      beforeReload,
      Array.from({ length: Number(heldAt) }, (_, index) => BigInt(index + 1)),
    );
    assert.deepEqual(
      seen.slice(beforeReload.length),
      Array.from({ length: Number(end - reloaded) }, (_, index) => reloaded + BigInt(index + 1)),
    );

    // The realtime socket was told to reconnect and re-seed.
    const close = await closed;
    assert.equal(close.code, 1012);
    assert.match(close.reason, /re-seed/);
    assert.equal(hub.upstreamHealthy, true);
  });

  it("an all-in-one node's replica (fed in-process by its own leader) reloads and follows on", async () => {
    const setup = await setUp("reload_all_in_one", { allInOne: true });
    const { replica, leader, stream } = setup;
    await trade(replica, stream, 10);
    assert.equal(replica.stats.retries, 0);
    await leaveBehind(setup);
    setup.gate.held = false;

    // The next command goes to the leader in-process; its batch does not follow the held replica.
    const result = await replica.submit({
      type: "Deposit",
      userId: 2,
      amount: 50_00000000n,
      txHash: "0xreload-2",
    });
    assert.ok(result.ok);
    assert.ok(
      await replica.read((state) => state.depositTxHashes.has("0xreload-2")),
      "read-your-writes across the reload",
    );
    assert.equal(replica.phase, "running");
    assert.equal(replica.stats.reloads, 1);

    // After the swap the in-process batches feed the new replica.
    await trade(replica, stream, 10);
    await assertSameStateAsLeader(replica, leader);
  });

  it("a reloaded state that breaks the core's invariants fails the node", async () => {
    let checks = 0;
    const setup = await setUp("reload_broken", {
      assertState: () => {
        checks += 1;
        throw new Error("invariant broken (the test's)");
      },
    });
    await trade(setup.replica, setup.stream, 5);
    await leaveBehind(setup);
    setup.gate.held = false;
    await waitUntil(() => setup.replica.phase === "failed", {
      what: "the replica failed",
      timeoutMs: 20_000,
    });
    assert.equal(checks, 1, "checked once: reloading again gives the same state");
    assert.equal(setup.replica.stats.reloads, 0);
    await assert.rejects(
      setup.replica.read(() => 0),
      { name: "EngineStoppedError" },
    );
  });
});
