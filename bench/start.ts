// `npm run bench:start`: how long a node takes from its process start to ready, from the TypeScript
// sources through tsx (what `predex` ran before the build: `node --import tsx src/cli/main.ts`) and
// from the compiled build (`node bin/predex.js`, dist/), alternating, BENCH_ROUNDS (3) times each:
// - sqlite-fresh: `predex serve` on a new data dir (the schema made), until /readyz answers 200;
// - sqlite-restart: `predex serve` again on a data dir that has a platform's data;
// - with PostgreSQL installed: pg-engine, `predex serve --role engine` restarted on a database that
//   has a journal, until it prints that it leads (the node a supervisor restarts on the failover
//   path); pg-api, `predex serve --role api` beside a running leader, until /readyz answers 200.
// A missing or stale build is built first (not timed). Loopback only, bounded: every start has
// 120 s, then the bench fails. Each case prints a line; the last line is the JSON result, whose
// value is 1000 / p50 ms of the compiled build's restarts (pg-engine when PostgreSQL is there, else
// sqlite-restart), against the tsx starts of the same case.

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { buildState, projectRoot } from "../bin/build-state.js";
import { testMasterKeyHex, testPlatformEnv } from "../test/e2e/harness.js";
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from "../test/support/postgres-cluster.js";
import { percentileOfSorted, round } from "./lib/summary.js";

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const startTimeoutMs = 120_000;
type Variant = "tsx" | "compiled";
const variants: readonly Variant[] = ["tsx", "compiled"];
const commandOf: Record<Variant, readonly string[]> = {
  tsx: ["--import", "tsx", join(projectRoot, "src", "cli", "main.ts")],
  compiled: [join(projectRoot, "bin", "predex.js")],
};

if (buildState().kind !== "fresh") {
  console.log("bench:start: building dist/ first (not timed)");
  execFileSync(process.execPath, ["--import", "tsx", join(projectRoot, "tools", "build.ts")], {
    cwd: projectRoot,
    stdio: "inherit",
  });
}

/** A started node: its stdout lines and its exit, stopped by SIGTERM to its own PID. */
class Node {
  readonly lines: string[] = [];
  readonly #waiters = new Set<() => void>();
  readonly exited: Promise<void>;

  constructor(readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.on("exit", () => resolve()));
    child.on("exit", () => this.#wake());
    createInterface({ input: child.stdout! }).on("line", (line) => {
      this.lines.push(line);
      this.#wake();
    });
  }

  #wake(): void {
    for (const waiter of this.#waiters) waiter();
  }

