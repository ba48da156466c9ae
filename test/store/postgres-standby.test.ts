// A warm standby takes over from a leader process killed with SIGKILL in the middle of a command
// burst: it was following the journal, takes the lock the dead connection released, bumps the epoch,
// reads to the journal's end, checks invariants, and an Engine started from its state acknowledges
// the next command. Its state is exactly the leader's last committed state, every acknowledged
// command is in the journal, and the time from SIGKILL to ready is reported (not asserted: speed is
// for benchmarks).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Engine } from "../../src/engine/engine.js";
import { hashEncodedState, verifyReplayAgainst } from "../../src/engine/recovery.js";
import { openPostgresPool, type PostgresPool } from "../../src/store/postgres/database.js";
import { PostgresEngineStore } from "../../src/store/postgres/engine-store.js";
import { acquireLeadership, engineApplicationName } from "../../src/store/postgres/leadership.js";
import { WarmStandby } from "../../src/store/postgres/warm-standby.js";
import {
  type AccountCommand,
  type AccountEvent,
  type AccountsState,
  accountsCodec,
  accountsDecider,
  assertAccountsValid,
} from "../engine/accounts-domain.js";
import { encodedState, openAccountsEngine, scriptedCommands } from "../engine/harness.js";
import { NodeProcess } from "../support/node-process.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../support/postgres-cluster.js";
import { waitUntil } from "../support/wait-until.js";

const skipReason = postgresSkipReason();
const acknowledgedBeforeKill = 300;

