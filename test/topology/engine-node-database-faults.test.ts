// An engine node (startEngineNode, the code `serve --role engine` runs) against database faults, in
// process, each on a PostgreSQL cluster of its own:
// - started while the database is down, it waits (and says so in its log) and starts once it is up;
// - when the database restarts under it, the leader steps down in-process, rebuilds its state from
//   the database and leads again, and the standby beside it keeps following: neither ends its process;
// - a commit that waits for a synchronous standby that is not there is given up within the bound:
//   the command is answered as an unknown outcome, the leader steps down, and once the database
//   commits again the node leads with exactly the database's state.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { pino } from "pino";
import {
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
} from "../../src/core/exchange.js";
import { JournalFollower } from "../../src/engine/journal-follower.js";
import { hashEncodedState } from "../../src/engine/recovery.js";
import { openPostgresPool } from "../../src/store/postgres/database.js";
import { PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import { type EngineNode, type LeaderState, startEngineNode } from "../../src/topology/engine-node.js";
import { CommandStream, simUsers } from "../sim/command-stream.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();
const masterKey = Buffer.alloc(32, 7);
const leaseMs = 1_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A logger whose lines the test reads. */
function recordingLogger(): { logger: pino.Logger; messages: string[] } {
  const messages: string[] = [];
  const logger = pino(
    { level: "warn" },
    {
      write(line: string) {
        messages.push((JSON.parse(line) as { msg: string }).msg);
      },
    },
  );
  return { logger, messages };
}

interface NodeUnderTest {
  readonly node: Promise<EngineNode>;
  readonly messages: string[];
  readonly fatal: Error[];
  readonly leads: LeaderState[];
  readonly stepDowns: Error[];
}

function startNode(url: string): NodeUnderTest {
  const { logger, messages } = recordingLogger();
  const fatal: Error[] = [];
  const leads: LeaderState[] = [];
  const stepDowns: Error[] = [];
  const node = startEngineNode({
    databaseUrl: url,
    topology: {
      engineHost: "127.0.0.1",
      enginePort: 0,
      engineAdvertiseHost: "127.0.0.1",
      leaseMs,
      failoverDeadlineMs: 10_000,
    },
    masterKey,
    logger,
    openProjectors: async () => ({ projectors: [], close: async () => {} }),
    onFatal: (reason) => fatal.push(reason),
    retryFirstMs: 50,
    retryMaxMs: 200,
  }).then((started) => {
    started.onLeading((leader) => leads.push(leader));
    started.onSteppedDown((reason) => stepDowns.push(reason));
    return started;
  });
  return { node, messages, fatal, leads, stepDowns };
}

/** Submits `count` commands of the simulated stream to the leader's engine, one after another. */
async function trade(leader: LeaderState, stream: CommandStream, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const [command] = await leader.engine.read((state) => stream.next(state, Date.now(), 1));
    await leader.engine.submit(command!);
  }
}

/** sha256 of the state a full replay of the database's snapshot and journal gives, and its sequence. */
async function databaseState(url: string): Promise<{ sequence: bigint; hash: string }> {
  const pool = openPostgresPool({ url, applicationName: "predex-test-check" });
  try {
    const follower = await JournalFollower.start<ExchangeState, ExchangeCommand, ExchangeEvent>({
      decider: exchangeDecider,
      codec: exchangeStateCodec,
      store: await PostgresEngineStore.open<ExchangeCommand, ExchangeEvent>(pool),
    });
    return { sequence: follower.sequence, hash: follower.stateHash() };
  } finally {
    await pool.end();
  }
}

async function leaderState(leader: LeaderState): Promise<{ sequence: bigint; hash: string }> {
  return leader.engine.read((state, position) => ({
    sequence: position.sequence,
    hash: hashEncodedState(exchangeStateCodec.encode(state)),
  }));
}

/** The leader's state is exactly a replay of the database's (its scheduler may commit between reads). */
async function assertServesDatabaseState(leader: LeaderState, url: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const served = await leaderState(leader);
    const stored = await databaseState(url);
    if (served.sequence === stored.sequence || attempt === 5) {
      assert.deepEqual(served, stored);
      return;
    }
  }
}

/** The node's lead with the highest epoch among those recorded. */
function latestLead(...tested: NodeUnderTest[]): LeaderState | undefined {
  return tested
    .flatMap((item) => item.leads)
    .reduce<LeaderState | undefined>(
      (latest, lead) => (latest === undefined || lead.epoch > latest.epoch ? lead : latest),
      undefined,
    );
}