  /** The first capture of the first line matching `pattern`, before `deadline` (performance.now()). */
  async line(pattern: RegExp, deadline: number): Promise<string> {
    for (;;) {
      for (const line of this.lines) {
        const match = pattern.exec(line);
        if (match !== null) return match[1] ?? line;
      }
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`the node exited before "${pattern}": ${this.lines.join(" | ")}`);
      }
      if (performance.now() > deadline) throw new Error(`no "${pattern}" within ${startTimeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, 100);
        this.#waiters.add(wake);
      });
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGTERM");
    await this.exited;
  }
}

function startNode(variant: Variant, args: readonly string[], env: Record<string, string>): Node {
  return new Node(
    spawn(process.execPath, [...commandOf[variant], ...args], {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );
}

/** From spawn to the first 200 of /readyz on the admin listener. */
async function untilReady(node: Node, startedAt: number): Promise<number> {
  const deadline = startedAt + startTimeoutMs;
  const admin = await node.line(/^\s+admin\s.*?(https?:\/\/\S+)/, deadline);
  for (;;) {
    const status = await fetch(`${admin}/readyz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return performance.now() - startedAt;
    if (performance.now() > deadline) throw new Error(`/readyz not 200 within ${startTimeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** One start of `args` with `variant`, until `ready`; the node is stopped afterwards. */
async function timeStart(
  variant: Variant,
  args: readonly string[],
  env: Record<string, string>,
  ready: (node: Node, startedAt: number) => Promise<number>,
): Promise<number> {
  const startedAt = performance.now();
  const node = startNode(variant, args, env);
  try {
    return await ready(node, startedAt);
  } finally {
    await node.stop();
  }
}

const scratch = mkdtempSync(join(tmpdir(), "predex-bench-start-"));
const baseEnv = {
  PREDEX_MASTER_KEY: testMasterKeyHex,
  PREDEX_ADMIN_TOKEN: "bench-start-admin-token-0123456789",
  PREDEX_LOG_LEVEL: "warn",
  PREDEX_DATABASE_URL: "",
};
const results = new Map<string, Record<Variant, number[]>>();
const record = (name: string, variant: Variant, ms: number) => {
  const byVariant = results.get(name) ?? { tsx: [], compiled: [] };
  byVariant[variant].push(ms);
  results.set(name, byVariant);
};

let cluster: PostgresCluster | undefined;
let leader: Node | undefined;
try {
  let dirs = 0;
  const newDir = () => join(scratch, `node-${++dirs}`);
  const restartDir = newDir();
  // The data the restarts find (made once, not timed).
  await timeStart("compiled", ["serve"], { ...testPlatformEnv(restartDir), ...baseEnv }, untilReady);
  for (let round = 0; round < rounds; round += 1) {
    for (const variant of variants) {
      const fresh = await timeStart(
        variant,
        ["serve"],
        { ...testPlatformEnv(newDir()), ...baseEnv },
        untilReady,
      );
      record("sqlite-fresh", variant, fresh);
      const restart = await timeStart(
        variant,
        ["serve"],
        { ...testPlatformEnv(restartDir), ...baseEnv },
        untilReady,
      );
      record("sqlite-restart", variant, restart);
    }
  }

  // PostgreSQL: skipped, loudly, when it is not installed.
  if (postgresSkipReason() === undefined) {
    cluster = await startPostgresCluster({ durable: true });
    const url = await cluster.createDatabase("bench_start");
    const pgEnv = (dir: string) => ({ ...testPlatformEnv(dir), ...baseEnv, PREDEX_DATABASE_URL: url });
    const leading = (node: Node, startedAt: number) =>
      node.line(/(leading) \(epoch/, startedAt + startTimeoutMs).then(() => performance.now() - startedAt);
    // A journal for the restarts to recover (made once, not timed): an all-in-one node leads once.
    await timeStart("compiled", ["serve"], pgEnv(newDir()), untilReady);
    for (let round = 0; round < rounds; round += 1) {
      for (const variant of variants) {
        record(
          "pg-engine",
          variant,
          await timeStart(variant, ["serve", "--role", "engine"], pgEnv(newDir()), leading),
        );
      }
    }
    leader = startNode("compiled", ["serve", "--role", "engine"], pgEnv(newDir()));
    await leader.line(/(leading) \(epoch/, performance.now() + startTimeoutMs);
    for (let round = 0; round < rounds; round += 1) {
      for (const variant of variants) {
        record(
          "pg-api",
          variant,
          await timeStart(variant, ["serve", "--role", "api"], pgEnv(newDir()), untilReady),
        );
      }
    }
  }
} finally {
  await leader?.stop();
  await cluster?.stop();
  rmSync(scratch, { recursive: true, force: true });
}

const p = (values: readonly number[], percentile: number) =>
  percentileOfSorted(
    [...values].sort((a, b) => a - b),
    percentile,
  );
for (const [name, byVariant] of results) {
  const [tsx, compiled] = [p(byVariant.tsx, 50), p(byVariant.compiled, 50)];
  console.log(
    `${name}: start → ready p50 ${tsx.toFixed(0)} ms from the sources (tsx), ${compiled.toFixed(0)} ms compiled ` +
      `(${(tsx / compiled).toFixed(2)}×); tsx ${byVariant.tsx.map((ms) => ms.toFixed(0)).join(", ")}; ` +
      `compiled ${byVariant.compiled.map((ms) => ms.toFixed(0)).join(", ")}`,
  );
}
const headline = results.has("pg-engine") ? "pg-engine" : "sqlite-restart";
const measured = results.get(headline)!;
const compiledP50 = p(measured.compiled, 50);
const tsxP50 = p(measured.tsx, 50);
console.log(
  JSON.stringify({
    bench: "start",
    unit: `starts/s (1000 / p50 ms from process start to ready, ${headline})`,
    value: round(1000 / compiledP50, 3),
    baseline: {
      name: "the same start from the TypeScript sources through tsx",
      value: round(1000 / tsxP50, 3),
    },
    ratio: round(tsxP50 / compiledP50, 3),
    p50_ms: round(compiledP50, 3),
    p99_ms: round(p(measured.compiled, 99), 3),
    baseline_p50_ms: round(tsxP50, 3),
    cases: Object.fromEntries(
      [...results].map(([name, byVariant]) => [
        name,
        { tsx_p50_ms: round(p(byVariant.tsx, 50), 3), compiled_p50_ms: round(p(byVariant.compiled, 50), 3) },
      ]),
    ),
    rounds,
  }),
);
