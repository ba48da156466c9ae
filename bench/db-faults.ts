// Database faults as a partner's order sees them: a durable PostgreSQL primary with a synchronous
// streaming replica, two `predex serve --role engine` nodes and two `predex serve --role api` nodes
// (real CLI processes) reaching the database through one address that the failover moves (a TCP
// forwarder standing in for a virtual IP or DNS name, test/support/tcp-proxy.ts), and partners'
// users placing orders through both API nodes with the SDK, each order resent with its clientOrderId
// until acknowledged. Two faults per round, in order:
// - restart: `pg_ctl restart -m fast` of the primary;
// - failover: the primary killed (`pg_ctl stop -m immediate`), the replica promoted, the address
//   moved to it.
// Measured per fault: how long the database itself was away (until it took writes again: restarted,
// or promoted and the address moved), and from then the time until the first acknowledgement of an
// order first sent after it: what predex adds to the database's own outage. Two builds, alternating rounds on the same
// machine: this tree, and the baseline commit (BENCH_BASELINE_COMMIT, default the code before the
// engine nodes rode out database faults) exported to a temporary directory, whose nodes exit on a
// database fault; there a supervisor starts every exited node again after 100 ms (systemd's
// Restart=always). Every acknowledged order is then looked up: `lost` and `placed_twice` must be 0.
// Loopback only, bounded (BENCH_ROUNDS rounds, each wait capped). The last line of stdout is the JSON
// result: value is 1000 / (p50 ms over both faults, this tree), the baseline the same for the
// baseline build.

import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgresPool } from "../src/store/postgres/database.js";
import { type CliDeployment, CliTopology } from "../test/support/cli-deployment.js";
import { checkOrders, ResendingOrders, setUpTrading } from "../test/support/resending-orders.js";
import { TcpProxy } from "../test/support/tcp-proxy.js";
import { percentileOfSorted, round } from "./lib/summary.js";

const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
/** Which builds to run ("baseline,current" by default; one alone to measure it by itself). */
const builds = (process.env.BENCH_BUILDS ?? "baseline,current")
  .split(",")
  .filter((build): build is "baseline" | "current" => build === "baseline" || build === "current");
const baselineCommit = process.env.BENCH_BASELINE_COMMIT ?? "2498543";
/** How long any one wait (a first acknowledgement, readiness) may take before the round fails. */
const waitMsMax = 120_000;
const adminToken = "bench-db-faults-admin-token-0123456789";
const repository = new URL("..", import.meta.url).pathname;

interface FaultMeasured {
  readonly fault: "restart" | "failover";
  /** From the fault until the database took writes again (failover: promoted and the address moved). */
  readonly databaseAwayMs: number;
  /** From then until the first acknowledgement of an order first sent after it. */
  readonly firstAcknowledgedMs: number;
  /** From then until every API node's /readyz answered 200 again. */
  readyAgainMs: number;
}

interface RoundMeasured {
  readonly faults: FaultMeasured[];
  readonly acknowledged: number;
  readonly lost: number;
  readonly placedTwice: number;
  readonly exits: number;
  readonly answers: Record<string, number>;
}

/** The baseline commit's tree in a temporary directory, sharing this tree's node_modules. */
function exportTree(commit: string): string {
  const directory = mkdtempSync(join(tmpdir(), "predex-bench-baseline-"));
  execFileSync("sh", ["-c", `git -C "${repository}" archive "${commit}" | tar -x -C "${directory}"`]);
  symlinkSync(realpathSync(join(repository, "node_modules")), join(directory, "node_modules"));
  return directory;
}