describe("an engine node rides out database faults in-process", { skip: skipReason }, () => {
  const clusters: PostgresCluster[] = [];
  const nodes: Promise<EngineNode>[] = [];
  after(async () => {
    for (const node of nodes) await (await node).close().catch(() => {});
    for (const cluster of clusters) await cluster.stop();
  });
  const newCluster = async () => {
    const cluster = await startPostgresCluster();
    clusters.push(cluster);
    return cluster;
  };

  it("started while the database is down, waits for it (saying so) and starts once it is up", async () => {
    const cluster = await newCluster();
    const url = await cluster.createDatabase("late_start");
    await cluster.shutdown("fast");
    const tested = startNode(url);
    nodes.push(tested.node);
    let started = false;
    void tested.node.then(() => {
      started = true;
    });
    await waitUntil(
      () => tested.messages.some((message) => /could not load the state from the database/.test(message)),
      { what: "the node said the database is unreachable", timeoutMs: 30_000 },
    );
    await sleep(500);
    assert.equal(started, false, "it waits while the database is away");
    await cluster.start();
    const node = await tested.node;
    const leader = await node.leading;
    await trade(leader, new CommandStream(1), 5);
    assert.deepEqual(tested.fatal, []);
  });

  it("a database restart: the leader steps down, rebuilds from the database and leads again; the standby keeps following", async () => {
    const cluster = await newCluster();
    const url = await cluster.createDatabase("restart");
    const first = startNode(url);
    nodes.push(first.node);
    const leader = await (await first.node).leading;
    const second = startNode(url);
    nodes.push(second.node);
    const standby = await second.node;
    assert.equal(standby.role, "standby");
    await trade(leader, new CommandStream(2), 40);

    await cluster.restart("fast");
    // Someone leads again: the old leader (rebuilt) or the standby (warm).
    await waitUntil(
      () => {
        const latest = latestLead(first, second);
        return latest !== undefined && latest.epoch > leader.epoch && latest.engine.phase === "running";
      },
      { what: "a node leads again", timeoutMs: 30_000 },
    );
    const current = latestLead(first, second)!;
    await waitUntil(() => first.stepDowns.length >= 1, {
      what: "the old leader stepped down in-process",
      timeoutMs: 30_000,
    });
    assert.deepEqual(second.stepDowns, [], "the standby never had to rebuild: it kept following");
    await trade(current, new CommandStream(3), 20);
    await assertServesDatabaseState(current, url);
    assert.deepEqual([...first.fatal, ...second.fatal], [], "no node ended its process");
  });

  it("a commit waiting for a synchronous standby that is not there: unknown outcome, step down, lead again with the database's state", async (t) => {
    const cluster = await newCluster();
    const url = await cluster.createDatabase("sync_stuck");
    const tested = startNode(url);
    nodes.push(tested.node);
    const node = await tested.node;
    const leader = await node.leading;
    const stream = new CommandStream(4);
    await trade(leader, stream, 10);

    // From now on every commit waits for a standby named "absent", which never connects.
    await cluster.execute(`ALTER SYSTEM SET synchronous_standby_names = 'absent'`);
    await cluster.execute("SELECT pg_reload_conf()");
    // pg_reload_conf() only signals: every session reads the file again at its next command. Wait
    // until a new session sees the setting, then a moment for the node's own idle sessions.
    for (let tries = 0; ; tries++) {
      const shown = await cluster.execute("SHOW synchronous_standby_names");
      if (shown.rows[0]?.synchronous_standby_names === "absent") break;
      assert.ok(tries < 100, "the server reloaded its settings");
      await sleep(20);
    }
    await sleep(300);
    // A command the core surely takes (a refused one commits nothing and is answered at once).
    const command: ExchangeCommand = {
      type: "Deposit",
      userId: simUsers[0]!,
      amount: 1_00000000n,
      txHash: "0xstuck-commit",
    };
    const sentMs = Date.now();
    const answer = await node.localCommands.submit(command, "stuck-command");
    const waitedMs = Date.now() - sentMs;
    assert.ok(
      "refused" in answer && answer.refused === "fatal",
      `an unknown outcome: ${JSON.stringify(answer, (_key, value) => (typeof value === "bigint" ? String(value) : value))}`,
    );
    assert.ok(waitedMs < 15_000, `answered within the bound (${waitedMs} ms)`);
    t.diagnostic(`the stuck commit was answered as an unknown outcome after ${waitedMs} ms`);
    await waitUntil(() => tested.stepDowns.length >= 1 || node.role !== "leading", {
      what: "the leader stepped down",
      timeoutMs: 30_000,
    });

    await cluster.execute("ALTER SYSTEM RESET synchronous_standby_names");
    await cluster.execute("SELECT pg_reload_conf()");
    await waitUntil(() => tested.leads.length >= 2 && node.leader !== undefined, {
      what: "the node leads again",
      timeoutMs: 60_000,
    });
    const again = node.leader!;
    assert.ok(again.epoch > leader.epoch);
    // Whatever became of the stuck command, the node serves exactly what the database holds.
    await assertServesDatabaseState(again, url);
    await trade(again, stream, 5);
    await assertServesDatabaseState(again, url);
    assert.deepEqual(tested.fatal, []);
  });
});
