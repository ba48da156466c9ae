// Failover as a partner's order sees it: engine nodes are real `predex serve --role engine`
// processes on a durable throwaway PostgreSQL cluster, and two API nodes' forwarding engines
// (src/cluster/forwarding-engine.ts, each with its own pool, replica and wake-ups) send a mixed stream
// of exchange commands (orders of every model, cancels, deposits, claims…; test/sim/command-stream.ts)
// from 8 workers each. Once BENCH_ACKS_BEFORE_KILL commands are acknowledged the leader is SIGKILLed;
// the time runs until the first command acknowledged by the new leader through an API node.
// Measured two ways, alternating:
// - warm: a second engine node was already running as a warm standby (the design);
// - cold (the baseline): the second engine node is started only after the kill, as a supervisor
//   restarting the dead one would (process start, recovery from snapshot + journal, lock).
// Every acknowledged command is then looked up in the journal: `lost` counts those missing (must be 0).
// Loopback only, bounded rounds. The last line of stdout is the JSON result; value is
// 1000 / (p50 ms of the warm rounds), baseline the same of the cold rounds.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { deriveCommandKey } from "../src/cluster/command-auth.js";
import { ForwardingEngine } from "../src/cluster/forwarding-engine.js";
import {
  type ExchangeCommand,
  type ExchangeEvent,
  type ExchangeState,
  exchangeDecider,
  exchangeStateCodec,
} from "../src/core/exchange.js";
import { encodePlainData } from "../src/engine/journal-codec.js";
import { openPostgresPool, type PostgresPool } from "../src/store/postgres/database.js";
import { openPostgresEngineCluster } from "../src/store/postgres/engine-cluster.js";
import { testMasterKeyHex } from "../test/e2e/harness.js";
import { CommandStream } from "../test/sim/command-stream.js";
import { CliNode } from "../test/support/cli-node.js";
import { startPostgresCluster } from "../test/support/postgres-cluster.js";
import { percentileOfSorted, round } from "./lib/summary.js";

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const acknowledgedBeforeKill = Number(process.env.BENCH_ACKS_BEFORE_KILL ?? 600);
const workersPerApiNode = 8;
const leadingLine = /leading \(epoch (\d+), took over at sequence (\d+)\)/;
type Exchange = ForwardingEngine<ExchangeState, ExchangeCommand, ExchangeEvent>;

interface Measured {
  readonly firstAcknowledgedMs: number;
  readonly acknowledged: number;
  readonly lost: number;
}

const cluster = await startPostgresCluster({ durable: true });
const dataDir = mkdtempSync(join(tmpdir(), "predex-bench-topology-"));
let databaseNumber = 0;