async function waitUntilReady(deployment: CliDeployment, fromMs: number): Promise<number> {
  const deadline = performance.now() + waitMsMax;
  for (;;) {
    const statuses = await deployment.readiness();
    if (statuses.every((status) => status === 200)) return performance.now() - fromMs;
    if (performance.now() >= deadline) throw new Error(`not ready again: ${statuses.join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function runRound(build: "current" | "baseline", entry: string | undefined, label: string) {
  const topology = await CliTopology.start("bench-db-faults", { durable: true });
  const cluster = topology.cluster;
  let load: ResendingOrders | undefined;
  try {
    const replica = await cluster.startReplica({ synchronous: true });
    topology.onStop(() => replica.stop());
    const address = await TcpProxy.start(cluster.port);
    topology.onStop(() => address.close());
    const env = await topology.env("faults", adminToken, {
      PREDEX_DATABASE_URL: `postgres://postgres@127.0.0.1:${address.port}/faults`,
    });
    const deployment = await topology.startDeployment({
      engines: 2,
      apis: 2,
      env,
      ...(entry === undefined ? {} : { entry }),
      restartAfterMs: 100,
    });
    const trading = await setUpTrading(deployment.apis, {
      adminToken,
      usersCount: 8,
      depositUsdt: "100000",
      label,
    });
    load = new ResendingOrders(trading, { ordersPerUserMax: 4_000, resendForMs: waitMsMax });
    load.start();
    await load.acknowledgedMore(200, waitMsMax);

    const faults: FaultMeasured[] = [];
    const measure = async (fault: FaultMeasured["fault"], inject: () => Promise<void>) => {
      const startedMs = performance.now();
      await inject();
      const backMs = performance.now();
      const databaseAwayMs = backMs - startedMs;
      const firstAcknowledgedMs = (await load!.firstAcknowledgedSentAfter(backMs, waitMsMax)) - backMs;
      const measured = { fault, databaseAwayMs, firstAcknowledgedMs, readyAgainMs: 0 };
      measured.readyAgainMs = await waitUntilReady(deployment, backMs);
      faults.push(measured);
      const exits = deployment.exits
        .filter((exit) => exit.atMs >= startedMs)
        .map(
          (exit) => `${exit.role} ${exit.index} (${exit.code}) at ${(exit.atMs - startedMs).toFixed(0)} ms`,
        );
      console.log(
        `${build} ${fault}: database away ${databaseAwayMs.toFixed(0)} ms; then first order acknowledged after ` +
          `${firstAcknowledgedMs.toFixed(0)} ms, every API node ready after ${measured.readyAgainMs.toFixed(0)} ms; ` +
          `exits: ${exits.join(", ") || "none"}`,
      );
      await load!.acknowledgedMore(200, waitMsMax);
    };
    await measure("restart", () => cluster.restart("fast"));
    await measure("failover", async () => {
      await cluster.shutdown("immediate");
      await replica.promote();
      address.retarget(replica.port);
    });
    await load.stop();
    const check = openPostgresPool({ url: replica.urlOf("faults"), applicationName: "predex-bench-check" });
    try {
      const orders = await checkOrders(check, trading, load.acknowledged);
      return {
        faults,
        acknowledged: load.acknowledged.length,
        lost: orders.lost,
        placedTwice: orders.placedTwice,
        exits: deployment.exits.length,
        answers: Object.fromEntries(load.answers),
      } satisfies RoundMeasured;
    } finally {
      await check.end();
    }
  } finally {
    await load?.stop({ abandon: true }).catch(() => {});
    // The deployment, the address and the replica, then the cluster and the data directory.
    await topology.stop();
  }
}

const baselineTree = exportTree(baselineCommit);
const measured: Record<"current" | "baseline", RoundMeasured[]> = { current: [], baseline: [] };
try {
  for (let index = 0; index < rounds; index++) {
    for (const build of builds) {
      const entry = build === "current" ? undefined : join(baselineTree, "src/cli/main.ts");
      const result = await runRound(build, entry, `r${index}${build[0]}`);
      measured[build].push(result);
      console.log(
        `${build}: ${result.acknowledged} acknowledged, ${result.lost} lost, ${result.placedTwice} placed twice, ` +
          `${result.exits} node exits; answers ${JSON.stringify(result.answers)}`,
      );
    }
  }
} finally {
  rmSync(baselineTree, { recursive: true, force: true });
}

const times = (rounds: RoundMeasured[], fault?: FaultMeasured["fault"]) =>
  rounds
    .flatMap((item) => item.faults)
    .filter((item) => fault === undefined || item.fault === fault)
    .map((item) => item.firstAcknowledgedMs)
    .sort((a, b) => a - b);
const p50 = (sorted: number[]) => round(percentileOfSorted(sorted, 50), 3);
// A build not run has no figures (its p50 is 0).
const currentP50 = percentileOfSorted(times(measured.current), 50);
const baselineP50 = percentileOfSorted(times(measured.baseline), 50);
const all = [...measured.current, ...measured.baseline];
console.log(
  JSON.stringify({
    bench: "db-faults",
    unit: "recoveries/s (1000 / p50 ms from the database taking writes again after a restart or a failover to the first order acknowledged through an API node)",
    value: round(1000 / currentP50, 3),
    baseline: {
      name: `${baselineCommit}: nodes exit on a database fault, a supervisor starts them again`,
      value: round(1000 / baselineP50, 3),
    },
    ratio: round(baselineP50 / currentP50, 3),
    p50_ms: round(currentP50, 3),
    p99_ms: round(percentileOfSorted(times(measured.current), 99), 3),
    restart_p50_ms: p50(times(measured.current, "restart")),
    failover_p50_ms: p50(times(measured.current, "failover")),
    baseline_restart_p50_ms: p50(times(measured.baseline, "restart")),
    database_away_ms: measured.current.flatMap((item) =>
      item.faults.map((fault) => `${fault.fault} ${fault.databaseAwayMs.toFixed(0)}`),
    ),
    baseline_failover_p50_ms: p50(times(measured.baseline, "failover")),
    exits: measured.current.reduce((sum, item) => sum + item.exits, 0),
    baseline_exits: measured.baseline.reduce((sum, item) => sum + item.exits, 0),
    lost: all.reduce((sum, item) => sum + item.lost, 0),
    placed_twice: all.reduce((sum, item) => sum + item.placedTwice, 0),
    acknowledged: all.reduce((sum, item) => sum + item.acknowledged, 0),
    rounds,
  }),
);