describe("PostgreSQL warm standby", { skip: skipReason }, () => {
  let cluster: PostgresCluster;
  const pools: PostgresPool[] = [];
  const nodes: NodeProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    cluster = await startPostgresCluster();
  });
  after(async () => {
    for (const node of nodes) {
      node.kill("SIGKILL");
      await node.exited;
    }
    for (const cleanup of cleanups) await cleanup();
    for (const pool of pools) await pool.end();
    await cluster?.stop();
  });

  it("takes over within seconds of the leader's SIGKILL, at exactly the leader's last committed state", async (t) => {
    const url = await cluster.createDatabase("standby");
    const leader = NodeProcess.start(["engine", url, "leader", "2000", "400", "120000"]);
    nodes.push(leader);
    assert.equal((await leader.next((message) => message.event === "leader")).epoch, "1");

    const pool = openPostgresPool({ url, applicationName: engineApplicationName("standby") });
    pools.push(pool);
    const standby = await WarmStandby.start<AccountsState, AccountCommand, AccountEvent>({
      url,
      pool,
      nodeId: "standby",
      decider: accountsDecider,
      codec: accountsCodec,
      assertState: assertAccountsValid,
      lockWaitSliceMs: 200,
      pollEveryMs: 500,
    });
    cleanups.push(() => standby.stop());

    leader.send({ burst: 20_000 });
    await leader.next(
      () =>
        leader.messages.filter((message) => message.event === "acknowledged").length >=
        acknowledgedBeforeKill,
      60_000,
    );
    // The standby is warm: it has followed part of the journal before the leader dies.
    const followedBeforeKill = standby.sequence;

    const takingOver = standby.takeOver();
    leader.kill("SIGKILL");
    const killedAt = performance.now();
    await leader.exited;
    const takeover = await takingOver;
    const readyMs = performance.now() - killedAt;
    cleanups.push(() => takeover.leadership.release());
    const takenAt = takeover.state.sequence;
    // Before an engine evolves it further in place.
    const takenEncoded = accountsCodec.encode(takeover.state.state);
    const takenHash = hashEncodedState(takenEncoded);

    const engine = await Engine.open({
      decider: accountsDecider,
      codec: accountsCodec,
      store: takeover.store,
      startFrom: takeover.state,
      assertState: assertAccountsValid,
      clock: Date.now,
      onFatal: (error) => assert.fail(error),
    });
    const first = await engine.submit({ type: "deposit", accountId: "alice", amount: 1n });
    const firstAcknowledgedMs = performance.now() - killedAt;
    assert.equal(first.ok, true);

    const acknowledged = leader.messages
      .filter((message) => message.event === "acknowledged")
      .map((message) => BigInt(message.sequence as string));
    const committed = leader.messages.filter((message) => message.event === "committed");
    const lastCommitted = committed.at(-1)!;
    t.diagnostic(
      `SIGKILL → standby ready ${readyMs.toFixed(0)} ms, → first acknowledged command ${firstAcknowledgedMs.toFixed(0)} ms; ` +
        `followed ${followedBeforeKill} before the kill, ${takeover.entriesBehind} entries read after the bump, ` +
        `took over at ${takenAt} (leader acknowledged up to ${acknowledged.at(-1) ?? 0n})`,
    );

    // Every acknowledged command is in the state the standby took over with.
    for (const sequence of acknowledged) assert.ok(sequence <= takenAt, `acknowledged ${sequence} is kept`);
    // The state is the leader's at its last commit: when the leader printed that commit, the hashes
    // agree; in any case it is what the whole journal replays to.
    const printed = committed.find((message) => BigInt(message.sequence as string) === takenAt);
    if (printed !== undefined) assert.equal(takenHash, printed.hash);
    assert.ok(BigInt(lastCommitted.sequence as string) <= takenAt);
    const reader = await PostgresEngineStore.open<AccountCommand, AccountEvent>(pool);
    assert.equal(await reader.lastSequence(), takenAt + 1n);
    const verification = await verifyReplayAgainst(accountsDecider, accountsCodec, reader, {
      sequence: takenAt,
      encodedState: takenEncoded,
    });
    assert.equal(verification.fullReplayHash, takenHash);
    assert.equal((await engine.verifyReplay()).identical, true);
    await engine.close();
  });

  it("follows by sequence: appends made while its notification connection was down still arrive", async () => {
    const url = await cluster.createDatabase("standby_lost_notifications");
    const leaderPool = openPostgresPool({ url, applicationName: engineApplicationName("in-process-leader") });
    pools.push(leaderPool);
    const leadership = await acquireLeadership(leaderPool, { url, nodeId: "in-process-leader" });
    cleanups.push(() => leadership.release());
    const { engine } = await openAccountsEngine(
      await PostgresEngineStore.open<AccountCommand, AccountEvent>(leaderPool, leadership),
      { clock: Date.now },
    );
    cleanups.push(() => engine.close());

    const pool = openPostgresPool({ url, applicationName: engineApplicationName("listener") });
    pools.push(pool);
    const standby = await WarmStandby.start<AccountsState, AccountCommand, AccountEvent>({
      url,
      pool,
      nodeId: "listener",
      decider: accountsDecider,
      codec: accountsCodec,
      // No timer within the test's time: only notifications and reconnects wake it.
      pollEveryMs: 3_600_000,
    });
    cleanups.push(() => standby.stop());
    const waitFor = (sequence: bigint) =>
      waitUntil(() => standby.sequence >= sequence, {
        what: () => `the standby reached ${sequence}, not only ${standby.sequence}`,
        timeoutMs: 20_000,
      });

    for (const command of scriptedCommands(3)) await engine.submit(command);
    await waitFor(engine.committedSequence);

    // The listening session is ended (as a network blip or a database restart would); appends made
    // before it is back have no listener to notify.
    await leaderPool.query(
      "SELECT pg_terminate_backend(pid, 2000) FROM pg_stat_activity WHERE application_name = $1",
      [engineApplicationName("listener")],
    );
    await engine.submit({ type: "deposit", accountId: "alice", amount: 5n });
    await engine.submit({ type: "deposit", accountId: "bob", amount: 7n });
    await waitFor(engine.committedSequence);
    assert.equal(standby.stateHash(), hashEncodedState(await encodedState(engine)));
  });
});