async function failover(mode: "warm" | "cold"): Promise<Measured> {
  databaseNumber += 1;
  const url = await cluster.createDatabase(`topology_${databaseNumber}`);
  const env = {
    PREDEX_DATABASE_URL: url,
    PREDEX_MASTER_KEY: testMasterKeyHex,
    PREDEX_DATA_DIR: dataDir,
    PREDEX_LOG_LEVEL: "warn",
  };
  const nodes: CliNode[] = [];
  const pools: PostgresPool[] = [];
  const apiNodes: Exchange[] = [];
  const startEngine = () => {
    const node = CliNode.start(["serve", "--role", "engine"], env);
    nodes.push(node);
    return node;
  };
  try {
    const first = startEngine();
    await first.waitFor(leadingLine, 60_000);
    let second = mode === "warm" ? startEngine() : undefined;
    await second?.waitFor(/standby, following/, 60_000);
    for (const name of ["a", "b"]) {
      const pool = openPostgresPool({ url, applicationName: `predex-api:${name}`, poolConnectionsMax: 4 });
      pools.push(pool);
      apiNodes.push(
        await ForwardingEngine.start({
          decider: exchangeDecider,
          codec: exchangeStateCodec,
          cluster: await openPostgresEngineCluster<ExchangeCommand, ExchangeEvent>(pool, {
            url,
            applicationName: `predex-api:${name}`,
          }),
          key: deriveCommandKey(Buffer.from(testMasterKeyHex, "hex")),
          logger: pino({ level: "silent" }),
          failoverDeadlineMs: 60_000,
        }),
      );
    }

    const acknowledged: { sequence: bigint; encoded: string; atMs: number }[] = [];
    let killedAtMs: number | undefined;
    let newLeaderFrom: bigint | undefined;
    let firstOnNewLeaderMs: number | undefined;
    const kill = async () => {
      first.kill("SIGKILL");
      killedAtMs = performance.now();
      await first.exited;
      second ??= startEngine();
      const [, , tookOverAt] = await second.waitFor(leadingLine, 60_000);
      newLeaderFrom = BigInt(tookOverAt!);
    };
    let killing: Promise<void> | undefined;
    const worker = async (engine: Exchange, stream: CommandStream) => {
      // Bounded: stops a little after the new leader's first acknowledgement, or after 20,000 commands.
      for (let sent = 0; sent < 20_000; sent++) {
        if (firstOnNewLeaderMs !== undefined && performance.now() - firstOnNewLeaderMs > 200) return;
        const [command] = await engine.read((state) => stream.next(state, Date.now(), 1));
        const result = await engine.submit(command!);
        const atMs = performance.now();
        if (!result.ok) continue;
        acknowledged.push({ sequence: result.sequence, encoded: encodePlainData(command), atMs });
        if (
          newLeaderFrom !== undefined &&
          result.sequence > newLeaderFrom &&
          firstOnNewLeaderMs === undefined
        ) {
          firstOnNewLeaderMs = atMs;
        }
        if (killing === undefined && acknowledged.length >= acknowledgedBeforeKill) killing = kill();
      }
    };
    await Promise.all(
      apiNodes.flatMap((engine, index) => {
        const stream = new CommandStream(databaseNumber * 10 + index);
        return Array.from({ length: workersPerApiNode }, () => worker(engine, stream));
      }),
    );
    await killing;
    if (firstOnNewLeaderMs === undefined || killedAtMs === undefined) {
      throw new Error("no command was acknowledged by the new leader");
    }
    const check = openPostgresPool({ url, applicationName: "predex-bench-check" });
    pools.push(check);
    const journal = await check.query<{ sequence: bigint; command: string }>(
      "SELECT sequence, command FROM engine_journal",
    );
    const commands = new Map(journal.rows.map((row) => [row.sequence, row.command]));
    const lost = acknowledged.filter((ack) => commands.get(ack.sequence) !== ack.encoded).length;
    return { firstAcknowledgedMs: firstOnNewLeaderMs - killedAtMs, acknowledged: acknowledged.length, lost };
  } finally {
    for (const engine of apiNodes) await engine.close();
    for (const node of nodes) {
      node.kill("SIGKILL");
      await node.exited;
    }
    for (const pool of pools) await pool.end();
  }
}

const warm: Measured[] = [];
const cold: Measured[] = [];
try {
  for (let index = 0; index < rounds; index++) {
    for (const mode of ["warm", "cold"] as const) {
      const measured = await failover(mode);
      (mode === "warm" ? warm : cold).push(measured);
      console.log(
        `${mode}: SIGKILL → first order acknowledged by the new leader through an API node ` +
          `${measured.firstAcknowledgedMs.toFixed(0)} ms; ${measured.acknowledged} acknowledged, ${measured.lost} lost`,
      );
    }
  }
} finally {
  await cluster.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

const sorted = (items: Measured[]) => items.map((item) => item.firstAcknowledgedMs).sort((a, b) => a - b);
const warmSorted = sorted(warm);
const coldSorted = sorted(cold);
const warmP50 = percentileOfSorted(warmSorted, 50);
const coldP50 = percentileOfSorted(coldSorted, 50);
console.log(
  JSON.stringify({
    bench: "topology-failover",
    unit: "failovers/s (1000 / p50 ms from SIGKILL to the first order acknowledged through an API node)",
    value: round(1000 / warmP50, 3),
    baseline: { name: "cold: engine node started after the kill", value: round(1000 / coldP50, 3) },
    ratio: round(coldP50 / warmP50, 3),
    p50_ms: round(warmP50, 3),
    p99_ms: round(percentileOfSorted(warmSorted, 99), 3),
    baseline_p50_ms: round(coldP50, 3),
    lost: [...warm, ...cold].reduce((sum, item) => sum + item.lost, 0),
    acknowledged: [...warm, ...cold].reduce((sum, item) => sum + item.acknowledged, 0),
    rounds,
  }),
);
