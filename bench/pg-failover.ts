// Failover time on PostgreSQL: an engine leader process (test/support/postgres-engine-node.ts, the
// accounts domain) takes a command burst; once it has acknowledged BENCH_ACKS_BEFORE_KILL commands
// it is killed with SIGKILL, and the time runs until a new leader in this process has acknowledged
// its first command. Measured two ways, alternating:
// - warm: a WarmStandby that followed the journal takes over (the design);
// - cold (the baseline): a node that did not follow waits for the lock, then recovers from snapshot
//   + journal as a restarting engine does.
// Each round uses a new database of one throwaway durable cluster. Loopback only, bounded rounds.
// The last line of stdout is the JSON result; value is 1000 / (p50 ms from SIGKILL to the first
// acknowledged command), so higher is better, and p50_ms / p99_ms are those milliseconds.

import { Engine } from "../src/engine/engine.js";
import { openPostgresPool } from "../src/store/postgres/database.js";
import { PostgresEngineStore } from "../src/store/postgres/engine-store.js";
import { acquireLeadership, engineApplicationName } from "../src/store/postgres/leadership.js";
import { WarmStandby } from "../src/store/postgres/warm-standby.js";
import {
  type AccountCommand,
  type AccountEvent,
  type AccountsState,
  accountsCodec,
  accountsDecider,
  assertAccountsValid,
} from "../test/engine/accounts-domain.js";
import { NodeProcess } from "../test/support/node-process.js";
import { startPostgresCluster } from "../test/support/postgres-cluster.js";
import { percentileOfSorted, round } from "./lib/summary.js";

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const acknowledgedBeforeKill = Number(process.env.BENCH_ACKS_BEFORE_KILL ?? 3_000);
const lockWaitSliceMs = 200;

interface Measured {
  readonly readyMs: number;
  readonly firstAcknowledgedMs: number;
  readonly journalEntries: bigint;
}

const cluster = await startPostgresCluster({ durable: true });
let databaseNumber = 0;

async function failover(mode: "warm" | "cold"): Promise<Measured> {
  databaseNumber += 1;
  const url = await cluster.createDatabase(`failover_${databaseNumber}`);
  const leader = NodeProcess.start(["engine", url, "leader", "2000", "400", "300000"]);
  const nodeId = `${mode}-successor`;
  const pool = openPostgresPool({ url, applicationName: engineApplicationName(nodeId) });
  try {
    await leader.next((message) => message.event === "leader", 30_000);
    const standby =
      mode === "warm"
        ? await WarmStandby.start<AccountsState, AccountCommand, AccountEvent>({
            url,
            pool,
            nodeId,
            decider: accountsDecider,
            codec: accountsCodec,
            assertState: assertAccountsValid,
            lockWaitSliceMs,
          })
        : undefined;
    leader.send({ burst: acknowledgedBeforeKill * 4 });
    await leader.until(() => leader.count("acknowledged") >= acknowledgedBeforeKill, 300_000);

    const ready = (async () => {
      if (standby !== undefined) {
        const takeover = await standby.takeOver();
        return { store: takeover.store, leadership: takeover.leadership, startFrom: takeover.state };
      }
      const leadership = await acquireLeadership(pool, { url, nodeId, lockWaitSliceMs });
      return {
        store: await PostgresEngineStore.open<AccountCommand, AccountEvent>(pool, leadership),
        leadership,
      };
    })();
    leader.kill("SIGKILL");
    const killedAt = performance.now();
    const taken = await ready;
    const engine = await Engine.open({
      decider: accountsDecider,
      codec: accountsCodec,
      store: taken.store,
      ...("startFrom" in taken ? { startFrom: taken.startFrom } : {}),
      assertState: assertAccountsValid,
      clock: Date.now,
      onFatal: (error) => {
        throw error;
      },
    });
    const readyMs = performance.now() - killedAt;
    const first = await engine.submit({ type: "deposit", accountId: "alice", amount: 1n });
    const firstAcknowledgedMs = performance.now() - killedAt;
    if (!first.ok) throw new Error("the new leader refused the first command");
    const journalEntries = engine.committedSequence;
    await engine.close();
    await standby?.stop();
    await taken.leadership.release();
    return { readyMs, firstAcknowledgedMs, journalEntries };
  } finally {
    leader.kill("SIGKILL");
    await leader.exited;
    await pool.end();
  }
}

try {
  const warm: Measured[] = [];
  const cold: Measured[] = [];
  for (let index = 0; index < rounds; index++) {
    warm.push(await failover("warm"));
    cold.push(await failover("cold"));
  }
  const summary = (measured: Measured[]) => {
    const firsts = measured.map((one) => one.firstAcknowledgedMs).sort((a, b) => a - b);
    const readies = measured.map((one) => one.readyMs).sort((a, b) => a - b);
    return {
      p50Ms: percentileOfSorted(firsts, 50),
      p99Ms: percentileOfSorted(firsts, 99),
      readyP50Ms: percentileOfSorted(readies, 50),
    };
  };
  const warmSummary = summary(warm);
  const coldSummary = summary(cold);
  console.log("mode  SIGKILL→ready ms  SIGKILL→first ack ms  journal entries");
  for (const [mode, measured] of [
    ["warm", warm],
    ["cold", cold],
  ] as const) {
    for (const one of measured) {
      console.log(
        `${mode}  ${one.readyMs.toFixed(0).padStart(16)}  ${one.firstAcknowledgedMs.toFixed(0).padStart(20)}  ${String(one.journalEntries).padStart(15)}`,
      );
    }
  }
  console.log(
    JSON.stringify({
      bench: "pg-failover",
      unit: "1/s (1000 / ms from SIGKILL to the first acknowledged command)",
      value: round(1000 / warmSummary.p50Ms, 3),
      baseline: { name: "cold recovery from snapshot + journal", value: round(1000 / coldSummary.p50Ms, 3) },
      ratio: round(coldSummary.p50Ms / warmSummary.p50Ms, 3),
      p50_ms: round(warmSummary.p50Ms, 1),
      p99_ms: round(warmSummary.p99Ms, 1),
      ready_p50_ms: round(warmSummary.readyP50Ms, 1),
      baseline_p50_ms: round(coldSummary.p50Ms, 1),
      baseline_ready_p50_ms: round(coldSummary.readyP50Ms, 1),
      rounds,
      acknowledged_before_kill: acknowledgedBeforeKill,
    }),
  );
} finally {
  await cluster.stop();
}
