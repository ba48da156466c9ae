// A fresh database for a bench on PostgreSQL, so runs never see each other's rows: on the server
// PREDEX_DATABASE_URL names, or on a durable throwaway cluster when it says "throwaway" (fsync and
// full_page_writes on, as production runs).

import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
  /**
   * BENCH_PG_STATEMENTS=1 on a throwaway cluster (pg_stat_statements loaded, planning tracked):
   * forgets what was counted so far; else nothing.
   */
  resetStatements(): Promise<void>;
  /** BENCH_PG_STATEMENTS=1: the statements' calls and time since the reset, by total time, on stderr. */
  reportStatements(orders: number): Promise<void>;
  /** Drops the database (and stops the throwaway cluster). */
  drop(): Promise<void>;
}

export async function freshBenchDatabase(serverUrl: string, bench: string): Promise<BenchDatabase> {
  if (serverUrl === "throwaway") {
    const cluster = await startPostgresCluster({ durable: true, maxConnections: 200 });
    // "cpu" also logs each statement's CPU (log_statement_stats), summed by query id in the report;
    // "explain" also logs a sample of statements' plans as EXPLAIN (ANALYZE, BUFFERS) shows them
    // (auto_explain), copied to a file named in the report.
    const countsStatements = ["1", "cpu", "explain"].includes(process.env.BENCH_PG_STATEMENTS ?? "");
    const logsStatementCpu = process.env.BENCH_PG_STATEMENTS === "cpu";
    const logsPlans = process.env.BENCH_PG_STATEMENTS === "explain";
    if (countsStatements) {
      const libraries = logsPlans ? "'pg_stat_statements', 'auto_explain'" : "'pg_stat_statements'";
      await cluster.execute(`ALTER SYSTEM SET shared_preload_libraries = ${libraries}`);
      await cluster.restart("fast");
      await cluster.execute("ALTER SYSTEM SET pg_stat_statements.track_planning = on");
      if (logsPlans) {
        // Every 20th statement, with each node's rows, loops, time and buffers.
        for (const setting of [
          "auto_explain.log_min_duration = 0",
          "auto_explain.log_analyze = on",
          "auto_explain.log_buffers = on",
          "auto_explain.sample_rate = 0.05",
        ])
          await cluster.execute(`ALTER SYSTEM SET ${setting}`);
      }
      if (logsStatementCpu) {
        await cluster.execute("ALTER SYSTEM SET log_statement_stats = on");
        await cluster.execute("ALTER SYSTEM SET log_line_prefix = '%p %Q|'");
      }
      await cluster.execute("SELECT pg_reload_conf()");
    }
    let logOffset = 0;
    const url = await cluster.createDatabase(`predex_bench_${bench}`);
    const onDatabase = async (sql: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return await client.query(sql);
      } finally {
        await client.end();
      }
    };
    if (countsStatements) await onDatabase("CREATE EXTENSION pg_stat_statements");
    return {
      url,
      throwaway: true,
      cpuMicros: () => processTreeCpuMicros(cluster.pid),
      async resetStatements() {
        if (!countsStatements) return;
        await onDatabase("SELECT pg_stat_statements_reset()");
        logOffset = statSync(cluster.logPath).size;
      },
      async reportStatements(orders) {
        if (!countsStatements) return;
        const cpuByQuery = logsStatementCpu ? statementCpuMicros(cluster.logPath, logOffset) : undefined;
        const result = await onDatabase(
          `SELECT queryid::text AS queryid, calls, round(total_exec_time::numeric, 1) AS exec_ms, round(total_plan_time::numeric, 1) AS plan_ms,
                  rows, jit_functions, round((jit_generation_time + jit_inlining_time + jit_optimization_time + jit_emission_time)::numeric, 1) AS jit_ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query
           FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT 25`,
        );
        process.stderr.write(
          `pg_stat_statements over ${orders} orders (us an order = (exec+plan)/orders${cpuByQuery === undefined ? "" : "; cpu: the backends' CPU an order in parse, bind and execute, from log_statement_stats"}):\n`,
        );
        if (cpuByQuery !== undefined) {
          const total = [...cpuByQuery.values()].reduce((sum, us) => sum + us, 0);
          process.stderr.write(`all statements: ${(total / orders).toFixed(1)} us cpu an order\n`);
        }
        if (logsPlans) {
          const plansPath = join(tmpdir(), `predex-bench-${bench}-plans-${process.pid}.log`);
          writeFileSync(plansPath, readFileSync(cluster.logPath, "utf8").slice(logOffset));
          process.stderr.write(`plans (auto_explain, 1 statement in 20): ${plansPath}\n`);
        }
        for (const row of result.rows) {
          const usPerOrder = ((Number(row.exec_ms) + Number(row.plan_ms)) * 1000) / orders;
          const cpu = cpuByQuery?.get(String(row.queryid));
          process.stderr.write(
            `${cpu === undefined ? "" : `${(cpu / orders).toFixed(1).padStart(6)} us cpu `}${usPerOrder.toFixed(1).padStart(7)} us ${String(row.calls).padStart(7)} calls ${String(row.exec_ms).padStart(9)} ms exec ${String(row.plan_ms).padStart(8)} ms plan ${String(row.rows).padStart(8)} rows${Number(row.jit_functions) > 0 ? ` (JIT: ${row.jit_functions} functions, ${row.jit_ms} ms)` : ""}  ${row.query}\n`,
          );
        }
      },
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
    resetStatements: async () => {},
    reportStatements: async () => {},
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

/**
 * The CPU (user + system) of each statement's parse, bind and execute messages, by query id, from
 * log_statement_stats lines after `offset` of a server log written with log_line_prefix '%p %Q|'.
 * A bind (where a custom plan is made) is counted to the query its backend executes next.
 */
function statementCpuMicros(logPath: string, offset: number): Map<string, number> {
  const text = readFileSync(logPath, "utf8").slice(offset);
  const byQuery = new Map<string, number>();
  const heldByPid = new Map<string, number>();
  let current: { pid: string; queryId: string; message: string } | undefined;
  for (const line of text.split("\n")) {
    const header = /^(\d+) (-?\d+)\|LOG: {2}(.*STATISTICS)/.exec(line);
    if (header !== null) {
      current = { pid: header[1]!, queryId: header[2]!, message: header[3]! };
      continue;
    }
    const usage = /([\d.]+) s user, ([\d.]+) s system/.exec(line);
    if (usage === null || current === undefined) continue;
    const micros = (Number(usage[1]) + Number(usage[2])) * 1e6;
    if (current.message.startsWith("EXECUTE") || current.message === "QUERY STATISTICS") {
      const held = heldByPid.get(current.pid) ?? 0;
      heldByPid.delete(current.pid);
      byQuery.set(current.queryId, (byQuery.get(current.queryId) ?? 0) + micros + held);
    } else {
      heldByPid.set(current.pid, (heldByPid.get(current.pid) ?? 0) + micros);
    }
    current = undefined;
  }
  return byQuery;
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
