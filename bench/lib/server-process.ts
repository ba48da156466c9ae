// The HTTP benches run the platform in a child process and the load generator in the parent, so that
// on a 2-core machine each gets a core instead of sharing one event loop. The same script is both:
// started with `--serve` it is the child. The child writes one JSON line of targets (addresses,
// credentials, ids: whatever its load generator needs), then answers each line on its stdin with
// its CPU time so far, so the parent can read the server's CPU per request around each phase (on a
// shared 2-core machine a steadier figure than throughput). When stdin closes, because the parent
// finished or died, the child shuts down: it never outlives the parent.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { loadConfig } from "../../src/config.js";
import { type Platform, type PlatformOptions, startPlatform } from "../../src/server.js";

/** True in the child process that serves the platform, false in the parent that generates load. */
export function isServerProcess(): boolean {
  return process.argv.includes("--serve");
}

export interface BenchPlatform {
  readonly platform: Platform;
  /** Closes the platform and removes its data directory. */
  close(): Promise<void>;
}

/**
 * BENCH_METRICS=compare: the bench measures what the metrics cost, against a second server process
 * built without them (PlatformOptions.metrics), in alternating phases of one run.
 */
export function comparesMetrics(): boolean {
  return process.env.BENCH_METRICS === "compare";
}

/** Set by the parent on a server child that must run without metrics (see comparesMetrics). */
const serverWithoutMetricsVariable = "BENCH_SERVER_WITHOUT_METRICS";
/** Set by the parent on a server child that must run on this PostgreSQL database (else SQLite). */
const serverDatabaseUrlVariable = "BENCH_SERVER_DATABASE_URL";

/** A platform on a fresh data directory, every listener on a free loopback port, logging off. */
export async function startBenchPlatform(
  dataDirPrefix: string,
  options: PlatformOptions = {},
): Promise<BenchPlatform> {
  if (process.env[serverWithoutMetricsVariable] === "1") options = { ...options, metrics: false };
  const dataDir = mkdtempSync(join(tmpdir(), dataDirPrefix));
  const config = loadConfig({
    PREDEX_DATA_DIR: dataDir,
    PREDEX_HOST: "127.0.0.1",
    PREDEX_PORT: "0",
    PREDEX_PUBLIC_PORT: "0",
    PREDEX_LEGACY_PORT: "0",
    PREDEX_ADMIN_PORT: "0",
    PREDEX_LOG_LEVEL: "silent",
    ...(process.env[serverDatabaseUrlVariable]
      ? { PREDEX_DATABASE_URL: process.env[serverDatabaseUrlVariable] }
      : {}),
  });
  const platform = await startPlatform(config, options);
  return {
    platform,
    close: async () => {
      try {
        await platform.close();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Child side: hands the targets to the parent, then answers its CPU-time questions until stdin
 * closes or a signal arrives, and shuts down with `close`.
 */
export function serveTargets(targets: unknown, close: () => Promise<unknown>): void {
  process.stdout.write(`${JSON.stringify(targets)}\n`);
  const shutdown = async () => {
    await close();
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
  const commands = createInterface({ input: process.stdin });
  commands.on("line", () => {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`${JSON.stringify({ cpuUs: user + system })}\n`);
  });
  commands.on("close", shutdown);
}

export interface BenchServer<Targets> {
  readonly targets: Targets;
  /** The server process's user + system CPU time so far, in microseconds. */
  serverCpuUs(): Promise<number>;
}

/** BENCH_CPU_PROF=<dir> writes the server's CPU profile there (node --cpu-prof), for finding what limits it. */
export function cpuProfileFlags(): string[] {
  const directory = process.env.BENCH_CPU_PROF;
  if (directory === undefined) return [];
  // BENCH_CPU_PROF_INTERVAL_US: a finer sampling interval than V8's 1 ms, to split µs-sized parts.
  const intervalUs = process.env.BENCH_CPU_PROF_INTERVAL_US;
  const interval = intervalUs === undefined ? [] : [`--cpu-prof-interval=${Number(intervalUs)}`];
  return ["--cpu-prof", `--cpu-prof-dir=${directory}`, ...interval];
}

/**
 * Parent side: starts this script again with `--serve` (after `nodeOptions`, e.g. `--cpu-prof`),
 * waits for its targets, runs `generateLoad` and stops the server however that ends.
 */
export async function withBenchServer<Targets>(
  scriptUrl: string,
  nodeOptions: readonly string[],
  generateLoad: (server: BenchServer<Targets>) => Promise<void>,
  serverOptions: {
    readonly metrics?: boolean;
    readonly databaseUrl?: string;
    /** More environment for the child, e.g. which of a bench's servers it is to be. */
    readonly env?: Readonly<Record<string, string>>;
  } = {},
): Promise<void> {
  const child = spawn(
    process.execPath,
    [...nodeOptions, "--import", "tsx", new URL(scriptUrl).pathname, "--serve"],
    {
      stdio: ["pipe", "pipe", "inherit"],
      env: {
        ...process.env,
        [serverWithoutMetricsVariable]: serverOptions.metrics === false ? "1" : "0",
        [serverDatabaseUrlVariable]: serverOptions.databaseUrl ?? "",
        ...serverOptions.env,
      },
    },
  );
  try {
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const nextLine = async (): Promise<string> => {
      const next = await lines.next();
      if (next.done) throw new Error("the bench server exited early");
      return next.value;
    };
    const targets = JSON.parse(await nextLine()) as Targets;
    const serverCpuUs = async (): Promise<number> => {
      child.stdin!.write("cpu\n");
      return (JSON.parse(await nextLine()) as { cpuUs: number }).cpuUs;
    };
    await generateLoad({ targets, serverCpuUs });
  } finally {
    // Waits for the server to finish closing: a bench may drop its database right after.
    const exited = new Promise((resolve) => child.once("exit", resolve));
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    }
  }
}
