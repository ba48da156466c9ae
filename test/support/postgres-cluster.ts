// A throwaway PostgreSQL cluster of the test's own: a copy of an initdb-made data directory (made once
// and kept as a template, see templateDataDirectory) in a temporary directory, the postmaster
// on a free loopback port with its socket in that directory, trust authentication on loopback only,
// and everything removed after. Nothing assumes a running server, and several test files can start
// clusters at the same time (no fixed port or path). initdb refuses to run as root, so as root the
// binaries run as the `postgres` user through runuser (CI runs as root).

import { execFile as execFileCallback, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const execFile = promisify(execFileCallback);

const binariesRoot = "/usr/lib/postgresql";
/** Attempts at starting on a free port, in case another process takes the port between check and bind. */
const startAttemptsMax = 4;
const startTimeoutSeconds = 30;

export interface PostgresBinaries {
  readonly directory: string;
  readonly majorVersion: number;
}

/** The newest installed server's bin directory (Debian's layout), or undefined when there is none. */
export function findPostgresBinaries(): PostgresBinaries | undefined {
  if (!existsSync(binariesRoot)) return undefined;
  const versions = readdirSync(binariesRoot)
    .map((name) => Number(name))
    .filter((version) => Number.isInteger(version))
    .sort((a, b) => b - a);
  for (const majorVersion of versions) {
    const directory = join(binariesRoot, String(majorVersion), "bin");
    if (["initdb", "pg_ctl", "postgres"].every((tool) => existsSync(join(directory, tool)))) {
      return { directory, majorVersion };
    }
  }
  return undefined;
}

/**
 * Why tests that need PostgreSQL must skip here, or undefined when they can run. Outside CI a missing
 * server skips loudly; with CI=true it is a failure, never a skip.
 */
export function postgresSkipReason(): string | undefined {
  if (findPostgresBinaries() !== undefined) return undefined;
  const reason = `PostgreSQL is not installed (no ${binariesRoot}/*/bin/initdb): install Debian's postgresql package`;
  if (process.env.CI === "true") throw new Error(`${reason}. CI must run the PostgreSQL tests.`);
  console.warn(`\n*** SKIPPING POSTGRESQL TESTS: ${reason} ***\n`);
  return reason;
}

export interface PostgresClusterOptions {
  /**
   * fsync and full_page_writes on, as production runs. Off by default: tests lose nothing when the
   * cluster's own machine does not crash, and a shared disk is spared. Benchmarks turn it on.
   */
  readonly durable?: boolean;
  readonly maxConnections?: number;
}

export interface PostgresCluster {
  readonly port: number;
  readonly directory: string;
  /** The postmaster's process id (a new one after startAgain). */
  readonly pid: number;
  /** postgres://postgres@127.0.0.1:port/database */
  urlOf(database: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (immediate shutdown) and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
  /**
   * Stops the server as an outage does, keeping its directory and port for startAgain: `fast` (the
   * default) ends every session with 57P01 and checkpoints, as `pg_ctl stop` and a restart do;
   * `immediate` is a crash (recovery at the next start).
   */
  shutDown(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts a server stopped by shutDown again, on the same port with the same settings. */
  startAgain(): Promise<void>;
}

const running = new Set<{ pid: number; directory: string }>();
let exitHookInstalled = false;

/** A test process that dies without stop() still takes its clusters down with it. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const cluster of running) {
      try {
        // SIGQUIT is PostgreSQL's immediate shutdown.
        process.kill(cluster.pid, "SIGQUIT");
      } catch {}
      rmSync(cluster.directory, { recursive: true, force: true });
    }
  });
}

function postgresUserIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

const runningAsRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL tool, as the postgres user when we are root. */
function runTool(binaries: PostgresBinaries, tool: string, args: string[]): Promise<{ stdout: string }> {
  const path = join(binaries.directory, tool);
  if (runningAsRoot) return execFile("runuser", ["-u", "postgres", "--", path, ...args]);
  return execFile(path, args);
}

export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === "object") resolve(address.port);
        else reject(new Error("no port"));
      });
    });
  });
}

/** initdb's arguments (after --pgdata); the template's name depends on them and on the binaries. */
const initdbArguments = [
  "--username",
  "postgres",
  "--auth",
  "trust",
  "--encoding",
  "UTF8",
  "--locale",
  "C",
  "--no-sync",
];

/** A new directory of ours in the temporary directory, owned by whoever runs the server. */
function serverDirectory(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  if (runningAsRoot) {
    const { uid, gid } = postgresUserIds();
    chownSync(directory, uid, gid);
  }
  chmodSync(directory, 0o700);
  return directory;
}

/**
 * An initialised data directory that each cluster copies, made once per machine, server binaries,
 * initdb arguments and user: initdb was most of a cluster's start (≈3 s of ≈3.5 s on the shared
 * 2-CPU machine; a copy of its 39 MB takes a fraction of that), paid by every PostgreSQL test file.
 * Each file still gets a cluster of its own. Built under a temporary name and renamed into place,
 * so test files starting at once never copy half of one; the loser of that race drops its own.
 * Left in the temporary directory as a cache (`predex-pg-template-*`); delete it at will.
 */
