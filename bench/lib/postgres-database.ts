// A fresh database for a bench on PostgreSQL, so runs never see each other's rows: on the server
// PREDEX_DATABASE_URL names, or on a durable throwaway cluster when it says "throwaway" (fsync and
// full_page_writes on, as production runs).

import { readdirSync, readFileSync } from "node:fs";
import pg from "pg";
import { startPostgresCluster } from "../../test/support/postgres-cluster.js";

export interface BenchDatabase {
  readonly url: string;
  /** True when the bench started its own durable cluster. */
  readonly throwaway: boolean;
  /**
   * CPU time the throwaway cluster's processes have used so far, in microseconds (the postmaster,
   * its live backends and workers, and those already reaped); undefined for a server the bench did
   * not start, or off Linux.
   */
  cpuMicros(): number | undefined;
  /** Drops the database (and stops the throwaway cluster). */
  drop(): Promise<void>;
}

export async function freshBenchDatabase(serverUrl: string, bench: string): Promise<BenchDatabase> {
  if (serverUrl === "throwaway") {
    const cluster = await startPostgresCluster({ durable: true, maxConnections: 200 });
    const url = await cluster.createDatabase(`predex_bench_${bench}`);
    return {
      url,
      throwaway: true,
      cpuMicros: () => processTreeCpuMicros(cluster.pid),
      drop: () => cluster.stop(),
    };
  }
  const name = `predex_bench_${bench}_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    throwaway: false,
    cpuMicros: () => undefined,
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100;

/**
 * utime + stime of `pid` and its children (/proc/<pid>/stat fields 14–15), plus cutime + cstime of
 * `pid` (fields 16–17: its children already reaped, such as ended backends).
 */
function processTreeCpuMicros(pid: number): number | undefined {
  const fieldsOf = (stat: string) => stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  let ticks = 0;
  try {
    const own = fieldsOf(readFileSync(`/proc/${pid}/stat`, "utf8"));
    // After ")": field 3 is state, so field n is at index n - 3.
    ticks += Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  } catch {
    return undefined;
  }
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === pid) continue;
    try {
      const fields = fieldsOf(readFileSync(`/proc/${name}/stat`, "utf8"));
      if (Number(fields[1]) === pid) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended meanwhile: its time is in the postmaster's cutime now.
    }
  }
  return (ticks * 1_000_000) / ticksPerSecond;
}
