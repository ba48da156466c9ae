// A streaming replica of a throwaway cluster (postgres-cluster.ts), for the tests of what a database
// failover does to predex: pg_basebackup from the primary with -R (standby.signal and
// primary_conninfo written), started on a free loopback port with `cluster_name` as the name the
// primary knows it by (synchronous_standby_names), stopped and promoted on demand, and started
// again on another port (the address the nodes know the primary by, as a DNS name or a virtual IP
// moves with a failover). Kept apart from postgres-cluster.ts, which another part of the work
// extends with its own replica support; fold the two together when both are in.

import { execFile as execFileCallback, execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import {
  findPostgresBinaries,
  freeLoopbackPort,
  type PostgresBinaries,
  type PostgresCluster,
} from "./postgres-cluster.js";
import { waitUntil } from "./wait-until.js";

const execFile = promisify(execFileCallback);
const runningAsRoot = process.getuid?.() === 0;

function runTool(binaries: PostgresBinaries, tool: string, args: string[]): Promise<{ stdout: string }> {
  const path = join(binaries.directory, tool);
  if (runningAsRoot) return execFile("runuser", ["-u", "postgres", "--", path, ...args]);
  return execFile(path, args);
}

function serverDirectory(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  if (runningAsRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(directory, uid, gid);
  }
  chmodSync(directory, 0o700);
  return directory;
}

export interface PostgresReplica {
  /** The name the primary sees it by (cluster_name → application_name of its WAL receiver). */
  readonly name: string;
  readonly directory: string;
  /** The port it listens on now. */
  port(): number;
  /** The postmaster's process id now. */
  pid(): number;
  urlOf(database: string): string;
  /** Stops it (fast shutdown: it stops receiving WAL), keeping its data. */
  stop(): Promise<void>;
  /** Starts it again, on `port` when given (standby or primary, as its data says). */
  start(port?: number): Promise<void>;
  /** Ends recovery: from now on it is a primary of its own (on a new timeline). */
  promote(): Promise<void>;
  /** Stops it (immediate) and removes its directory. */
  destroy(): Promise<void>;
}

/** Waits until the replica has replayed everything the primary has written so far. */
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
  const client = new pg.Client({ connectionString: primary.urlOf("postgres") });
  await client.connect();
  try {
    await client.query(`ALTER SYSTEM SET synchronous_standby_names = ${pg.escapeLiteral(names)}`);
    await client.query("SELECT pg_reload_conf()");
  } finally {
    await client.end();
  }
}

export async function startStreamingReplica(
  primary: PostgresCluster,
  name: string,
): Promise<PostgresReplica> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not a plain replica name: ${name}`);
  const binaries = findPostgresBinaries();
  if (binaries === undefined) throw new Error("PostgreSQL is not installed");
  const directory = serverDirectory("predex-pg-replica-");
  const data = join(directory, "data");
  let port = 0;
  let pid = 0;
  const startOn = async (onPort: number) => {
    await runTool(binaries, "pg_ctl", [
      "start",
      "--pgdata",
      data,
      "--wait",
      "--timeout",
      "60",
      "--log",
      join(directory, "server.log"),
      "--options",
      [
        `-p ${onPort}`,
        "-c listen_addresses=127.0.0.1",
        `-c unix_socket_directories=${directory}`,
        `-c cluster_name=${name}`,
        "-c max_connections=60",
        "-c shared_buffers=32MB",
        "-c fsync=off",
        "-c full_page_writes=off",
        "-c synchronous_commit=on",
      ].join(" "),
    ]);
    port = onPort;
    pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
  };
  const kill = () => {
    try {
      process.kill(pid, "SIGQUIT");
    } catch {}
  };
  process.on("exit", kill);
  try {
    await runTool(binaries, "pg_basebackup", [
      "--host",
      "127.0.0.1",
      "--port",
      String(primary.port),
      "--username",
      "postgres",
      "--pgdata",
      data,
      "--wal-method",
      "stream",
      "--write-recovery-conf",
      "--checkpoint",
      "fast",
      "--no-sync",
    ]);
    await startOn(await freeLoopbackPort());
  } catch (error) {
    const log = existsSync(join(directory, "server.log"))
      ? readFileSync(join(directory, "server.log"), "utf8")
      : "";
    rmSync(directory, { recursive: true, force: true });
    throw new Error(`The replica did not start: ${String(error)}\n${log}`);
  }
  let destroyed: Promise<void> | undefined;
  return {
    name,
    directory,
    port: () => port,
    pid: () => pid,
    urlOf: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async stop() {
      await runTool(binaries, "pg_ctl", ["stop", "--pgdata", data, "--mode", "fast", "--wait"]);
    },
    start: (onPort) => startOn(onPort ?? port),
    async promote() {
      await runTool(binaries, "pg_ctl", ["promote", "--pgdata", data, "--wait"]);
    },
    destroy() {
      destroyed ??= (async () => {
        try {
          await runTool(binaries, "pg_ctl", ["stop", "--pgdata", data, "--mode", "immediate", "--wait"]);
        } catch {
          kill();
        }
        process.off("exit", kill);
        rmSync(directory, { recursive: true, force: true });
      })();
      return destroyed;
    },
  };
}