async function templateDataDirectory(binaries: PostgresBinaries): Promise<string> {
  const ownerUid = runningAsRoot ? postgresUserIds().uid : (process.getuid?.() ?? 0);
  const key = createHash("sha256")
    .update(JSON.stringify([binaries.directory, initdbArguments]))
    .digest("hex")
    .slice(0, 16);
  const template = join(tmpdir(), `predex-pg-template-${binaries.majorVersion}-${ownerUid}-${key}`);
  const data = join(template, "data");
  // Only a template its owner made (a directory in a shared /tmp could be anyone's).
  const usable = () => existsSync(join(data, "PG_VERSION")) && statSync(template).uid === ownerUid;
  if (usable()) return data;
  const building = serverDirectory("predex-pg-template-building-");
  try {
    await runTool(binaries, "initdb", ["--pgdata", join(building, "data"), ...initdbArguments]);
    renameSync(building, template);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    if (!usable()) throw error;
  }
  return data;
}

export async function startPostgresCluster(options: PostgresClusterOptions = {}): Promise<PostgresCluster> {
  const binaries = findPostgresBinaries();
  if (binaries === undefined) throw new Error("PostgreSQL is not installed");
  installExitHook();
  const template = await templateDataDirectory(binaries);
  const directory = serverDirectory("predex-pg-");
  const dataDirectory = join(directory, "data");
  try {
    // -a keeps the owner (postgres when we are root) and the 0700 mode the server insists on.
    await execFile("cp", ["-a", template, dataDirectory]);
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  const durable = options.durable ?? false;
  const settings = [
    "listen_addresses=127.0.0.1",
    `unix_socket_directories=${directory}`,
    `max_connections=${options.maxConnections ?? 60}`,
    "shared_buffers=32MB",
    `fsync=${durable ? "on" : "off"}`,
    `full_page_writes=${durable ? "on" : "off"}`,
    "synchronous_commit=on",
  ];
  const startOn = (port: number) =>
    runTool(binaries, "pg_ctl", [
      "start",
      "--pgdata",
      dataDirectory,
      "--wait",
      "--timeout",
      String(startTimeoutSeconds),
      "--log",
      join(directory, "server.log"),
      "--options",
      [`-p ${port}`, ...settings.map((setting) => `-c ${setting}`)].join(" "),
    ]);
  let lastError: unknown;
  for (let attempt = 1; attempt <= startAttemptsMax; attempt++) {
    const port = await freeLoopbackPort();
    try {
      await startOn(port);
    } catch (error) {
      lastError = error;
      continue;
    }
    const entry = { pid: postmasterPid(dataDirectory), directory };
    running.add(entry);
    return makeCluster(binaries, { port, directory, dataDirectory, entry, startOn });
  }
  const log = existsSync(join(directory, "server.log"))
    ? readFileSync(join(directory, "server.log"), "utf8")
    : "";
  rmSync(directory, { recursive: true, force: true });
  throw new Error(`PostgreSQL did not start: ${String(lastError)}\n${log}`);
}

function postmasterPid(dataDirectory: string): number {
  return Number(readFileSync(join(dataDirectory, "postmaster.pid"), "utf8").split("\n")[0]);
}

function makeCluster(
  binaries: PostgresBinaries,
  where: {
    port: number;
    directory: string;
    dataDirectory: string;
    entry: { pid: number; directory: string };
    startOn: (port: number) => Promise<unknown>;
  },
): PostgresCluster {
  const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${where.port}/${database}`;
  let stopped: Promise<void> | undefined;
  /** Between shutDown and startAgain: no postmaster of ours runs (its pid may be another's by now). */
  let down = false;
  return {
    port: where.port,
    directory: where.directory,
    get pid() {
      return where.entry.pid;
    },
    urlOf,
    async shutDown(mode = "fast") {
      await runTool(binaries, "pg_ctl", ["stop", "--pgdata", where.dataDirectory, "--mode", mode, "--wait"]);
      down = true;
      running.delete(where.entry);
    },
    async startAgain() {
      await where.startOn(where.port);
      where.entry.pid = postmasterPid(where.dataDirectory);
      running.add(where.entry);
      down = false;
    },
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not a plain database name: ${name}`);
      const client = new pg.Client({ connectionString: urlOf("postgres") });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return urlOf(name);
    },
    stop() {
      stopped ??= (async () => {
        if (down) {
          rmSync(where.directory, { recursive: true, force: true });
          return;
        }
        try {
          await runTool(binaries, "pg_ctl", [
            "stop",
            "--pgdata",
            where.dataDirectory,
            "--mode",
            "immediate",
            "--wait",
          ]);
        } catch {
          try {
            process.kill(where.entry.pid, "SIGQUIT");
          } catch {}
        }
        running.delete(where.entry);
        rmSync(where.directory, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}
