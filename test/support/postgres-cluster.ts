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
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freeLoopbackPort } from "./loopback-port.js";
import { waitUntil } from "./wait-until.js";

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

/** How the server is stopped: "fast" is a clean shutdown, "immediate" a crash (recovery at the next start). */
export type PostgresShutdownMode = "fast" | "immediate";

export interface PostgresCluster {
  /** The port it listens on now (start(port) may move it). */
  readonly port: number;
  readonly directory: string;
  /** The running postmaster's process id (a new one after every start). */
  readonly pid: number;
  /** The server's log; every start appends to it. */
  readonly logPath: string;
  /** postgres://postgres@127.0.0.1:port/database */
  urlOf(database: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Runs SQL on the server's `postgres` database (ALTER SYSTEM, pg_reload_conf(), …). */
  execute(sql: string): Promise<pg.QueryResult>;
  /** Stops the server and keeps its data, so start() brings it back on the same port. */
  shutdown(mode?: PostgresShutdownMode): Promise<void>;
  /**
   * Starts the server again after shutdown(), with the same settings, on the same port or on
   * `port` (the address a failover moves: a promoted replica takes over the primary's).
   */
  start(port?: number): Promise<void>;
  /** shutdown(mode) then start(). */
  restart(mode?: PostgresShutdownMode): Promise<void>;
  /**
   * A streaming replica of this server (pg_basebackup, then a hot standby on its own port).
   * `synchronous`: the primary's commits wait for it (synchronous_standby_names names it).
   * `name`: what the primary knows it by (application_name); default replica_1, replica_2, …
   * Resolves once the replica streams (and, when synchronous, is the primary's sync standby).
   */
  startReplica(options?: { synchronous?: boolean; name?: string }): Promise<PostgresReplica>;
  /** Stops the server (immediate shutdown) and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

export interface PostgresReplica extends PostgresCluster {
  /** The name the primary sees it by (application_name of its WAL receiver). */
  readonly name: string;
  /** Ends recovery: the replica becomes a primary that takes writes (pg_ctl promote). */
  promote(): Promise<void>;
}

/** Waits until `replica` has replayed everything its primary (at `primaryUrl`) has written so far. */
export async function waitForReplay(
  primaryUrl: string,
  replica: PostgresReplica,
  timeoutMs = 30_000,
): Promise<void> {
  const client = new pg.Client({ connectionString: primaryUrl });
  await client.connect();
  try {
    const target = (await client.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn")).rows[0]!
      .lsn;
    await waitUntil(
      async () => {
        const result = await client.query<{ caught_up: boolean }>(
          "SELECT replay_lsn >= $1::pg_lsn AS caught_up FROM pg_stat_replication WHERE application_name = $2",
          [target, replica.name],
        );
        return result.rows[0]?.caught_up === true;
      },
      { what: `the replica ${replica.name} replayed up to ${target}`, timeoutMs, intervalMs: 50 },
    );
  } finally {
    await client.end();
  }
}

/** The primary's synchronous_standby_names (reloaded at once); "" makes replication asynchronous. */
export async function setSynchronousStandbyNames(primary: PostgresCluster, names: string): Promise<void> {
  await primary.execute(`ALTER SYSTEM SET synchronous_standby_names = ${pg.escapeLiteral(names)}`);
  await primary.execute("SELECT pg_reload_conf()");
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

/** The settings every test server runs with, on the command line (they win over postgresql.auto.conf). */
function serverSettings(directory: string, options: PostgresClusterOptions): string[] {
  const durable = options.durable ?? false;
  return [
    "listen_addresses=127.0.0.1",
    `unix_socket_directories=${directory}`,
    `max_connections=${options.maxConnections ?? 60}`,
    "shared_buffers=32MB",
    `fsync=${durable ? "on" : "off"}`,
    `full_page_writes=${durable ? "on" : "off"}`,
    "synchronous_commit=on",
  ];
}

interface ServerPlace {
  readonly directory: string;
  readonly dataDirectory: string;
  /** Everything after `-p port` on the postmaster's command line. */
  readonly settings: readonly string[];
}

/** pg_ctl start on `port`; the postmaster's pid once it accepts connections. */
async function startServer(binaries: PostgresBinaries, place: ServerPlace, port: number): Promise<number> {
  await runTool(binaries, "pg_ctl", [
    "start",
    "--pgdata",
    place.dataDirectory,
    "--wait",
    "--timeout",
    String(startTimeoutSeconds),
    "--log",
    join(place.directory, "server.log"),
    "--options",
    [`-p ${port}`, ...place.settings.map((setting) => `-c ${setting}`)].join(" "),
  ]);
  return Number(readFileSync(join(place.dataDirectory, "postmaster.pid"), "utf8").split("\n")[0]);
}

/** Starts a server on a free port, trying another port if one is taken between check and bind. */
async function startOnFreePort(
  binaries: PostgresBinaries,
  place: ServerPlace,
): Promise<{ port: number; pid: number }> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= startAttemptsMax; attempt++) {
    const port = await freeLoopbackPort();
    try {
      return { port, pid: await startServer(binaries, place, port) };
    } catch (error) {
      lastError = error;
    }
  }
  const logPath = join(place.directory, "server.log");
  const log = existsSync(logPath) ? readFileSync(logPath, "utf8") : "";
  rmSync(place.directory, { recursive: true, force: true });
  throw new Error(`PostgreSQL did not start: ${String(lastError)}\n${log}`);
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
  const place = { directory, dataDirectory, settings: serverSettings(directory, options) };
  const { port, pid } = await startOnFreePort(binaries, place);
  return makeCluster(binaries, options, { ...place, port, pid });
}

/** A server coming up or changing role: 30 s, a query the server refuses meanwhile tried again. */
const postgresWait = { timeoutMs: 30_000, intervalMs: 50, retryErrors: true } as const;

function makeCluster(
  binaries: PostgresBinaries,
  options: PostgresClusterOptions,
  where: ServerPlace & { port: number; pid: number },
  name = "primary",
): PostgresReplica {
  const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${where.port}/${database}`;
  const entry = { pid: where.pid, directory: where.directory };
  running.add(entry);
  let serverRunning = true;
  let stopped: Promise<void> | undefined;
  const execute = async (sql: string) => {
    const client = new pg.Client({ connectionString: urlOf("postgres") });
    await client.connect();
    try {
      return await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const shutdown = async (mode: PostgresShutdownMode = "fast") => {
    if (!serverRunning) return;
    await runTool(binaries, "pg_ctl", ["stop", "--pgdata", where.dataDirectory, "--mode", mode, "--wait"]);
    serverRunning = false;
  };
  const start = async (port = where.port) => {
    if (serverRunning) return;
    entry.pid = await startServer(binaries, where, port);
    where.port = port;
    serverRunning = true;
  };
  let replicas = 0;
  return {
    name,
    get port() {
      return where.port;
    },
    directory: where.directory,
    get pid() {
      return entry.pid;
    },
    logPath: join(where.directory, "server.log"),
    urlOf,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not a plain database name: ${name}`);
      await execute(`CREATE DATABASE ${name}`);
      return urlOf(name);
    },
    execute,
    shutdown,
    start,
    async restart(mode) {
      await shutdown(mode);
      await start();
    },
    async startReplica(replicaOptions = {}) {
      replicas += 1;
      const name = replicaOptions.name ?? `replica_${replicas}`;
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not a plain replica name: ${name}`);
      const directory = serverDirectory("predex-pg-replica-");
      const dataDirectory = join(directory, "data");
      try {
        // -R: standby.signal and the primary's address; the settings below add the name it streams as.
        await runTool(binaries, "pg_basebackup", [
          "--pgdata",
          dataDirectory,
          "--host",
          "127.0.0.1",
          "--port",
          String(where.port),
          "--username",
          "postgres",
          "--wal-method",
          "stream",
          "--checkpoint",
          "fast",
          "--write-recovery-conf",
          "--no-sync",
        ]);
      } catch (error) {
        rmSync(directory, { recursive: true, force: true });
        throw error;
      }
      const settings = [
        ...serverSettings(directory, options),
        `primary_conninfo='host=127.0.0.1 port=${where.port} user=postgres application_name=${name}'`,
        // A promoted replica must not wait for a standby of its own (the primary's setting, copied).
        "synchronous_standby_names=''",
        // After the primary restarts, a synchronous primary's commits wait until the replica streams
        // again: reconnect within a second rather than the default 5 (docs/deployment.md).
        "wal_retrieve_retry_interval=1s",
      ];
      const { port, pid } = await startOnFreePort(binaries, { directory, dataDirectory, settings });
      const replica = makeCluster(binaries, options, { directory, dataDirectory, settings, port, pid }, name);
      if (replicaOptions.synchronous === true) {
        await execute(`ALTER SYSTEM SET synchronous_standby_names = '"${name}"'`);
        await execute("SELECT pg_reload_conf()");
      }
      const state = replicaOptions.synchronous === true ? "sync" : "async";
      await waitUntil(
        async () => {
          const result = await execute(
            `SELECT 1 FROM pg_stat_replication WHERE application_name = '${name}' AND state = 'streaming' AND sync_state = '${state}'`,
          );
          return result.rowCount === 1;
        },
        { what: `PostgreSQL: ${name} streaming (${state})`, ...postgresWait },
      );
      return replica;
    },
    async promote() {
      await runTool(binaries, "pg_ctl", ["promote", "--pgdata", where.dataDirectory, "--wait"]);
      await waitUntil(
        async () => {
          const result = await execute("SELECT pg_is_in_recovery() AS recovering");
          return result.rows[0]?.recovering === false;
        },
        { what: "PostgreSQL: promotion", ...postgresWait },
      );
    },
    stop() {
      stopped ??= (async () => {
        if (serverRunning) {
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
              process.kill(entry.pid, "SIGQUIT");
            } catch {}
          }
        }
        serverRunning = false;
        running.delete(entry);
        rmSync(where.directory, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}
