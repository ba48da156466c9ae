// A fresh database for a bench on PostgreSQL, so runs never see each other's rows: on the server
// PREDEX_DATABASE_URL names, or on a durable throwaway cluster when it says "throwaway" (fsync and
// full_page_writes on, as production runs).

import pg from "pg";
import { startPostgresCluster } from "../../test/support/postgres-cluster.js";

export interface BenchDatabase {
  readonly url: string;
  /** True when the bench started its own durable cluster. */
  readonly throwaway: boolean;
  /** Drops the database (and stops the throwaway cluster). */
  drop(): Promise<void>;
}

export async function freshBenchDatabase(serverUrl: string, bench: string): Promise<BenchDatabase> {
  if (serverUrl === "throwaway") {
    const cluster = await startPostgresCluster({ durable: true, maxConnections: 200 });
    const url = await cluster.createDatabase(`predex_bench_${bench}`);
    return { url, throwaway: true, drop: () => cluster.stop() };
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
